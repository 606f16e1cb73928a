// Telling the owner the moment a slice opens a hole in a database's coverage: a chain that starts
// after the one before ended (a rollover, a restart without state), or a slice of a chain that
// does not start where the one before it ended.
import { and, eq, max, ne } from "drizzle-orm";
import { databases, pitrSlices } from "@db/schema";
import { formatOplogTime, oplogTimeFromBigInt } from "@protocol/oplog-position";
import type { AppContext } from "../../context";
import { AppError } from "../../lib/errors";
import { refuseIfBackupRunning, startBackup } from "../backups/service";
import { notifyPitrGap } from "../notifications/service";
import type { TimelineGap } from "./timeline";

type StoredSlice = typeof pitrSlices.$inferSelect;

/** The gap a just-stored slice opens before it, or undefined when it continues the coverage. */
export async function findGapBefore(ctx: AppContext, slice: StoredSlice): Promise<TimelineGap | undefined> {
  if (slice.sequence > 0) {
    const [previous] = await ctx.db
      .select({ endTs: pitrSlices.endTs })
      .from(pitrSlices)
      .where(
        and(
          eq(pitrSlices.databaseId, slice.databaseId),
          eq(pitrSlices.chain, slice.chain),
          eq(pitrSlices.sequence, slice.sequence - 1),
          eq(pitrSlices.stored, true),
        ),
      );
    return previous && previous.endTs < slice.startTs ? { from: previous.endTs, to: slice.startTs, reason: "missing" } : undefined;
  }
  const [before] = await ctx.db
    .select({ endTs: max(pitrSlices.endTs) })
    .from(pitrSlices)
    .where(and(eq(pitrSlices.databaseId, slice.databaseId), ne(pitrSlices.chain, slice.chain), eq(pitrSlices.stored, true)));
  const coveredUntil = before?.endTs === null || before?.endTs === undefined ? undefined : BigInt(before.endTs);
  if (coveredUntil === undefined || coveredUntil >= slice.startTs) return undefined;
  const from = slice.rolloverFromTs !== null && slice.rolloverFromTs < coveredUntil ? slice.rolloverFromTs : coveredUntil;
  return { from, to: slice.startTs, reason: slice.reason === "rollover" ? "rollover" : "restarted" };
}

/** An oplog position as answers show it: "seconds,increment" and its seconds as a time. */
export const describeOplogPosition = (value: bigint) => {
  const time = oplogTimeFromBigInt(value);
  return { ts: formatOplogTime(time), at: new Date(time.t * 1000).toISOString() };
};

/** Mails and raises pitr.gap when the slice opened a gap; never throws (the slice is stored either way). */
export async function announceGapBefore(ctx: AppContext, slice: StoredSlice, databaseName: string): Promise<void> {
  try {
    const gap = await findGapBefore(ctx, slice);
    if (!gap) return;
    ctx.log.warn("a gap in point-in-time recovery", { databaseId: slice.databaseId, reason: gap.reason });
    await notifyPitrGap(ctx, slice.organizationId, {
      databaseId: slice.databaseId,
      databaseName,
      from: describeOplogPosition(gap.from),
      to: describeOplogPosition(gap.to),
      reason: gap.reason,
    });
    if (gap.reason !== "missing") await startChainBackup(ctx, slice.databaseId);
  } catch (error) {
    ctx.log.error("could not check a slice for a gap", { databaseId: slice.databaseId, error });
  }
}

/**
 * A new chain (after a rollover or a restart) has no base backup to replay it from: one is started
 * at once, through the same path as every backup, unless one is already running.
 */
async function startChainBackup(ctx: AppContext, databaseId: string): Promise<void> {
  const [database] = await ctx.db.select().from(databases).where(eq(databases.id, databaseId));
  if (!database?.isActive) return;
  try {
    await startBackup(ctx, database, "auto", { guard: (tx) => refuseIfBackupRunning(tx, database) });
    ctx.log.info("started a full backup to base the new point-in-time chain on", { databaseId });
  } catch (error) {
    if (error instanceof AppError && error.status === 409) return;
    ctx.log.error("could not start a backup after a point-in-time gap", { databaseId, error });
  }
}
