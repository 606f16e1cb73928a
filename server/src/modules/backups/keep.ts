// Keep forever and labels: a user's marks on one backup. A kept backup is outside retention (it
// still counts in the storage quota) and is deleted by hand only after it is un-kept; a label is
// a short note ("before migration 42") shown on the backup's row.
import { eq } from "drizzle-orm";
import { BACKUP_LABEL_MAX_LENGTH, backups } from "@db/schema";
import type { AppContext } from "../../context";
import { badRequest, conflict } from "../../lib/errors";
import { type AuditActor, recordAudit } from "../audit/service";
import { refuseIfProtected } from "../backup-protection/check";
import { copiesOfBackups } from "../copies/service";
import { toBackupView } from "./views";

type BackupRow = typeof backups.$inferSelect;

// C0 and C1 controls, and the line and paragraph separators: a label is one line of text.
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/** The label as stored: trimmed, null when blank. 400 when too long or holding control characters. */
export function normalizeLabel(label: string | null): string | null {
  if (label === null) return null;
  const trimmed = label.trim();
  if (trimmed === "") return null;
  if (CONTROL_CHARACTERS.test(trimmed)) throw badRequest("label must be one line of text, without control characters (tabs, line breaks).");
  if ([...trimmed].length > BACKUP_LABEL_MAX_LENGTH) throw badRequest(`label must be at most ${BACKUP_LABEL_MAX_LENGTH} characters.`);
  return trimmed;
}

async function viewOf(ctx: AppContext, backup: BackupRow) {
  return toBackupView(backup, (await copiesOfBackups(ctx, [backup.id])).get(backup.id));
}

/**
 * Keeps a completed backup forever, or lets retention decide about it again. Keeping is always
 * allowed; un-keeping would let retention delete it, so Protect backups refuses it (409).
 */
export async function setBackupKept(ctx: AppContext, backup: BackupRow, kept: boolean, actor?: AuditActor) {
  if (backup.kept === kept) return viewOf(ctx, backup);
  if (kept && backup.status !== "completed") throw conflict("Only a completed backup can be kept forever: this one holds no data.");
  if (!kept) await refuseIfProtected(ctx, backup.organizationId, { kind: "unkeep-backup" });
  const updated = await ctx.db.transaction(async (tx) => {
    const [row] = await tx
      .update(backups)
      .set(kept ? { kept: true, keptAt: ctx.now(), keptBy: actor?.name ?? null } : { kept: false, keptAt: null, keptBy: null })
      .where(eq(backups.id, backup.id))
      .returning();
    if (!row) throw conflict("This backup was deleted meanwhile.");
    await recordAudit(tx, backup.organizationId, kept ? "BACKUP_KEPT" : "BACKUP_UNKEPT", { backupId: backup.id, databaseName: backup.databaseName }, actor);
    return row;
  });
  return viewOf(ctx, updated);
}

/** Sets (or, with null or blank, removes) a backup's label. */
export async function setBackupLabel(ctx: AppContext, backup: BackupRow, label: string | null, actor?: AuditActor) {
  const next = normalizeLabel(label);
  if (next === backup.label) return viewOf(ctx, backup);
  const updated = await ctx.db.transaction(async (tx) => {
    const [row] = await tx.update(backups).set({ label: next }).where(eq(backups.id, backup.id)).returning();
    if (!row) throw conflict("This backup was deleted meanwhile.");
    await recordAudit(tx, backup.organizationId, "BACKUP_LABELED", { backupId: backup.id, databaseName: backup.databaseName, label: next }, actor);
    return row;
  });
  return viewOf(ctx, updated);
}
