import type { backups } from "@db/schema";

type BackupRow = typeof backups.$inferSelect;

/**
 * Storage layout: each backup is a folder with its encrypted file and a manifest beside it (so the
 * catalogue could be rebuilt from storage alone). While uploading, the file is a staged upload
 * named by the backup id, invisible until completed.
 */
export const backupStorage = {
  userPrefix: (organizationId: string) => `backups/${organizationId}/`,
  prefix: (organizationId: string, backupId: string) => `backups/${organizationId}/${backupId}/`,
  file: (organizationId: string, backupId: string) => `backups/${organizationId}/${backupId}/backup.enc.dbvault`,
  manifest: (organizationId: string, backupId: string) => `backups/${organizationId}/${backupId}/manifest.json`,
  /** A header a rewrap replaced, named by the SHA-256 of the whole file it headed. */
  replacedHeader: (organizationId: string, backupId: string, fileSha256: string) => `backups/${organizationId}/${backupId}/replaced-headers/${fileSha256}.bin`,
};

/** The download name of a backup file: backup-{databaseName}-{ISO createdAt}.enc.dbvault */
export function backupFileName(backup: Pick<BackupRow, "databaseName" | "createdAt">) {
  return `backup-${backup.databaseName}-${backup.createdAt.toISOString()}.enc.dbvault`;
}

/** Where a slice's file is kept: under the user's prefix, so closing the account deletes it too. */
export const sliceStorageKey = (organizationId: string, databaseId: string, chain: string, sequence: number) =>
  `${backupStorage.userPrefix(organizationId)}pitr/${databaseId}/${chain}/${String(sequence).padStart(10, "0")}.enc.dbvault`;
