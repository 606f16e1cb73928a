// dbvault-agent copies add | list | remove | check: the customer's own buckets each backup is copied to.
// The credentials are read here (environment, AWS profile or terminal) and kept in the config file
// (0600) with the master key; nothing about them is sent to the server.
import { usageError } from "../cli-error.ts";
import { type AgentConfig, loadConfigOrEmpty, saveConfig } from "../config.ts";
import { probeCopy } from "../copies/copy-client.ts";
import { runCopiesCheck } from "./copies-check.ts";
import { readCopyCredentials } from "../copies/copy-credentials.ts";
import { type CopyEntry, parseCopyUrl } from "../copies/copy-destination.ts";
import { chooseCopyLock, readLockOptions } from "./copies-lock.ts";
import { CliError, EXIT } from "../cli-error.ts";
import type { CommandContext } from "./context.ts";
import { parseOptions } from "./parse-args.ts";
import { createPrompter } from "../ui/prompt.ts";
import { createServerClient } from "../transport/server-client.ts";
import { ServerRefusedError } from "../transport/errors.ts";
import { describeServerError } from "./server-link.ts";
import { COMMON_OPTIONS } from "./shared.ts";

const ACTIONS = "add, list, remove or check";

/** Runs `copies add|list|remove`; returns the exit code or throws what describeFailure reports. */
export async function runCopiesCommand(args: string[], context: CommandContext): Promise<number> {
  const [action, ...rest] = args;
  if (action === "add") return addCopy(rest, context);
  if (action === "list") return listCopies(rest, context);
  if (action === "remove") return removeCopy(rest, context);
  if (action === "check") return runCopiesCheck(rest, context);
  if (action === undefined) throw usageError(`copies: missing action (${ACTIONS})`);
  throw usageError(`copies: unknown action "${action}" (expected ${ACTIONS})`);
}

/** Splits off the one positional URL; throws CliError (usage) without it. */
function takeUrl(command: string, args: string[]): { url: string; options: string[] } {
  const [first, ...options] = args;
  if (first === undefined || first.startsWith("--")) throw usageError(`${command}: missing the destination (s3://bucket/prefix?endpoint=…&region=…)`);
  return { url: first, options };
}

async function addCopy(args: string[], context: CommandContext): Promise<number> {
  const { url: text, options: rest } = takeUrl("copies add", args);
  const options = parseOptions("copies add", rest, { ...COMMON_OPTIONS, profile: "string", "object-lock": "string", "retain-days": "string" });
  const { url } = parseCopyUrl("copies add", text);
  const asked = readLockOptions(options);
  const path = context.configPath(options.config);
  const config = await loadConfigOrEmpty(path);
  const copies = config.copies ?? [];
  if (copies.some((entry) => entry.url === url)) {
    throw new CliError(
      `copies add: ${url} is already a copy destination in ${path}`,
      EXIT.usage,
      "to change its credentials, remove it first: dbvault-agent copies remove URL",
    );
  }
  const prompter = context.io.stdinIsTTY ? createPrompter(context.io.stdin, context.io.stderr) : null;
  const credentials = await readCopyCredentials(context.io.env, options.profile as string | undefined, prompter);
  const entry: CopyEntry = { url, ...credentials };
  if (asked) entry.objectLock = await chooseCopyLock(entry, asked, config);
  const leftover = await probeCopy(entry);
  if (!leftover) context.say(`wrote and deleted a test object in ${url}`);
  else {
    context.say(`wrote a test object in ${url} and hid it behind a delete marker`);
    context.warn(
      `the bucket keeps the test object ${leftover.key} as version ${leftover.versionId}${leftover.code ? ` (${leftover.code})` : ""}: ` +
        "its default retention locks it, or these credentials lack s3:DeleteObjectVersion; delete that version by its id once its retention ends, or let a lifecycle rule expire noncurrent versions",
    );
  }
  await saveConfig(path, { ...config, copies: [...copies, entry] });
  const locked = entry.objectLock ? ` (each locked in ${entry.objectLock.mode} mode for ${entry.objectLock.retainDays} days)` : "";
  context.say(`added ${url} to ${path}; a running agent (dbvault-agent run) copies each backup there${locked} from its next one`);
  return 0;
}

async function listCopies(args: string[], context: CommandContext): Promise<number> {
  const options = parseOptions("copies list", args, COMMON_OPTIONS);
  const { config } = await context.loadConfig(options.config);
  // The URL only: it holds no credentials.
  for (const entry of config.copies ?? []) context.io.stdout.write(`${entry.url}\n`);
  return 0;
}

async function removeCopy(args: string[], context: CommandContext): Promise<number> {
  const { url: text, options: rest } = takeUrl("copies remove", args);
  const options = parseOptions("copies remove", rest, COMMON_OPTIONS);
  const { url } = parseCopyUrl("copies remove", text);
  const { config, path } = await context.loadConfig(options.config);
  const copies = config.copies ?? [];
  if (!copies.some((entry) => entry.url === url)) {
    const known = copies.map((entry) => entry.url);
    throw new CliError(
      `copies remove: ${url} is not a copy destination in ${path}`,
      EXIT.usage,
      known.length > 0 ? `the config file has: ${known.join(", ")}` : "the config file has no copy destinations",
    );
  }
  await askServerToRemove(config, url);
  await saveConfig(path, { ...config, copies: copies.filter((entry) => entry.url !== url) });
  context.say(`removed ${url} from ${path}; the copies already written there stay in the bucket`);
  return 0;
}

/**
 * A connected agent asks its server first: under "Protect backups" a copy destination stays (the
 * server answers 409 with the date it becomes possible). Unreachable, the destination stays too.
 * A config never connected to a server has no policy to ask.
 */
async function askServerToRemove(config: AgentConfig, url: string): Promise<void> {
  const server = config.server;
  if (!server?.url || !server.apiKey || !server.agentId || !server.agentToken) return;
  try {
    await createServerClient(server).allowCopyRemoval(url);
  } catch (error) {
    if (error instanceof ServerRefusedError && error.code === "BACKUPS_PROTECTED") {
      throw new CliError(
        `copies remove: ${url} stays: ${error.message}`,
        EXIT.failure,
        "the account owner can turn Protect backups off in Settings → Security (it takes effect after 7 days), then remove it",
      );
    }
    throw describeServerError(error, `copies remove: asking the DBVault server whether ${url} may be removed`);
  }
}
