import type { restores } from "@db/schema";

type RestoreRow = typeof restores.$inferSelect;

/** A restore record as the API shows it (spec section 3). */
export function toRestoreView(restore: RestoreRow) {
  return {
    _id: restore.id,
    id: restore.id,
    backupId: restore.backupId,
    databaseName: restore.databaseName,
    targetDatabase: restore.targetDatabase ?? restore.databaseName,
    collections: restore.collections ?? null,
    status: restore.status,
    createdAt: restore.createdAt.toISOString(),
    completedAt: restore.completedAt?.toISOString() ?? null,
    error: restore.error,
    progress: restore.progress ?? null,
    stats: restore.stats ?? null,
    kind: restore.kind,
    drill: restore.drill ?? null,
    /** The moment a point-in-time restore restores to; null when a backup is restored as it is. */
    pointInTime: restore.pointInTime ? { at: restore.pointInTime.at, ts: restore.pointInTime.ts } : null,
    /** Why it has not gone to an agent yet (no restore agent that can read the backup is online); null otherwise. */
    waitingFor: restore.waitingFor ?? null,
  };
}
