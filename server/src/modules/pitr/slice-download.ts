// An agent reading a stored slice back for a point-in-time restore. Only an agent with a reason
// to hold the slice reads it: the one that shipped it, the one that runs its database now, or the
// one a point-in-time restore sent it to (a restore into another agent's database).
import { and, eq, sql } from "drizzle-orm";
import { type AgentRow, databases, pitrSlices, restores } from "@db/schema";
import type { AppContext } from "../../context";
import { AppError, notFound } from "../../lib/errors";
import { storedFileResponse } from "../stored-files/download";

type SliceRow = typeof pitrSlices.$inferSelect;

/** The slice, when this agent may read it; 404 for any other (another account's, or not its business). */
export async function findSliceForAgent(ctx: AppContext, agent: AgentRow, sliceId: string): Promise<SliceRow> {
  const [slice] = await ctx.db
    .select()
    .from(pitrSlices)
    .where(and(eq(pitrSlices.id, sliceId), eq(pitrSlices.organizationId, agent.organizationId), eq(pitrSlices.stored, true)));
  if (!slice) throw notFound("Slice");
  if (slice.agentId === agent.id) return slice;
  const [runs] = await ctx.db
    .select({ id: databases.id })
    .from(databases)
    .where(and(eq(databases.id, slice.databaseId), eq(databases.agentId, agent.id)));
  if (runs) return slice;
  const [asked] = await ctx.db
    .select({ id: restores.id })
    .from(restores)
    .where(and(eq(restores.agentId, agent.id), sql`${restores.pointInTime}->'sliceIds' @> ${JSON.stringify([slice.id])}::jsonb`));
  if (asked) return slice;
  throw notFound("Slice");
}

/** The sealed slice as stored, with byte ranges as backup downloads have. */
export function downloadSliceResponse(ctx: AppContext, slice: SliceRow, rangeHeader: string | null): Promise<Response> {
  return storedFileResponse(ctx, {
    key: slice.storageKey,
    size: slice.size,
    fileName: `slice-${slice.chain}-${String(slice.sequence).padStart(10, "0")}.enc.dbvault`,
    sha256: slice.sha256,
    rangeHeader,
    onMissing: () => {
      ctx.log.error("a stored slice's file is missing from storage", { sliceId: slice.id });
      return new AppError(410, "NOT_FOUND", "This slice's file is missing from storage: restore to a moment it does not cover, or take a new backup.");
    },
  });
}
