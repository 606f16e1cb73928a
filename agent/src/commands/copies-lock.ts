// `copies add --object-lock compliance|governance [--retain-days N]`: the retention each copy is
// written with. Refused, saying what is missing, for a bucket without versioning or Object Lock,
// without a default retention to read when no --retain-days is given, or with a lock shorter
// than the account's retention keeps its backups (a copy could then go while the backup stays).
import { CliError, EXIT, usageError } from "../cli-error.ts";
import type { AgentConfig } from "../config.ts";
import { describeCopyError } from "../copies/copy-client.ts";
import type { CopyEntry, CopyLock, CopyLockMode } from "../copies/copy-destination.ts";
import { readBucketLock } from "../copies/copy-object-lock.ts";
import { createServerClient } from "../transport/server-client.ts";
import type { ParsedOptions } from "./parse-args.ts";
import { describeServerError } from "./server-link.ts";

const MODES: CopyLockMode[] = ["compliance", "governance"];
/** A hundred years: longer is a typing mistake. */
const MAX_RETAIN_DAYS = 36_500;

/** The lock asked for on the command line, or null; throws CliError (usage) for a bad value. */
export function readLockOptions(options: ParsedOptions): { mode: CopyLockMode; retainDays: number | null } | null {
  const mode = options["object-lock"];
  const days = options["retain-days"];
  if (mode === undefined) {
    if (days !== undefined) throw usageError("copies add: --retain-days needs --object-lock compliance or governance");
    return null;
  }
  if (!MODES.includes(mode as CopyLockMode)) throw usageError(`copies add: --object-lock must be ${MODES.join(" or ")}`);
  if (days === undefined) return { mode: mode as CopyLockMode, retainDays: null };
  if (typeof days !== "string" || !/^[1-9][0-9]*$/.test(days) || Number(days) > MAX_RETAIN_DAYS) {
    throw usageError(`copies add: --retain-days must be a whole number of days from 1 to ${MAX_RETAIN_DAYS}`);
  }
  return { mode: mode as CopyLockMode, retainDays: Number(days) };
}

/** Checks the bucket (and, when connected, the account's retention) and answers the lock to keep in the config; throws CliError saying what is missing. */
export async function chooseCopyLock(entry: CopyEntry, asked: { mode: CopyLockMode; retainDays: number | null }, config: AgentConfig): Promise<CopyLock> {
  let bucket: Awaited<ReturnType<typeof readBucketLock>>;
  try {
    bucket = await readBucketLock(entry);
  } catch (error) {
    throw describeCopyError(
      error,
      `copies add: cannot read the Object Lock settings of ${entry.url}`,
      "check the endpoint and that these credentials may read the bucket's settings (s3:GetBucketVersioning, s3:GetBucketObjectLockConfiguration)",
    );
  }
  const missing = [...(bucket.versioning ? [] : ["versioning"]), ...(bucket.objectLock ? [] : ["Object Lock"])];
  if (missing.length > 0) {
    throw new CliError(
      `copies add: ${entry.url} cannot lock copies: the bucket has no ${missing.join(" and no ")}`,
      EXIT.usage,
      "use a bucket created with Object Lock enabled (that turns versioning on; most services cannot add it later), e.g. aws s3api create-bucket --object-lock-enabled-for-bucket",
    );
  }
  const fromBucket = asked.retainDays === null;
  const retainDays = asked.retainDays ?? bucket.defaultRetention?.days;
  if (retainDays === undefined) {
    throw new CliError(
      `copies add: the bucket of ${entry.url} has no default retention to lock the copies for`,
      EXIT.usage,
      "say how long: --retain-days N (at least as long as DBVault keeps your backups), or give the bucket a default retention",
    );
  }
  const floor = await readLockFloor(config);
  if (floor?.days && retainDays < floor.days) {
    const what = fromBucket ? `the bucket's default retention (${retainDays} days)` : `a lock of ${retainDays} days`;
    throw new CliError(
      `copies add: ${what} is too short: ${floor.rule} (Settings → General), so a copy could be deleted while DBVault still keeps its backup`,
      EXIT.usage,
      `lock the copies at least ${floor.days} days: --retain-days ${floor.days}${fromBucket ? ", or raise the bucket's default retention" : ""}`,
    );
  }
  return { mode: asked.mode, retainDays };
}

/** The account's shortest keep, when this config is connected to a server; null otherwise. */
async function readLockFloor(config: AgentConfig) {
  const server = config.server;
  if (!server?.url || !server.apiKey || !server.agentId || !server.agentToken) return null;
  try {
    return await createServerClient(server).copyLockFloor();
  } catch (error) {
    throw describeServerError(error, "copies add: asking the DBVault server how long it keeps backups");
  }
}
