// What point-in-time recovery keeps: a restore to a moment starts from a completed backup taken
// before it and replays the slices from there, so of a database's slices only those ending after
// the base that the window needs are kept: the newest completed backup taken at or before
// (now - the plan's window), or, with none that old, the oldest one (slices before any base
// restore nothing). With no backup at all, the window itself. The rest are deleted and their
// bytes leave the storage quota.
import { and, asc, desc, eq, lt, lte } from "drizzle-orm";
import { backups, databases, pitrSlices, plans, organizations } from "@db/schema";
import type { AppContext } from "../../context";
import { releaseStorage } from "../organizations/storage-quota";
import { keptPitrWindows } from "../backup-protection/locked-window";

const HOUR_MS = 3_600_000;

/** Where the kept slices begin for one database: slices ending before this time go. */
async function findKeepFrom(ctx: AppContext, database: { organizationId: string; name: string }, windowHours: number): Promise<Date> {
  const cutoff = new Date(ctx.now().getTime() - windowHours * HOUR_MS);
  const ofDatabase = and(eq(backups.organizationId, database.organizationId), eq(backups.databaseName, database.name), eq(backups.status, "completed"));
  const [base] = await ctx.db
    .select({ createdAt: backups.createdAt })
    .from(backups)
    .where(and(ofDatabase, lte(backups.createdAt, cutoff)))
    .orderBy(desc(backups.createdAt))
    .limit(1);
  if (base) return base.createdAt;
  const [oldest] = await ctx.db.select({ createdAt: backups.createdAt }).from(backups).where(ofDatabase).orderBy(asc(backups.createdAt)).limit(1);
  return oldest?.createdAt ?? cutoff;
}

/** Deletes the slices no restore within its database's window can use; answers how many went. Never throws for one database's failure. */
export async function prunePitrSlices(ctx: AppContext, options: { limit?: number } = {}): Promise<number> {
  const shipped = await ctx.db
    .selectDistinct({ id: databases.id, organizationId: databases.organizationId, name: databases.name, windowHours: plans.pitrWindowHours })
    .from(pitrSlices)
    .innerJoin(databases, eq(databases.id, pitrSlices.databaseId))
    .innerJoin(organizations, eq(organizations.id, databases.organizationId))
    .leftJoin(plans, eq(plans.id, organizations.planId))
    .limit(options.limit ?? 1000);
  // Under Protect backups, a plan made shorter since does not shorten what is kept (locked-window.ts).
  const locked = await keptPitrWindows(ctx, [...new Set(shipped.map((database) => database.organizationId))]);
  let pruned = 0;
  for (const database of shipped) {
    try {
      const windowHours = Math.max(database.windowHours ?? 0, locked.get(database.organizationId) ?? 0);
      let keepFrom = await findKeepFrom(ctx, database, windowHours);
      // Under Object Lock a slice is locked for the window past its end (retention-rules/lock-until.ts):
      // one before the oldest base but still locked waits, rather than leaving its bytes behind.
      const lockedFrom = new Date(ctx.now().getTime() - windowHours * HOUR_MS);
      if (ctx.storage.objectLock && lockedFrom < keepFrom) keepFrom = lockedFrom;
      // end_ts holds seconds << 32 | increment: a slice ending before keepFrom ends before (keepFrom's second, 0).
      const before = BigInt(Math.floor(keepFrom.getTime() / 1000)) << 32n;
      const gone = await ctx.db.transaction(async (tx) => {
        const rows = await tx
          .delete(pitrSlices)
          .where(and(eq(pitrSlices.databaseId, database.id), eq(pitrSlices.stored, true), lt(pitrSlices.endTs, before)))
          .returning({ storageKey: pitrSlices.storageKey, size: pitrSlices.size });
        await releaseStorage(
          tx,
          database.organizationId,
          rows.reduce((sum, row) => sum + row.size, 0),
        );
        return rows;
      });
      // Rows first: a file whose delete fails is left over, never counted twice.
      for (const row of gone) await ctx.storage.delete(row.storageKey).catch((error) => ctx.log.warn("could not delete a pruned slice", { error }));
      pruned += gone.length;
    } catch (error) {
      ctx.log.error("could not prune a database's oplog slices", { databaseId: database.id, error });
    }
  }
  return pruned;
}
