import { backups } from "@db/schema";
import type { BackupCopyView } from "../copies/service";

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
  keyId: backups.keyId,
  collections: backups.collections,
  excludedCollections: backups.excludedCollections,
  consistency: backups.consistency,
  consistentAt: backups.consistentAt,
  consistentAtT: backups.consistentAtT,
  consistentAtI: backups.consistentAtI,
  verifiedAt: backups.verifiedAt,
  verification: backups.verification,
  verificationWaitingFor: backups.verificationWaitingFor,
  anomaly: backups.anomaly,
  anomalyResolvedAt: backups.anomalyResolvedAt,
  kept: backups.kept,
  keptAt: backups.keptAt,
  keptBy: backups.keptBy,
  label: backups.label,
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
    /** Key id (public fingerprint) of the master key that opens the file; null for backups made before agents reported it. */
    keyId: backup.keyId ?? null,
    /** Documents per collection as dumped (null for backups made before agents reported them). */
    collections: backup.collections ?? null,
    /** Collections the database's exclusions left out of this backup: a restore of it cannot bring them back. */
    excludedCollections: backup.excludedCollections,
    /** "point-in-time" (see consistentAt), "standalone" (no oplog: no single moment), null (not reported). */
    consistency: backup.consistency ?? null,
    /** T1, the moment the backup holds the database as, as a time and as the oplog timestamp. */
    consistentAt:
      backup.consistentAt && backup.consistentAtT !== null && backup.consistentAtI !== null
        ? { time: backup.consistentAt.toISOString(), ts: { t: backup.consistentAtT, i: backup.consistentAtI } }
        : null,
    /** When an agent last read the stored file back (null: not yet, or made before verification existed). */
    verifiedAt: backup.verifiedAt?.toISOString() ?? null,
    verification: backup.verification ?? null,
    /** Why an asked verification has not started (no restore agent that can read it online); null otherwise. */
    verificationWaitingFor: backup.verificationWaitingFor ?? null,
    anomaly: backup.anomaly ?? null,
    anomalyResolvedAt: backup.anomalyResolvedAt?.toISOString() ?? null,
    kept: backup.kept,
    keptAt: backup.keptAt?.toISOString() ?? null,
    keptBy: backup.keptBy ?? null,
    label: backup.label ?? null,
    /** The copies the agent wrote to the customer's own buckets (none: the file is in one place). */
    copies,
  };
}
