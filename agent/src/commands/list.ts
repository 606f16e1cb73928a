// dbvault-agent list [--db NAME] [--limit N] [--json]: the backups of this agent's databases,
// newest first, as the server records them (on the agent's own credentials: its databases only).
import { OPERATOR_LIST_DEFAULT, OPERATOR_LIST_MAX } from "../../../protocol/operator";
import { usageError } from "../cli-error.ts";
import type { CommandContext } from "./context.ts";
import { describeBackup, operatorClient } from "./operator-format.ts";
import { parseOptions } from "./parse-args.ts";
import { describeServerError } from "./server-link.ts";
import { COMMON_OPTIONS } from "./shared.ts";

/** Runs `list`; returns the exit code or throws what describeFailure reports. */
export async function runListCommand(args: string[], context: CommandContext): Promise<number> {
  const options = parseOptions("list", args, { ...COMMON_OPTIONS, db: "string", limit: "string", json: "boolean" });
  const limit = readLimit(options.limit);
  const db = typeof options.db === "string" ? options.db : undefined;
  const { client, url } = await operatorClient(context, options.config);
  const { backups } = await client.operatorBackups({ db, limit }).catch((error) => {
    throw describeServerError(error, `list: asking ${url}`);
  });
  if (options.json === true) {
    context.io.stdout.write(`${JSON.stringify(backups, null, 2)}\n`);
    return 0;
  }
  if (backups.length === 0) {
    context.say(db === undefined ? "no backups of this agent's databases yet" : `no backups of "${db}" yet`);
    return 0;
  }
  for (const backup of backups) context.io.stdout.write(`${backup.id}  ${backup.databaseName}  ${describeBackup(backup)}\n`);
  if (backups.length === limit) context.say(`the newest ${limit} shown; --limit N shows more (at most ${OPERATOR_LIST_MAX})`);
  return 0;
}

function readLimit(value: string | boolean | undefined): number {
  if (value === undefined) return OPERATOR_LIST_DEFAULT;
  const limit = typeof value === "string" && /^[1-9][0-9]*$/.test(value) ? Number(value) : Number.NaN;
  if (!(limit <= OPERATOR_LIST_MAX)) throw usageError(`list: --limit must be a whole number from 1 to ${OPERATOR_LIST_MAX}`);
  return limit;
}
