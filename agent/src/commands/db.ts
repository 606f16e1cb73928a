// dbvault-agent db add | db list: add a database (connection tested, name registered with the
// server when the config has one, entry saved), or list the configured ones (names and hosts only).
import { ConfigError, loadConfigOrEmpty, readServerSettings, saveConfig } from "../config.ts";
import { describeUriHosts } from "../dump/index.ts";
import { createServerClient } from "../transport/server-client.ts";
import { usageError } from "../cli-error.ts";
import type { CommandContext } from "./context.ts";
import { parseOptions } from "./parse-args.ts";
import { createPrompter } from "../ui/prompt.ts";
import { askDatabase } from "./database-prompt.ts";
import { describeServerError, testDatabaseConnection } from "./server-link.ts";
import { CHECK_TIMEOUT_MS, reportOplogAccess } from "./database-check.ts";
import { reportJobRoles } from "./job-roles-check.ts";
import { reportDatabaseStates } from "./setup.ts";
import { DB_URI_ENV, readSingleDatabase } from "./setup-inputs.ts";
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
  const path = context.configPath(options.config);
  const config = await loadConfigOrEmpty(path);
  // Without a server (a new machine holding only the imported key) the database is still saved:
  // restore needs no server, and setup registers every database of the config later.
  const server = config.server ? readServerSettings(config, path) : undefined;
  const prompter = context.io.stdinIsTTY ? createPrompter(context.io.stdin, context.io.stderr) : null;
  const taken = config.databases.map((existing) => existing.name);
  const asked = prompter !== null && options.db === undefined && options["uri-file"] === undefined && !context.io.env[DB_URI_ENV];
  const entry = asked ? await askDatabase("db add", context, prompter, taken) : await readSingleDatabase("db add", options, context, prompter);
  if (taken.includes(entry.name)) {
    throw new ConfigError(
      "invalid",
      `the config file ${path} already has a database named "${entry.name}"`,
      path,
      "choose another display name (to change its connection string, edit the config file)",
    );
  }
  if (!asked) context.say(`connected to "${entry.name}" at ${await testDatabaseConnection(entry.name, entry.uri)}`);
  const pitrAccess = await reportOplogAccess(context, entry.name, entry.uri);
  await reportJobRoles(context, entry.name, entry.uri, CHECK_TIMEOUT_MS);
  const registered = server
    ? await createServerClient(server)
        .addDatabase(entry.name, pitrAccess)
        .catch((error) => {
          throw describeServerError(error, `registering "${entry.name}" with ${server.url}`);
        })
    : undefined;
  await saveConfig(path, { ...config, databases: [...config.databases, entry] });
  context.say(`added "${entry.name}" to ${path}`);
  if (!registered) {
    context.say(
      `this config is connected to no DBVault server, so "${entry.name}" was not registered; it can be restored into now (dbvault-agent restore --db ${quoteArgument(entry.name)} --in FILE)`,
    );
    context.say("to back it up on a schedule, connect this machine with: dbvault-agent setup --server URL (it registers every database of the config)");
    return 0;
  }
  reportDatabaseStates(context, [entry], registered.databases);
  context.say("a running agent (dbvault-agent run) uses it from its next backup");
  return 0;
}

/** A display name as a shell argument (names may hold spaces). */
function quoteArgument(name: string): string {
  return /^[\w.-]+$/.test(name) ? name : `"${name}"`;
}

async function listDatabases(args: string[], context: CommandContext): Promise<number> {
  const options = parseOptions("db list", args, COMMON_OPTIONS);
  const { config } = await context.loadConfig(options.config);
  // Hosts only: the rest of a connection string may hold a password.
  for (const entry of config.databases) context.io.stdout.write(`${entry.name}\t${describeUriHosts(entry.uri)}\n`);
  return 0;
}
