// A point-in-time restore's plan as its agent fetches it, page by page: the slices chosen when
// the restore was asked for (the restore row's sliceIds), never a new choice, so what the agent
// replays is what the server planned and what slice-download.ts lets it read. The restore
// command carries only the moment and the plan's size (protocol PointInTimeCommand): a plan is
// ~180 bytes a slice, and the command crosses Postgres NOTIFY, which refuses 8,000 bytes.
import { and, asc, eq, gt, inArray, sql } from "drizzle-orm";
import { type AgentRow, pitrSlices, restores } from "@db/schema";
import { POINT_IN_TIME_PLAN_PAGE, type PointInTimePlanPage, type PointInTimePlanQuery } from "@protocol/agent-protocol";
import { parseOplogTime } from "@protocol/oplog-position";
import type { AppContext } from "../../context";
import { AppError, badRequest, notFound } from "../../lib/errors";

/**
 * One page of the plan of a pending or running point-in-time restore sent to this agent: the
 * slices after sequence `after`, in chain order. 404 for a restore of another agent, one that
 * ended, or one that is not to a moment; 410 when a slice of the plan is no longer stored.
 */
export async function pointInTimePlanPage(ctx: AppContext, agent: AgentRow, restoreId: string, query: PointInTimePlanQuery): Promise<PointInTimePlanPage> {
  const limit = query.limit === undefined ? POINT_IN_TIME_PLAN_PAGE : Number(query.limit);
  if (limit > POINT_IN_TIME_PLAN_PAGE) throw badRequest(`limit must be a whole number from 1 to ${POINT_IN_TIME_PLAN_PAGE}`);
  const after = query.after === undefined ? -1 : Number(query.after);
  const [restore] = await ctx.db
    .select()
    .from(restores)
    .where(
      and(
        eq(restores.id, restoreId),
        eq(restores.organizationId, agent.organizationId),
        eq(restores.agentId, agent.id),
        inArray(restores.status, ["pending", "in-progress"]),
      ),
    );
  const pointInTime = restore?.pointInTime;
  const until = pointInTime && parseOplogTime(pointInTime.ts);
  if (!restore?.backupId || !pointInTime || !until) throw notFound("Point-in-time restore");
  const inPlan = sql`${pitrSlices.id} in (select jsonb_array_elements_text(${restores.pointInTime}->'sliceIds') from ${restores} where ${restores.id} = ${restore.id})`;
  const ofPlan = and(eq(pitrSlices.organizationId, agent.organizationId), eq(pitrSlices.stored, true), inPlan);
  const total = pointInTime.sliceIds.length;
  const [stored] = await ctx.db.select({ count: sql<number>`count(*)::int` }).from(pitrSlices).where(ofPlan);
  if ((stored?.count ?? 0) !== total) {
    throw new AppError(
      410,
      "NOT_FOUND",
      "A slice this restore needs is no longer stored, so nothing was changed: ask for the restore again, which plans from what is stored now.",
    );
  }
  // The slices of one chain, whose sequences rise along the plan: a page is a range of them.
  const rows = await ctx.db
    .select({ id: pitrSlices.id, chain: pitrSlices.chain, sequence: pitrSlices.sequence, size: pitrSlices.size, sha256: pitrSlices.sha256 })
    .from(pitrSlices)
    .where(and(ofPlan, gt(pitrSlices.sequence, after)))
    .orderBy(asc(pitrSlices.sequence))
    .limit(limit + 1);
  const slices = rows.slice(0, limit);
  return {
    restoreId: restore.id,
    backupId: restore.backupId,
    until,
    collections: restore.collections ?? null,
    total,
    slices,
    next: rows.length > limit ? slices.at(-1)!.sequence : null,
  };
}
