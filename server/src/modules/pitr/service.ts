// What the owner of a database sees of its point-in-time recovery: the covered timeline built
// from the slices recorded (receive-slice.ts), with its gaps.
import { and, eq } from "drizzle-orm";
import { databases, pitrSlices } from "@db/schema";
import type { AppContext } from "../../context";
import { notFound } from "../../lib/errors";
import { findBaseBackups } from "./bases";
import { describeOplogPosition } from "./gaps";
import { freshPitrLag, freshPitrUnreachableSince } from "../databases/lag-figure";
import { restorableWindows } from "./restore-plan";
import { buildTimeline } from "./timeline";

export { receiveSlice } from "./receive-slice";

/** The covered ranges and gaps of one of the user's databases; 404 for a database of another account. */
export async function getTimeline(ctx: AppContext, organizationId: string, databaseId: string) {
  const [database] = await ctx.db
    .select({
      id: databases.id,
      name: databases.name,
      pitrLagSeconds: databases.pitrLagSeconds,
      pitrLagReportedAt: databases.pitrLagReportedAt,
      pitrUnreachableSince: databases.pitrUnreachableSince,
    })
    .from(databases)
    .where(and(eq(databases.id, databaseId), eq(databases.organizationId, organizationId)));
  if (!database) throw notFound("Database");
  const slices = await ctx.db
    .select()
    .from(pitrSlices)
    .where(and(eq(pitrSlices.databaseId, database.id), eq(pitrSlices.stored, true)));
  const { ranges, gaps } = buildTimeline(slices);
  const bases = await findBaseBackups(ctx, organizationId, database.name);
  return {
    databaseId: database.id,
    databaseName: database.name,
    ranges: ranges.map((range) => ({
      from: describeOplogPosition(range.from),
      to: describeOplogPosition(range.to),
      slices: range.slices,
      entries: range.entries,
      bytes: range.bytes,
    })),
    gaps: gaps.map((gap) => ({ from: describeOplogPosition(gap.from), to: describeOplogPosition(gap.to), reason: gap.reason })),
    bases: bases.map((base) => ({ id: base.id, consistentAt: describeOplogPosition(base.consistentAt) })),
    restorable: restorableWindows(bases, slices).map((window) => ({ from: describeOplogPosition(window.from), to: describeOplogPosition(window.to) })),
    slices: slices.length,
    lagSeconds: freshPitrLag(database, ctx.now()) ?? null,
    unreachableSince: freshPitrUnreachableSince(database, ctx.now())?.toISOString() ?? null,
    bytes: slices.reduce((sum, slice) => sum + slice.size, 0),
  };
}
