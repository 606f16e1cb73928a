import { and, eq } from "drizzle-orm";
import { backups } from "@db/schema";
import type { AppContext } from "../../context";
import { type RepairReport, ReplicatedStorage } from "../../storage";
import { lockForNewBackup } from "../retention-rules/lock-until";

/** How often the replica repair pass runs (once across all instances). */
export const REPLICA_REPAIR_EVERY_MS = 60 * 60_000;
const CLAIM_KEY = "storage-replica-repair";

/**
 * STORAGE_REPLICA_URL: copies what one side of the replicated storage lacks from the other, once
 * every REPLICA_REPAIR_EVERY_MS across all instances (the first instance to count a hit in the
 * shared rate-limit table for the period runs it). Null when there is no replica or another
 * instance has this period's pass.
 */
export async function runReplicaRepair(ctx: AppContext, options: { force?: boolean } = {}): Promise<RepairReport | null> {
  const storage = ctx.storage;
  if (!(storage instanceof ReplicatedStorage)) return null;
  if (!options.force && (await ctx.rateLimiter.hit(CLAIM_KEY, REPLICA_REPAIR_EVERY_MS)).count !== 1) return null;
  const report = await storage.repair({ retainUntil: (key) => copyLock(ctx, key) });
  const lacking = report.missingOnPrimary + report.missingOnReplica;
  if (report.copiedToPrimary + report.copiedToReplica + lacking > 0) {
    ctx.log[lacking > 0 ? "warn" : "info"]("storage replica repair pass", { ...report });
  }
  return report;
}

/**
 * The Object Lock a repaired copy of a backup's file or manifest is written with: what its owner's
 * rule keeps a backup for from its creation (the retention pass extends it further for GFS picks).
 */
async function copyLock(ctx: AppContext, key: string): Promise<Date | undefined> {
  if (!ctx.storage.objectLock) return undefined;
  const [, organizationId, backupId] = key.match(/^backups\/([^/]+)\/([^/]+)\//) ?? [];
  if (!organizationId || !backupId) return undefined;
  const [backup] = await ctx.db
    .select({ organizationId: backups.organizationId, createdAt: backups.createdAt })
    .from(backups)
    .where(and(eq(backups.id, backupId), eq(backups.organizationId, organizationId)));
  return backup ? lockForNewBackup(ctx, backup) : undefined;
}

/**
 * What the admin console shows of STORAGE_REPLICA_URL: whether each side answers now, what this
 * instance saw each side miss since it started, and what each side lacks; null without a replica.
 */
export async function replicaStatus(ctx: AppContext) {
  const storage = ctx.storage;
  if (!(storage instanceof ReplicatedStorage)) return { replica: null };
  const problems = await storage.checkSides();
  const missing = storage.missingCounts();
  const failures = storage.failures();
  const side = (name: "primary" | "replica") => ({
    ok: problems[name] === null,
    problem: problems[name],
    missingObjects: missing[name],
    failures: failures.filter((entry) => entry.side === name).reduce((total, entry) => total + entry.count, 0),
  });
  return { replica: { primary: side("primary"), replica: side("replica") } };
}
