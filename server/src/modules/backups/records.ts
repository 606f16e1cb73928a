// The writes of a backup row that other modules ask the catalogue for: the upload's progress and
// completion, the agent's queue, verification, the anomaly found, a rewrapped header. The
// catalogue is the only writer of `backups` (scripts/table-ownership.test.ts): each status change
// and each field has one statement here or in service.ts, whoever decides it.
import { and, eq, gt, inArray, isNotNull, sql } from "drizzle-orm";
import type { DbOrTx } from "@db/client";
import { type BackupAnomaly, backups } from "@db/schema";
import type { Verification } from "@protocol/agent-protocol";
import type { AppContext } from "../../context";
import { conflict } from "../../lib/errors";
import { lockForNewBackup } from "../retention-rules/lock-until";
import { recordManifestChecksum, writeReplacementHeader } from "../stored-files/header-swap";
import { backupStorage } from "../stored-files/keys";

type BackupRow = typeof backups.$inferSelect;

/**
 * The update that marks a running backup in progress (a part of it stored), as a common table
 * expression: the upload settles its part in the same statement, so the backup row is locked
 * before the part's, in the order countPart takes them (uploads/service.ts).
 */
export function markBackupUploading(ctx: AppContext, backupId: string) {
  return ctx.db.$with("running").as(
    ctx.db
      .update(backups)
      .set({ status: "in-progress", lastActivityAt: ctx.now(), startedAt: sql`coalesce(${backups.startedAt}, now())` })
      .where(and(eq(backups.id, backupId), inArray(backups.status, ["pending", "in-progress"])))
      .returning({ id: backups.id }),
  );
}

/** The columns a completed upload records, besides its status and times. */
export type CompletedUpload = Pick<
  typeof backups.$inferInsert,
  "size" | "sha256" | "collections" | "keyId" | "consistency" | "consistentAt" | "consistentAtT" | "consistentAtI" | "progress"
>;

/** Marks a running backup completed with what its upload proved; undefined when it no longer runs (failed, deleted, or completed by another try). */
export async function markBackupCompleted(ctx: AppContext, backup: Pick<BackupRow, "id" | "organizationId">, upload: CompletedUpload, completedAt: Date) {
  const [completed] = await ctx.db
    .update(backups)
    .set({ ...upload, status: "completed", storageKey: backupStorage.prefix(backup.organizationId, backup.id), completedAt, lastActivityAt: completedAt })
    .where(and(eq(backups.id, backup.id), inArray(backups.status, ["pending", "in-progress"])))
    .returning();
  return completed;
}

/** Keeps the pending backups of this agent that its queue holds, and that were asked for since `since`, from looking stalled. */
export async function keepQueuedBackupsPending(ctx: AppContext, agentId: string, backupIds: string[], since: Date) {
  if (backupIds.length === 0) return;
  await ctx.db
    .update(backups)
    .set({ lastActivityAt: ctx.now() })
    .where(and(eq(backups.agentId, agentId), eq(backups.status, "pending"), gt(backups.createdAt, since), inArray(backups.id, backupIds)));
}

/** Records the anomaly found on a completed backup (verification/anomaly.ts). */
export async function recordAnomaly(ctx: AppContext, backupId: string, anomaly: BackupAnomaly) {
  await ctx.db.update(backups).set({ anomaly }).where(eq(backups.id, backupId));
}

/** Records the outcome of reading a backup back; run in the transaction of its audit entry. */
export async function recordVerified(db: DbOrTx, backupId: string, verification: Verification, at: Date) {
  await db.update(backups).set({ verifiedAt: at, verification, verificationWaitingFor: null }).where(eq(backups.id, backupId));
}

/** Why an asked verification waits (no agent that can read the backup is online), or null once it went to one. */
export async function recordVerificationWaiting(ctx: AppContext, backupId: string, waitingFor: string | null, db: DbOrTx = ctx.db) {
  await db.update(backups).set({ verificationWaitingFor: waitingFor }).where(eq(backups.id, backupId));
}

/**
 * Takes a waiting verification for an agent that can now read the backup, clearing the wait in
 * one update: of two instances or two hellos, one gets the row and sends the command.
 */
export async function claimWaitingVerification(ctx: AppContext, backupId: string, db: DbOrTx = ctx.db): Promise<BackupRow | undefined> {
  const [claimed] = await db
    .update(backups)
    .set({ verificationWaitingFor: null })
    .where(and(eq(backups.id, backupId), isNotNull(backups.verificationWaitingFor)))
    .returning();
  return claimed;
}

/**
 * Replaces a completed backup's stored header with an agent's rewrapped one
 * (stored-files/header-swap.ts) and records the key id it names and the file's new checksum.
 * Sending the header already stored only records them (an agent finishing a rewrap that stopped
 * in between).
 */
export async function replaceBackupHeader(ctx: AppContext, backup: BackupRow, replacement: Uint8Array) {
  const retainUntil = () => lockForNewBackup(ctx, backup);
  const { keyId, sha256 } = await writeReplacementHeader(ctx, backup, replacement, retainUntil);
  const [updated] = await ctx.db
    .update(backups)
    .set({ keyId, sha256 })
    .where(and(eq(backups.id, backup.id), eq(backups.status, "completed")))
    .returning({ id: backups.id });
  // Deleted while its header was being replaced: the put just wrote the file back, so remove it again.
  if (!updated) {
    await ctx.storage.deletePrefix(backupStorage.prefix(backup.organizationId, backup.id)).catch(() => {});
    throw conflict("This backup was deleted while its header was being replaced.");
  }
  await recordManifestChecksum(ctx, backup, sha256, retainUntil);
  ctx.log.info("backup header rewrapped", { backupId: backup.id, keyId });
  return { keyId, size: backup.size, sha256 };
}
