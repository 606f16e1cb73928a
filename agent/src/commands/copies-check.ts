// dbvault-agent copies check [--sample N|all] [--json]: the daily check of the copies in the
// customer's buckets, on demand. A HEAD of each copy of this agent's backups, a full read-back of
// a sample (one by default), the results reported to DBVault (which raises the missing and
// changed ones); exit 1 when a copy is missing, changed or could not be checked.
import type { CopyCheckResult, CopyToCheck } from "../../../protocol/agent-protocol";
import { CliError, EXIT, usageError } from "../cli-error.ts";
import { readServerSettings } from "../config.ts";
import { checkAndReportCopies } from "../copies/copy-check.ts";
import { createServerClient } from "../transport/server-client.ts";
import { pluralize } from "../ui/format.ts";
import type { CommandContext } from "./context.ts";
import { parseOptions } from "./parse-args.ts";
import { describeServerError } from "./server-link.ts";
import { COMMON_OPTIONS } from "./shared.ts";

const OPTIONS = { ...COMMON_OPTIONS, sample: "string", json: "boolean" } as const;

/** Runs `copies check`; returns the exit code or throws what describeFailure reports. */
export async function runCopiesCheck(args: string[], context: CommandContext): Promise<number> {
  const options = parseOptions("copies check", args, OPTIONS);
  const sample = readSample(options.sample);
  const { config, path } = await context.loadConfig(options.config);
  const entries = config.copies ?? [];
  if (entries.length === 0) {
    throw new CliError(
      `copies check: the config file ${path} has no copy destinations`,
      EXIT.config,
      "add your bucket with: dbvault-agent copies add s3://BUCKET/PREFIX?endpoint=…",
    );
  }
  const client = createServerClient(readServerSettings(config, path));
  let run: Awaited<ReturnType<typeof checkAndReportCopies>>;
  try {
    run = await checkAndReportCopies(client, entries, { sample });
  } catch (error) {
    throw describeServerError(error, "copies check: asking the DBVault server for the copies or reporting them");
  }
  const byCopy = new Map(run.copies.map((copy) => [`${copy.backupId} ${copy.destination}`, copy]));
  const rows = run.results.map((result) => ({ ...result, ...pick(byCopy.get(`${result.backupId} ${result.destination}`)!) }));
  const wrong = rows.filter((row) => row.outcome !== "present");
  if (options.json === true) {
    const notConfigured = run.notConfigured.map(pick);
    context.io.stdout.write(`${JSON.stringify({ checked: rows.length, readBack: rows.filter((row) => row.readBack).length, results: rows, notConfigured })}\n`);
  } else {
    const width = Math.max(0, ...rows.map((row) => row.outcome.length));
    const lines = rows.map((row) => `${row.outcome.padEnd(width)}  ${describeRow(row)}`);
    if (lines.length > 0) context.io.stdout.write(`${lines.join("\n")}\n`);
    if (!options.quiet) {
      const buckets = new Set(rows.map((row) => row.destination)).size;
      context.say(
        rows.length === 0
          ? "no copies of this agent's backups to check yet (they are written after each backup)"
          : `checked ${copiesCount(rows.length)} in ${pluralize(buckets, "bucket")}, ${rows.filter((row) => row.readBack).length} read back whole; reported to DBVault`,
      );
      if (run.notConfigured.length > 0) {
        const skipped = [...new Set(run.notConfigured.map((copy) => copy.destination))].join(", ");
        context.say(`skipped ${copiesCount(run.notConfigured.length)} in buckets this config no longer has: ${skipped}`);
      }
    }
  }
  if (wrong.length === 0) return 0;
  const counts = (["missing", "changed", "unreachable"] as const)
    .map((outcome) => [outcome, wrong.filter((row) => row.outcome === outcome).length] as const)
    .filter(([, count]) => count > 0)
    .map(([outcome, count]) => `${count} ${outcome === "unreachable" ? "could not be checked" : outcome}`);
  throw new CliError(
    `copies check: ${copiesCount(wrong.length)} not as written: ${counts.join(", ")}`,
    EXIT.failure,
    wrong.some((row) => row.outcome !== "unreachable")
      ? "DBVault has alerted the account; the backups in DBVault are not affected. Check who can delete or overwrite objects in that bucket"
      : "check the bucket's endpoint and that these credentials may read objects (s3:GetObject), then run dbvault-agent copies check again",
  );
}

const copiesCount = (count: number) => `${count} ${count === 1 ? "copy" : "copies"}`;

const pick = (copy: CopyToCheck) => ({ databaseName: copy.databaseName, key: copy.key, size: copy.size });

function describeRow(row: CopyCheckResult & ReturnType<typeof pick>): string {
  const where = `${row.key} in ${row.destination.split("?")[0]}`;
  if (row.outcome === "present") return `${where}${row.readBack ? " (read back whole, SHA-256 as written)" : ""}`;
  return `${where}: ${row.detail ?? "no detail"}`;
}

function readSample(value: string | boolean | undefined): number | "all" {
  if (value === undefined) return 1;
  if (value === "all") return "all";
  if (typeof value === "string" && /^(0|[1-9][0-9]{0,5})$/.test(value)) return Number(value);
  throw usageError("copies check: --sample must be a number of copies to read back whole, or all");
}
