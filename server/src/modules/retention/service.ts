// Retention: deletes what each user's policy (age or GFS, within the plan's limit) does not keep,
// and previews a policy on the existing backups. Both decide with policy.ts.
import { and, eq, inArray, isNull, lt, or, sql } from "drizzle-orm";
import { backups, settings } from "@db/schema";
import type { AppContext } from "../../context";
import { BackupInUseError, BackupKeptError, BackupLockedError, deleteBackup } from "../backups/deletion";
import { extendLocks } from "./lock";
import { policyOfUser, type SettingsRow } from "../retention-rules/user-policy";
import { decideRetention, type RetentionCandidate, type RetentionDecision } from "../retention-rules/policy";

/** A user's backups are looked at again this long after the last pass (or at once after a settings change). */
export const RETENTION_PASS_MS = 10 * 60_000;
/** Rows the preview lists besides the kept ones: the newest backups it would delete. */
export const PREVIEW_DELETED_ROWS = 100;

/** A user's finished backups as retention sees them, with their sizes for the preview. */
async function loadCandidates(ctx: AppContext, organizationId: string) {
  const rows = await ctx.db
    .select({
      id: backups.id,
      databaseName: backups.databaseName,
      status: backups.status,
      createdAt: backups.createdAt,
      size: backups.size,
      verification: backups.verification,
      anomaly: backups.anomaly,
      anomalyResolvedAt: backups.anomalyResolvedAt,
      kept: backups.kept,
    })
    .from(backups)
    .where(and(eq(backups.organizationId, organizationId), inArray(backups.status, ["completed", "failed"])));
  return rows.map((row) => ({
    id: row.id,
    databaseName: row.databaseName,
    status: row.status as RetentionCandidate["status"],
    createdAt: row.createdAt,
    size: row.size,
    verification: row.verification?.status ?? null,
    anomaly: !row.anomaly ? "none" : row.anomalyResolvedAt ? "resolved" : "unresolved",
    kept: row.kept,
  })) satisfies (RetentionCandidate & { size: number })[];
}

/** Settings rows of users due for a retention pass, claimed (SKIP LOCKED) and stamped so no other instance takes them now. */
async function claimDueUsers(ctx: AppContext, limit: number): Promise<string[]> {
  const now = ctx.now();
  return ctx.db.transaction(async (tx) => {
    const due = await tx
      .select({ organizationId: settings.organizationId })
      .from(settings)
      .where(or(isNull(settings.retentionCheckedAt), lt(settings.retentionCheckedAt, new Date(now.getTime() - RETENTION_PASS_MS))))
      .orderBy(sql`${settings.retentionCheckedAt} asc nulls first`)
      .limit(limit)
      .for("update", { skipLocked: true });
    const ids = due.map((row) => row.organizationId);
    if (ids.length > 0) await tx.update(settings).set({ retentionCheckedAt: now }).where(inArray(settings.organizationId, ids));
    return ids;
  });
}

/** The user's policy and every decision on their finished backups. */
async function decideForUser(ctx: AppContext, organizationId: string, override?: (saved: SettingsRow) => SettingsRow) {
  const policy = await policyOfUser(ctx, organizationId, { override });
  if (!policy) return null;
  const candidates = await loadCandidates(ctx, organizationId);
  return { policy, candidates, decisions: decideRetention(candidates, policy, ctx.now()) };
}

/**
 * Deletes the backups retention does not keep (BACKUP_DELETED_AUTO), at most `limit` a user per
 * pass. Without `organizationId` it takes the users due for a pass (each every RETENTION_PASS_MS, claimed
 * so several instances share the work); with it, that user now. Returns how many were deleted.
 */
export async function applyRetention(ctx: AppContext, options: { organizationId?: string; limit?: number; users?: number } = {}) {
  const userIds = options.organizationId ? [options.organizationId] : await claimDueUsers(ctx, options.users ?? 50);
  let deleted = 0;
  for (const organizationId of userIds) {
    const decided = await decideForUser(ctx, organizationId);
    if (!decided) continue;
    if (ctx.storage.objectLock) {
      const kept = decided.candidates.flatMap((backup) => {
        const decision = decided.decisions.get(backup.id)!;
        return backup.status === "completed" && decision.keep ? [{ ...backup, organizationId, reasons: decision.reasons }] : [];
      });
      await extendLocks(ctx, kept, decided.policy);
    }
    const doomed = decided.candidates.filter((backup) => !decided.decisions.get(backup.id)!.keep).slice(0, options.limit ?? 200);
    if (doomed.length === 0) continue;
    const rows = await ctx.db
      .select()
      .from(backups)
      .where(
        inArray(
          backups.id,
          doomed.map((backup) => backup.id),
        ),
      );
    for (const backup of rows) {
      try {
        await deleteBackup(ctx, backup, "auto");
        deleted++;
      } catch (error) {
        // A backup a restore or drill still reads is kept until it finished: the next pass takes it.
        if (error instanceof BackupInUseError) {
          ctx.log.info("retention kept a backup a restore is reading", { backupId: backup.id });
          continue;
        }
        // Kept forever after this pass chose it: it stays.
        if (error instanceof BackupKeptError) continue;
        // Not yet: its Object Lock outlasts the rule (the rule was shortened after it was written,
        // or storage's clock runs behind). The row and its bytes stay counted; a later pass takes it.
        if (error instanceof BackupLockedError) {
          ctx.log.info("retention kept a backup its Object Lock still protects", { backupId: backup.id });
          continue;
        }
        ctx.log.error("retention could not delete a backup", { backupId: backup.id, error });
      }
    }
  }
  return deleted;
}

/** Makes retention look at a user's backups at the next pass (after a change of their policy). */
export async function requestRetentionPass(ctx: AppContext, organizationId: string) {
  await ctx.db.update(settings).set({ retentionCheckedAt: null }).where(eq(settings.organizationId, organizationId));
}

export type PolicyChoice = { mode?: "age" | "gfs"; retention?: number; daily?: number; weekly?: number; monthly?: number };

/**
 * What retention would do to the user's completed backups under a policy (the saved one, changed
 * by `choice`): every backup it keeps and why, the newest ones it would delete, and the totals.
 */
export async function previewRetention(ctx: AppContext, organizationId: string, choice: PolicyChoice) {
  const decided = await decideForUser(ctx, organizationId, (saved) => ({
    ...saved,
    retentionMode: choice.mode ?? saved.retentionMode,
    retention: choice.retention ?? saved.retention,
    gfsDaily: choice.daily ?? saved.gfsDaily,
    gfsWeekly: choice.weekly ?? saved.gfsWeekly,
    gfsMonthly: choice.monthly ?? saved.gfsMonthly,
  }));
  if (!decided) return { policy: null, kept: 0, deleted: 0, backups: [] };
  const completed = decided.candidates
    .filter((backup) => backup.status === "completed")
    .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || b.id.localeCompare(a.id));
  const rows = completed.map((backup) => ({ backup, decision: decided.decisions.get(backup.id)! }));
  const kept = rows.filter((row) => row.decision.keep);
  const deleted = rows.filter((row) => !row.decision.keep);
  return {
    policy: decided.policy,
    kept: kept.length,
    deleted: deleted.length,
    backups: [...kept, ...deleted.slice(0, PREVIEW_DELETED_ROWS)]
      .sort((a, b) => b.backup.createdAt.getTime() - a.backup.createdAt.getTime())
      .map(({ backup, decision }) => toPreviewRow(backup, decision)),
  };
}

function toPreviewRow(backup: { id: string; databaseName: string; createdAt: Date; size: number }, decision: RetentionDecision) {
  return {
    id: backup.id,
    databaseName: backup.databaseName,
    createdAt: backup.createdAt.toISOString(),
    size: backup.size,
    keep: decision.keep,
    reasons: decision.keep ? decision.reasons : [decision.reason],
  };
}
