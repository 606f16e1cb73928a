import { backups } from "@db/schema";
import type { BackupCopyView } from "./copies";

type BackupRow = typeof backups.$inferSelect;

/** The columns toBackupView reads: a list selects only these (not the storage key, agent, times of work). */
export const backupViewColumns = {
  id: backups.id,
  databaseName: backups.databaseName,
  createdAt: backups.createdAt,
  completedAt: backups.completedAt,
  size: backups.size,
  status: backups.status,
  type: backups.type,
  progress: backups.progress,
  error: backups.error,
  sha256: backups.sha256,
  collections: backups.collections,
  verifiedAt: backups.verifiedAt,
  verification: backups.verification,
  anomaly: backups.anomaly,
  anomalyResolvedAt: backups.anomalyResolvedAt,
};

/** A backup as the API shows it (spec section 3). */
export function toBackupView(backup: Pick<BackupRow, keyof typeof backupViewColumns>, copies: BackupCopyView[] = []) {
  return {
    _id: backup.id,
    id: backup.id,
    databaseName: backup.databaseName,
    timestamp: (backup.completedAt ?? backup.createdAt).toISOString(),
    createdAt: backup.createdAt.toISOString(),
    completedAt: backup.completedAt?.toISOString() ?? null,
    size: backup.size,
    status: backup.status,
    type: backup.type,
    progress: backup.progress ?? null,
    error: backup.error,
    sha256: backup.sha256,
    /** Documents per collection as dumped (null for backups made before agents reported them). */
    collections: backup.collections ?? null,
    /** When an agent last read the stored file back (null: not yet, or made before verification existed). */
    verifiedAt: backup.verifiedAt?.toISOString() ?? null,
    verification: backup.verification ?? null,
    anomaly: backup.anomaly ?? null,
    anomalyResolvedAt: backup.anomalyResolvedAt?.toISOString() ?? null,
    /** The copies the agent wrote to the customer's own buckets (none: the file is in one place). */
    copies,
  };
}

/**
 * Storage layout: each backup is a folder with its encrypted file and a manifest beside it (so the
 * catalogue could be rebuilt from storage alone). While uploading, the file is a staged upload
 * named by the backup id, invisible until completed.
 */
export const backupStorage = {
  userPrefix: (userId: string) => `backups/${userId}/`,
  prefix: (userId: string, backupId: string) => `backups/${userId}/${backupId}/`,
  file: (userId: string, backupId: string) => `backups/${userId}/${backupId}/backup.enc.dbvault`,
  manifest: (userId: string, backupId: string) => `backups/${userId}/${backupId}/manifest.json`,
};

/** The download name of a backup file: backup-{databaseName}-{ISO createdAt}.enc.dbvault */
export function backupFileName(backup: Pick<BackupRow, "databaseName" | "createdAt">) {
  return `backup-${backup.databaseName}-${backup.createdAt.toISOString()}.enc.dbvault`;
}
