// Receiving a slice of a database's shipped oplog over the agents' upload path: the sealed file
// is stored and counted in the storage quota, and only what the agent said of it (bounds, count,
// size) is recorded. A slice sent again (the agent did not hear the answer) is answered as stored.
import { createHash } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { type AgentRow, databases, pitrSlices, plans, organizations } from "@db/schema";
import { oplogTimeToBigInt, parseOplogTime } from "@protocol/oplog-position";
import { SLICE_MAX_FILE_BYTES, type SliceUploadQuery } from "@protocol/pitr";
import type { AppContext } from "../../context";
import { AppError, badRequest, conflict, notFound } from "../../lib/errors";
import { sliceStorageKey } from "../stored-files/keys";
import { findDefaultPlan } from "../plans/service";
import { releaseStorage, reserveStorage } from "../organizations/storage-quota";
import { lockForSlice } from "../retention-rules/lock-until";
import { announceGapBefore } from "./gaps";

const tooLarge = () => new AppError(413, "PAYLOAD_TOO_LARGE", `A slice may hold at most ${SLICE_MAX_FILE_BYTES} bytes.`);

/** The query's numbers, checked against each other; throws 400 naming what is wrong. */
function readSliceQuery(query: SliceUploadQuery) {
  const time = (name: string, text: string | undefined) => {
    if (text === undefined) return undefined;
    const parsed = parseOplogTime(text);
    if (!parsed) throw badRequest(`${name} must be an oplog position written seconds,increment.`);
    return oplogTimeToBigInt(parsed);
  };
  const start = time("start", query.start)!;
  const end = time("end", query.end)!;
  const first = time("first", query.first);
  const last = time("last", query.last);
  const entries = Number(query.entries);
  if (end <= start) throw badRequest("A slice must end after it starts (end > start).");
  if ((entries === 0) !== (first === undefined) || (first === undefined) !== (last === undefined)) {
    throw badRequest("first and last are given exactly when the slice holds entries.");
  }
  if (first !== undefined && last !== undefined && !(start < first && first <= last && last <= end)) {
    throw badRequest("The entries' positions must lie within the slice: start < first ≤ last ≤ end.");
  }
  const rolloverFrom = time("rolloverFrom", query.rolloverFrom);
  if ((query.reason === "rollover") !== (rolloverFrom !== undefined)) throw badRequest("rolloverFrom is given exactly with reason rollover.");
  const sequence = Number(query.sequence);
  if ((sequence === 0) === (query.reason === "continues")) throw badRequest("A chain's first slice (sequence 0) starts it; every later one continues it.");
  return { start, end, first, last, entries, sequence, rolloverFrom };
}

/** Reads the whole body (at most SLICE_MAX_FILE_BYTES) through the server's body gate. */
async function readSliceBody(ctx: AppContext, body: ReadableStream<Uint8Array>): Promise<Buffer> {
  const leave = await ctx.bodyGate.enter();
  const parts: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      size += chunk.byteLength;
      if (size > SLICE_MAX_FILE_BYTES) throw tooLarge();
      parts.push(chunk);
    }
  } finally {
    leave(size);
  }
  return Buffer.concat(parts);
}

/**
 * Stores a slice the agent sealed for one of the databases it runs. Refuses (4xx) a database it
 * does not run, numbers that contradict each other, a body whose SHA-256 is not the one announced,
 * a slice past the plan's storage (STORAGE_LIMIT_EXCEEDED), and a different slice in a place
 * already taken.
 */
export async function receiveSlice(
  ctx: AppContext,
  agent: AgentRow,
  query: SliceUploadQuery,
  body: ReadableStream<Uint8Array> | null,
  declaredLength: number | null,
) {
  const bounds = readSliceQuery(query);
  if (!body) throw badRequest("The slice is empty.");
  if (declaredLength !== null && declaredLength > SLICE_MAX_FILE_BYTES) throw tooLarge();
  const [found] = await ctx.db
    .select({ database: databases, plan: plans })
    .from(databases)
    .innerJoin(organizations, eq(organizations.id, databases.organizationId))
    .leftJoin(plans, eq(plans.id, organizations.planId))
    .where(and(eq(databases.organizationId, agent.organizationId), eq(databases.name, query.database), eq(databases.agentId, agent.id)));
  if (!found) throw notFound("Database");
  const { database } = found;
  const plan = found.plan ?? (await findDefaultPlan(ctx.db));
  if (!database.pitrEnabled || !database.isActive || plan.pitrWindowHours <= 0) {
    throw conflict(`Point-in-time recovery is off for "${database.name}": turn it on in Settings → Databases (plans that include it) to ship its oplog.`);
  }
  const place = and(eq(pitrSlices.databaseId, database.id), eq(pitrSlices.chain, query.chain), eq(pitrSlices.sequence, bounds.sequence));
  const [existing] = await ctx.db.select().from(pitrSlices).where(place);
  if (existing && existing.sha256 !== query.sha256) throw conflict(`Slice ${bounds.sequence} of this chain is already stored with other contents.`);
  if (existing?.stored) return { status: "stored" as const, size: existing.size };

  const bytes = await readSliceBody(ctx, body);
  if (createHash("sha256").update(bytes).digest("hex") !== query.sha256) {
    throw new AppError(422, "BAD_REQUEST", "Checksum mismatch: the slice was damaged in transit. The agent sends it again.");
  }
  const storageKey = sliceStorageKey(database.organizationId, database.id, query.chain, bounds.sequence);
  if (!existing) {
    // Reserved with its row before any byte is written, so a user at the limit cannot fill the disk first.
    const reserved = await ctx.db.transaction(async (tx) => {
      if (!(await reserveStorage(tx, database.organizationId, bytes.byteLength, plan.storageLimit))) return "limit";
      const inserted = await tx
        .insert(pitrSlices)
        .values({
          organizationId: database.organizationId,
          databaseId: database.id,
          agentId: agent.id,
          chain: query.chain,
          sequence: bounds.sequence,
          startTs: bounds.start,
          endTs: bounds.end,
          firstTs: bounds.first ?? null,
          lastTs: bounds.last ?? null,
          entryCount: bounds.entries,
          size: bytes.byteLength,
          sha256: query.sha256,
          reason: query.reason,
          rolloverFromTs: bounds.rolloverFrom ?? null,
          storageKey,
        })
        .onConflictDoNothing()
        .returning({ id: pitrSlices.id });
      // The same slice sent twice at once: the other request counts it.
      if (inserted.length === 0) throw new AppError(409, "CONFLICT", "This slice is being received already; send it again shortly.");
      return "reserved";
    });
    if (reserved === "limit") {
      throw new AppError(
        413,
        "STORAGE_LIMIT_EXCEEDED",
        `Storage limit exceeded: point-in-time recovery cannot store more of this database's oplog on your ${plan.name} plan. Delete old backups, shorten retention or upgrade your plan.`,
      );
    }
  }
  try {
    await ctx.storage.put(storageKey, bytes, { retainUntil: lockForSlice(ctx, bounds.end, plan.pitrWindowHours) });
  } catch (error) {
    // Nothing kept: the row and its reservation go, and the agent sends the slice again.
    await ctx.db.transaction(async (tx) => {
      const removed = await tx
        .delete(pitrSlices)
        .where(and(place, eq(pitrSlices.stored, false)))
        .returning({ size: pitrSlices.size });
      if (removed[0]) await releaseStorage(tx, database.organizationId, removed[0].size);
    });
    throw error;
  }
  const [stored] = await ctx.db
    .update(pitrSlices)
    .set({ stored: true })
    .where(and(place, eq(pitrSlices.stored, false)))
    .returning();
  ctx.metrics.countUploadedBytes(bytes.byteLength);
  // Once, by the request that stored it.
  if (stored) await announceGapBefore(ctx, stored, database.name);
  return { status: "stored" as const, size: bytes.byteLength };
}
