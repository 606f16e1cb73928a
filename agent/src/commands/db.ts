// dbvault-agent db add | db list: add a database to a set-up agent (connection tested, name
// registered with the server, entry saved), or list the configured ones (names and hosts only).
import { ConfigError, readServerSettings, saveConfig } from "../config.ts";
import { describeUriHosts } from "../dump/index.ts";
import { createServerClient } from "../transport/server-client.ts";
import { usageError } from "./cli-error.ts";
import type { CommandContext } from "./context.ts";
import { parseOptions } from "./parse-args.ts";
import { createPrompter } from "./prompt.ts";
import { describeServerError, loadSetUpConfig, testDatabaseConnection } from "./server-link.ts";
import { reportDatabaseStates } from "./setup.ts";
import { readSingleDatabase } from "./setup-inputs.ts";
import { COMMON_OPTIONS } from "./shared.ts";

/** Runs `db add` or `db list`; returns the exit code or throws what describeFailure reports. */
export async function runDbCommand(args: string[], context: CommandContext): Promise<number> {
  const [action, ...rest] = args;
  if (action === "add") return addDatabase(rest, context);
  if (action === "list") return listDatabases(rest, context);
  if (action === undefined) throw usageError("db: missing action (add or list)");
  throw usageError(`db: unknown action "${action}" (expected add or list)`);
}

async function addDatabase(args: string[], context: CommandContext): Promise<number> {
  const options = parseOptions("db add", args, { ...COMMON_OPTIONS, db: "string", "uri-file": "string" });
  const { config, path } = await loadSetUpConfig(context, options.config);
  const server = readServerSettings(config, path);
  const prompter = context.io.stdinIsTTY ? createPrompter(context.io.stdin, context.io.stderr) : null;
  const entry = await readSingleDatabase("db add", options, context, prompter);
  if (config.databases.some((existing) => existing.name === entry.name)) {
    throw new ConfigError(
      "invalid",
      `the config file ${path} already has a database named "${entry.name}"`,
      path,
      "choose another display name (to change its connection string, edit the config file)",
    );
  }
  const host = await testDatabaseConnection(entry.name, entry.uri);
  context.say(`connected to "${entry.name}" at ${host}`);
  const registered = await createServerClient(server)
    .addDatabase(entry.name)
    .catch((error) => {
      throw describeServerError(error, `registering "${entry.name}" with ${server.url}`);
    });
  await saveConfig(path, { ...config, databases: [...config.databases, entry] });
  context.say(`added "${entry.name}" to ${path}`);
  reportDatabaseStates(context, [entry], registered.databases);
  context.say("a running agent (dbvault-agent run) uses it from its next backup");
  return 0;
}

async function listDatabases(args: string[], context: CommandContext): Promise<number> {
  const options = parseOptions("db list", args, COMMON_OPTIONS);
  const { config } = await context.loadConfig(options.config);
  // Hosts only: the rest of a connection string may hold a password.
  for (const entry of config.databases) context.io.stdout.write(`${entry.name}\t${describeUriHosts(entry.uri)}\n`);
  return 0;
}
