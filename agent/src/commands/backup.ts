// dbvault-agent backup now [--db NAME] [--json]: asks the server for a backup of one of this
// agent's databases now, as the dashboard's Trigger Backup does, under the same rules (the plan's
// manual-backup limit, a database disabled by the plan's database limit, one backup at a time)
// and with the server's own messages. `dbvault-agent run` then takes it like any other.
import { CliError, EXIT, usageError } from "../cli-error.ts";
import { ServerRefusedError } from "../transport/errors.ts";
import type { CommandContext } from "./context.ts";
import { formatUtc, operatorClient } from "./operator-format.ts";
import { parseOptions } from "./parse-args.ts";
import { describeServerError, loadSetUpConfig } from "./server-link.ts";
import { COMMON_OPTIONS } from "./shared.ts";

/** Runs `backup now`; returns the exit code or throws what describeFailure reports. */
export async function runBackupCommand(args: string[], context: CommandContext): Promise<number> {
  const [action, ...rest] = args;
  if (action === undefined) throw usageError("backup: missing action (now)");
  if (action !== "now") throw usageError(`backup: unknown action "${action}" (expected now)`);
  const options = parseOptions("backup now", rest, { ...COMMON_OPTIONS, db: "string", json: "boolean" });
  const databaseName = typeof options.db === "string" ? options.db : await onlyDatabase(context, options.config);
  const { client, url } = await operatorClient(context, options.config);
  const backup = await client.backupNow(databaseName).catch((error) => {
    throw describeRefusal(error, databaseName, url);
  });
  if (options.json === true) context.io.stdout.write(`${JSON.stringify(backup, null, 2)}\n`);
  else context.io.stdout.write(`${backup.id}\n`);
  context.say(
    `asked for a backup of "${databaseName}" (${backup.id}): dbvault-agent run takes it now; follow it with dbvault-agent status or dbvault-agent list`,
  );
  return 0;
}

/** The config's one database; with several (or none) --db must say which. */
async function onlyDatabase(context: CommandContext, explicit: string | boolean | undefined): Promise<string> {
  const { config } = await loadSetUpConfig(context, explicit);
  const names = config.databases.map((entry) => entry.name);
  if (names.length === 1) return names[0]!;
  if (names.length === 0) throw usageError("backup now: this config has no database: name the server's database with --db NAME");
  throw usageError(`backup now: this agent has ${names.length} databases (${names.join(", ")}): choose one with --db NAME`);
}

/** The server's refusal in its own words, with what to do next. */
function describeRefusal(error: unknown, databaseName: string, url: string): unknown {
  if (!(error instanceof ServerRefusedError) || error.status === 401) return describeServerError(error, `backup now: asking ${url}`);
  const next = error.answer.nextBackupAvailable;
  const hint =
    error.status === 429 && typeof next === "string"
      ? `the next manual backup of "${databaseName}" is possible at ${formatUtc(next)}; scheduled backups run as planned (dbvault-agent status shows the next one)`
      : error.code === "AGENT_OFFLINE"
        ? "start the agent with dbvault-agent run (or dbvault-agent service install), then try again"
        : error.code === "CONFLICT"
          ? "dbvault-agent status shows it; try again once it ends"
          : undefined;
  return new CliError(`backup now: ${error.message}`, EXIT.failure, hint);
}
