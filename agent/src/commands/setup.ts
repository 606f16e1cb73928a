// dbvault-agent setup: connect this machine to a DBVault account. Tests each database's
// connection, creates the master key (or keeps the one the config already has: replacing it
// would orphan every earlier backup), registers the agent and the database *names* with the
// server, writes the 0600 config, and shows the master key once.
import { deriveKeyId, encodeMasterKey, generateMasterKey } from "../archive/index.ts";
import { ConfigError, type DatabaseEntry, loadConfigOrEmpty, readMasterKey, saveConfig } from "../config.ts";
import { AGENT_VERSION } from "../dump/index.ts";
import { createServerClient } from "../transport/server-client.ts";
import { usageError } from "./cli-error.ts";
import type { CommandContext } from "./context.ts";
import { parseOptions } from "./parse-args.ts";
import { createPrompter, type Prompter } from "./prompt.ts";
import { runServiceCommand } from "./service.ts";
import { describeAgentHost, describeServerError, isInsecureServer, normalizeServerUrl, testDatabaseConnection } from "./server-link.ts";
import { checkOneStdinReader, parseDatabasesText, promptDatabases, readApiKey, readSecretFile, readSingleDatabase } from "./setup-inputs.ts";
import { COMMON_OPTIONS } from "./shared.ts";

const OPTIONS = {
  ...COMMON_OPTIONS,
  server: "string",
  "api-key-file": "string",
  db: "string",
  "uri-file": "string",
  "databases-file": "string",
  name: "string",
  force: "boolean",
} as const;

/** Runs `setup`; returns the exit code or throws what describeFailure reports. */
export async function runSetupCommand(args: string[], context: CommandContext): Promise<number> {
  const options = parseOptions("setup", args, OPTIONS);
  checkOneStdinReader("setup", options, ["api-key-file", "uri-file", "databases-file"]);
  if (options["databases-file"] !== undefined && (options.db !== undefined || options["uri-file"] !== undefined)) {
    throw usageError("setup: give either --databases-file or --db with --uri-file, not both");
  }
  const path = context.configPath(options.config);
  const existing = await loadConfigOrEmpty(path);
  if (existing.server && options.force !== true) {
    throw new ConfigError(
      "already-set-up",
      `the config file ${path} is already connected to ${existing.server.url} (agent ${existing.server.agentId ?? "not registered"})`,
      path,
      "to register this machine again (e.g. after regenerating the API key), pass --force: the master key and databases are kept",
    );
  }
  const prompter = context.io.stdinIsTTY ? createPrompter(context.io.stdin, context.io.stderr) : null;

  const serverAnswer = typeof options.server === "string" ? options.server : prompter ? await prompter.ask("DBVault server URL: ") : undefined;
  if (!serverAnswer) throw usageError("setup: missing --server URL", "see dbvault-agent help setup");
  const url = normalizeServerUrl("setup", serverAnswer);
  if (isInsecureServer(url)) context.warn(`${url} is not https: the API key and backups cross the network unprotected by TLS`);
  const apiKey = await readApiKey("setup", options, context, prompter);
  const given = await readDatabases(options, context, prompter);
  const agentName = typeof options.name === "string" ? options.name : describeAgentHost().hostname.slice(0, 100);
  if (agentName.length > 100) throw usageError("setup: --name must be at most 100 characters");

  for (const database of given) {
    const host = await testDatabaseConnection(database.name, database.uri);
    context.say(`connected to "${database.name}" at ${host}`);
  }
  const databases: DatabaseEntry[] = [...existing.databases.filter((old) => !given.some((entry) => entry.name === old.name)), ...given];

  const newKey = existing.masterKey === undefined ? generateMasterKey() : null;
  const masterKey = newKey ?? readMasterKey(existing, path);

  const client = createServerClient({ url, apiKey });
  const registered = await client
    .register({ name: agentName, ...describeAgentHost(), version: AGENT_VERSION, databases: databases.map((entry) => entry.name) })
    .catch((error) => {
      throw describeServerError(error, `registering with ${url}`);
    });
  await saveConfig(path, {
    ...existing,
    masterKey: encodeMasterKey(masterKey),
    databases,
    server: { url, apiKey, agentId: registered.agentId, agentToken: registered.agentToken },
  });

  context.say(`registered agent "${agentName}" (id ${registered.agentId}) with ${url}; settings saved in ${path} (mode 0600)`);
  reportDatabaseStates(context, databases, registered.databases);
  if (newKey) printNewKey(context, newKey);
  else context.say(`kept the master key already in ${path} (key id ${deriveKeyId(masterKey)})`);
  const configArgument = options.config ? ` --config ${path}` : "";
  if (prompter && (await prompter.ask("install the agent as a service that starts at boot (systemd)? [y/N] ")).toLowerCase().startsWith("y")) {
    return runServiceCommand(["install", ...(options.config ? ["--config", path] : [])], context);
  }
  context.say(`start the agent as a service with: dbvault-agent service install${configArgument} (or run it yourself: dbvault-agent run${configArgument})`);
  return 0;
}

async function readDatabases(
  options: Record<string, string | boolean | undefined>,
  context: CommandContext,
  prompter: Prompter | null,
): Promise<DatabaseEntry[]> {
  if (typeof options["databases-file"] === "string") return parseDatabasesText("setup", await readSecretFile(options["databases-file"], context));
  if (options.db !== undefined || options["uri-file"] !== undefined || !prompter) return [await readSingleDatabase("setup", options, context, prompter)];
  return promptDatabases("setup", context, prompter);
}

/** Says which databases the server will back up; those past the plan's limit start disabled. */
export function reportDatabaseStates(context: CommandContext, local: DatabaseEntry[], remote: { name: string; isActive: boolean }[]): void {
  for (const entry of local) {
    const state = remote.find((candidate) => candidate.name === entry.name);
    if (state?.isActive) context.say(`"${entry.name}" will be backed up on your schedule`);
    else context.warn(`"${entry.name}" is disabled: your plan's database limit is reached (enable it in Settings → Databases, or upgrade)`);
  }
}

function printNewKey(context: CommandContext, key: Buffer): void {
  context.io.stdout.write(
    [
      `Your master key (key id ${deriveKeyId(key)}):`,
      "",
      `  ${encodeMasterKey(key)}`,
      "",
      "Store a copy of it now, somewhere safe and away from this server (a password manager).",
      "Without it no backup can ever be restored: DBVault never sees it and cannot recover it.",
      "It is shown only this once; on this machine, dbvault-agent key export prints it again.",
      "",
    ].join("\n"),
  );
}
