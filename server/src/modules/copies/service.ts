import { and, desc, eq, inArray, sql } from "drizzle-orm";
import { type BackupCopyStatus, backupCopies, backups, databases } from "@db/schema";
import type { BackupCopied } from "@protocol/agent-protocol";
import { readS3Location, type S3LocationProblem } from "@protocol/s3-location";
import type { AppContext } from "../../context";
import { badRequest, notFound } from "../../lib/errors";
import { refuseIfProtected } from "../backup-protection/check";
import { shortestKeep } from "../retention-rules/policy";
import { policyOfUser } from "../retention-rules/user-policy";

export type BackupCopyView = {
  destination: string;
  key: string;
  status: BackupCopyStatus;
  size: number | null;
  sha256: string | null;
  error: string | null;
  /** When the agent last looked at the copy (its write, then each daily check); null: never written. */
  checkedAt: string | null;
  /** Until when S3 Object Lock keeps anyone from deleting or overwriting it; null: not locked. */
  lockedUntil: string | null;
};

const COPY_PARAMS = ["endpoint", "region"];

/** The server's wording of each location problem of a copy label (protocol/s3-location.ts, as the agent reads it). */
const LOCATION_PROBLEMS: Record<S3LocationProblem["problem"], string> = {
  bucket: "names no bucket as its host",
  port: "has a port in its host (the address goes in ?endpoint=)",
  unknown: "has parameters other than endpoint and region",
  endpoint: "has an endpoint that is not an http:// or https:// URL",
  prefix: "has a prefix that is not /-separated names",
};

/**
 * Why a destination label is refused, or null: it must be the agent's `s3://bucket/prefix/?endpoint=…&region=…`
 * (read as the agent's `copies add` reads it) with nothing that could be a credential (the server
 * must never hold the copy's keys).
 */
export function copyDestinationProblem(destination: string): string | null {
  let url: URL;
  try {
    url = new URL(destination);
  } catch {
    return "not a URL";
  }
  if (url.protocol !== "s3:") return "not an s3:// URL";
  if (url.username || url.password) return "holds credentials";
  const location = readS3Location(url, COPY_PARAMS);
  return "problem" in location ? LOCATION_PROBLEMS[location.problem] : null;
}

/**
 * Answers whether an agent may stop copying to a destination: 400 for a label that could hold a
 * credential, 409 BACKUPS_PROTECTED (with the date) while its owner's "Protect backups" is on.
 * The agent removes the destination from its config only after this answers.
 */
export async function allowCopyRemoval(ctx: AppContext, organizationId: string, destination: string): Promise<{ allowed: true }> {
  const problem = copyDestinationProblem(destination);
  if (problem) throw badRequest(`The copy destination must be the agent's s3:// label: this one ${problem}.`);
  await refuseIfProtected(ctx, organizationId, { kind: "remove-copy-destination" });
  return { allowed: true };
}

/** Records (or updates) one copy an agent reported for a backup it made; ignores and logs a label that could hold a secret. */
export async function recordBackupCopy(ctx: AppContext, agentId: string, message: BackupCopied) {
  const problem = copyDestinationProblem(message.destination);
  if (problem) {
    ctx.log.warn("ignored a backup copy report whose destination is not a plain s3:// label", { agentId, backupId: message.backupId, problem });
    return;
  }
  const [owned] = await ctx.db
    .select({ id: backups.id })
    .from(backups)
    .where(and(eq(backups.id, message.backupId), eq(backups.agentId, agentId)));
  if (!owned) return;
  const values = {
    key: message.key,
    status: message.status,
    size: message.size ?? null,
    sha256: message.sha256 ?? null,
    etag: message.etag ?? null,
    lockedUntil: message.status === "stored" && message.lockedUntil ? new Date(message.lockedUntil) : null,
    error: message.status === "failed" ? (message.error ?? "the copy could not be written") : null,
    // The writer read the stored size back: a written copy counts as checked.
    checkedAt: message.status === "stored" ? ctx.now() : null,
    updatedAt: ctx.now(),
  };
  await ctx.db
    .insert(backupCopies)
    .values({ backupId: message.backupId, destination: message.destination, ...values })
    .onConflictDoUpdate({ target: [backupCopies.backupId, backupCopies.destination], set: values });
  ctx.log.info("backup copy recorded", { agentId, backupId: message.backupId, status: message.status });
}

/** Each backup's copies by backup id (the customer's buckets, besides DBVault's own storage). */
export async function copiesOfBackups(ctx: AppContext, backupIds: string[]): Promise<Map<string, BackupCopyView[]>> {
  const byBackup = new Map<string, BackupCopyView[]>();
  if (backupIds.length === 0) return byBackup;
  const rows = await ctx.db.select().from(backupCopies).where(inArray(backupCopies.backupId, backupIds)).orderBy(sql`${backupCopies.createdAt}`);
  for (const row of rows) {
    byBackup.set(row.backupId, [...(byBackup.get(row.backupId) ?? []), toCopyView(row)]);
  }
  return byBackup;
}

const toCopyView = (row: typeof backupCopies.$inferSelect): BackupCopyView => ({
  destination: row.destination,
  key: row.key,
  status: row.status,
  size: row.size,
  sha256: row.sha256,
  error: row.error,
  checkedAt: row.checkedAt?.toISOString() ?? null,
  lockedUntil: row.lockedUntil?.toISOString() ?? null,
});

/** Copies a database's listing shows at most: a year of hourly backups to two buckets is more than a page can hold. */
export const DATABASE_COPIES_LIMIT = 500;

/**
 * A database's backup copies in the customer's buckets, newest backup first, each with its
 * backup's id and time. 404 when the organization has no database of that name.
 */
export async function listDatabaseCopies(ctx: AppContext, organizationId: string, databaseName: string) {
  const [database] = await ctx.db
    .select({ id: databases.id })
    .from(databases)
    .where(and(eq(databases.organizationId, organizationId), eq(databases.name, databaseName)));
  if (!database) throw notFound("Database");
  const rows = await ctx.db
    .select({ copy: backupCopies, backupCreatedAt: backups.createdAt })
    .from(backupCopies)
    .innerJoin(backups, eq(backups.id, backupCopies.backupId))
    .where(and(eq(backups.organizationId, organizationId), eq(backups.databaseName, databaseName)))
    .orderBy(desc(backups.createdAt), backupCopies.destination)
    .limit(DATABASE_COPIES_LIMIT);
  return {
    databaseName,
    copies: rows.map(({ copy, backupCreatedAt }) => ({ backupId: copy.backupId, backupCreatedAt: backupCreatedAt.toISOString(), ...toCopyView(copy) })),
  };
}

/** How long the account's retention keeps a backup at least: `copies add --object-lock` refuses to lock copies for less. */
export async function copyLockFloor(ctx: AppContext, userId: string): Promise<{ days: number | null; rule: string }> {
  const policy = await policyOfUser(ctx, userId);
  return policy ? shortestKeep(policy) : { days: null, rule: "no retention rule is saved" };
}
