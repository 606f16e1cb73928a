// The base backups of point-in-time recovery: a database's completed backups consistent at one
// oplog position, where a restore to a moment starts replaying. A backup whose verification
// failed is no base: it may not restore, and a moment after it is served from an older base
// (restore-plan.ts tries each, newest first) rather than refused or failed at the agent.
import { and, asc, eq, isNotNull } from "drizzle-orm";
import { backups } from "@db/schema";
import { oplogTimeToBigInt } from "@protocol/oplog-position";
import type { AppContext } from "../../context";

/** The user's completed point-in-time consistent backups of `databaseName` not failed at verification, oldest first, with their position. */
export async function findBaseBackups(ctx: AppContext, organizationId: string, databaseName: string) {
  const rows = await ctx.db
    .select()
    .from(backups)
    .where(
      and(
        eq(backups.organizationId, organizationId),
        eq(backups.databaseName, databaseName),
        eq(backups.status, "completed"),
        eq(backups.consistency, "point-in-time"),
        isNotNull(backups.consistentAtT),
        isNotNull(backups.consistentAtI),
      ),
    )
    .orderBy(asc(backups.consistentAtT), asc(backups.consistentAtI));
  return rows
    .filter((backup) => backup.verification?.status !== "failed")
    .map((backup) => ({ backup, id: backup.id, consistentAt: oplogTimeToBigInt({ t: backup.consistentAtT!, i: backup.consistentAtI! }) }));
}
