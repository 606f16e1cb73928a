// Deleting a backup: its file, its row and its bytes, never while a restore or drill reads it;
// and what a closed account leaves in storage.
import { and, eq, inArray } from "drizzle-orm";
import type { Tx } from "@db/client";
import { backups, type RestoreKind, restores } from "@db/schema";
import type { AppContext } from "../../context";
import { AppError, conflict, notFound } from "../../lib/errors";
import { ObjectLockedError } from "../../storage";
import { type AuditActor, recordAudit } from "../audit/service";
import { refuseIfProtected } from "../backup-protection/check";
import { releaseStorage } from "../organizations/storage-quota";
import { backupStorage } from "../stored-files/keys";

type BackupRow = typeof backups.$inferSelect;

/** Deletes a finished backup: its file, its row and its bytes from the user's storage used. 409 while a restore or drill reads it. */
export async function deleteBackup(ctx: AppContext, backup: BackupRow, by: "manual" | "auto", actor?: AuditActor) {
  if (backup.status === "pending" || backup.status === "in-progress") {
    throw conflict("This backup is still running. Wait until it completes or fails, then delete it.");
  }
  if (backup.kept) throw new BackupKeptError();
  // Retention's own passes delete what has expired; everyone else asks the account's policy.
  if (by === "manual") await refuseIfProtected(ctx, backup.organizationId, { kind: "delete-backup", backup });
  await ctx.db.transaction(async (tx) => {
    // The row lock orders this against a restore or drill being requested of the backup (which
    // locks it too, see lockBackupForReading): either that request sees the backup gone, or this
    // sees its restore row and refuses. Deleting the file under an agent that is still reading it
    // would fail the restore half-way, or retention would take the backup a user is restoring.
    const [locked] = await tx.select({ id: backups.id, kept: backups.kept }).from(backups).where(eq(backups.id, backup.id)).for("update");
    if (!locked) return;
    // Read under the lock: a backup kept after retention chose it stays.
    if (locked.kept) throw new BackupKeptError();
    await refuseWhileRead(tx, backup.id);
    // The file goes first: a crash in between leaves a row pointing at nothing, never an orphan file.
    await ctx.storage.deletePrefix(backupStorage.prefix(backup.organizationId, backup.id)).catch((error) => {
      throw error instanceof ObjectLockedError ? new BackupLockedError() : error;
    });
    const [deleted] = await tx.delete(backups).where(eq(backups.id, backup.id)).returning();
    if (!deleted) return;
    if (deleted.status === "completed") await releaseStorage(tx, deleted.organizationId, deleted.size);
    await recordAudit(
      tx,
      deleted.organizationId,
      by === "manual" ? "BACKUP_DELETED_MANUAL" : "BACKUP_DELETED_AUTO",
      {
        backupId: deleted.id,
        databaseName: deleted.databaseName,
        type: by,
      },
      actor,
    );
  });
  return { message: "Backup deleted successfully" };
}

/** Thrown by deleteBackup for a backup whose files S3 Object Lock (STORAGE_OBJECT_LOCK) still keeps; the backup stays whole. */
export class BackupLockedError extends AppError {
  constructor() {
    super(409, "CONFLICT", "This backup is locked in storage (Object Lock) until its retention ends. It can be deleted then.");
  }
}

/** Thrown by deleteBackup for a backup kept forever: it goes only once un-kept. */
export class BackupKeptError extends AppError {
  constructor() {
    super(409, "CONFLICT", "This backup is kept forever. Turn Keep forever off first, then delete it.");
  }
}

/** Thrown by deleteBackup for a backup that a restore or drill still reads. */
export class BackupInUseError extends AppError {
  constructor(kind: RestoreKind) {
    super(
      409,
      "CONFLICT",
      kind === "drill"
        ? "A restore drill is reading this backup. Wait until the drill finishes, then delete it."
        : "This backup is being restored. Wait until the restore finishes, then delete it.",
    );
  }
}

async function refuseWhileRead(tx: Tx, backupId: string) {
  const [reader] = await tx
    .select({ kind: restores.kind })
    .from(restores)
    .where(and(eq(restores.backupId, backupId), inArray(restores.status, ["pending", "in-progress"])))
    .limit(1);
  if (reader) throw new BackupInUseError(reader.kind);
}

/**
 * Locks a completed backup for a restore or drill about to be recorded in `tx` (against
 * deleteBackup); 404 when it was deleted meanwhile.
 */
export async function lockBackupForReading(tx: Tx, backupId: string) {
  const [row] = await tx
    .select({ id: backups.id })
    .from(backups)
    .where(and(eq(backups.id, backupId), eq(backups.status, "completed")))
    .for("share");
  if (!row) throw notFound("Backup");
}

/**
 * A deleted account's files go with it (its rows go by foreign-key cascade), and so do the
 * staged parts of backups it was uploading, which storage keeps by backup id outside the
 * account's prefix: nothing would ever complete or abort them once the rows are gone.
 */
export async function discardAccountBackupData(ctx: AppContext, organizationId: string) {
  const running = await ctx.db
    .select({ id: backups.id })
    .from(backups)
    .where(and(eq(backups.organizationId, organizationId), inArray(backups.status, ["pending", "in-progress"])));
  for (const { id } of running) {
    await ctx.storage.abortUpload(id);
    ctx.runningHashes.drop(id);
  }
  await ctx.storage.deletePrefix(backupStorage.userPrefix(organizationId));
}
