// The slices a user fetches for an offline restore (issue 47 §5): their list by oplog time, a
// page at a time, and each one's sealed file, as the agent stored it. `dbvault-agent restore
// --oplog DIR` takes a folder of these files as they are; only the key opens them.
import { and, asc, count, eq, gt, lt } from "drizzle-orm";
import { databases, pitrSlices } from "@db/schema";
import { oplogTimeToBigInt, parseOplogTime } from "@protocol/oplog-position";
import type { AppContext } from "../../context";
import { badRequest, notFound } from "../../lib/errors";
import { ZIP_MAX_BYTES, ZIP_MAX_ENTRIES, zipLength, zipStream } from "../../lib/zip-stream";
import { describeOplogPosition } from "./gaps";

/** A bound of the time range: an ISO time (its whole second) or an oplog position "t,i"; undefined when absent. */
function readBound(value: string | undefined, name: string, edge: "start" | "end"): bigint | undefined {
  if (value === undefined || value === "") return undefined;
  const position = parseOplogTime(value);
  if (position) return oplogTimeToBigInt(position);
  const millis = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?(Z|[+-]\d{2}:\d{2})$/.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(millis) || millis < 0 || millis / 1000 >= 2 ** 32) {
    throw badRequest(`${name} must be a time with its zone (e.g. 2026-11-27T14:37:05Z) or an oplog position written seconds,increment.`);
  }
  const second = BigInt(Math.floor(millis / 1000)) << 32n;
  return edge === "start" ? second : second | 0xffffffffn;
}

async function ownDatabase(ctx: AppContext, organizationId: string, databaseId: string) {
  const [database] = await ctx.db
    .select({ id: databases.id, name: databases.name })
    .from(databases)
    .where(and(eq(databases.id, databaseId), eq(databases.organizationId, organizationId)));
  if (!database) throw notFound("Database");
  return database;
}

/** The stored slices holding time in [from, to], oldest first (the filter both the list and the archive use). */
function slicesInRange(databaseId: string, query: { from?: string; to?: string }) {
  const from = readBound(query.from, "from", "start");
  const to = readBound(query.to, "to", "end");
  if (from !== undefined && to !== undefined && from > to) throw badRequest("from must not be after to.");
  // A slice holds (startTs, endTs]: it holds some of [from, to] when it ends after from and starts before to.
  return and(
    eq(pitrSlices.databaseId, databaseId),
    eq(pitrSlices.stored, true),
    ...(from !== undefined ? [gt(pitrSlices.endTs, from)] : []),
    ...(to !== undefined ? [lt(pitrSlices.startTs, to)] : []),
  );
}

const sliceFileName = (slice: { chain: string; sequence: number }) => `slice-${slice.chain}-${String(slice.sequence).padStart(10, "0")}.enc.dbvault`;

/**
 * The database's slices holding time in [from, to] as one zip of their sealed files, as stored:
 * unzipped into a folder, that folder is what `dbvault-agent restore --oplog DIR` takes. 400 when
 * the range holds none, or more than one zip can carry (narrow it).
 */
export async function sliceArchiveResponse(ctx: AppContext, organizationId: string, databaseId: string, query: { from?: string; to?: string }) {
  const database = await ownDatabase(ctx, organizationId, databaseId);
  const rows = await ctx.db.select().from(pitrSlices).where(slicesInRange(database.id, query)).orderBy(asc(pitrSlices.startTs), asc(pitrSlices.sequence));
  if (rows.length === 0) throw badRequest("No shipped oplog slice holds that time range: choose one the timeline shows as covered.");
  const entries = rows.map((row) => ({ name: sliceFileName(row), size: row.size, open: () => ctx.storage.get(row.storageKey) }));
  const length = zipLength(entries);
  if (rows.length > ZIP_MAX_ENTRIES || length > ZIP_MAX_BYTES) {
    throw badRequest(`That range holds ${rows.length} slices (${length} bytes), more than one download carries: narrow it with from and to.`);
  }
  return new Response(zipStream(entries, ctx.now()), {
    headers: {
      // octet-stream, not application/zip: the web client reads only that as bytes (others as text).
      "content-type": "application/octet-stream",
      "content-length": String(length),
      "content-disposition": `attachment; filename="${database.name}-oplog-slices.zip"`,
    },
  });
}

/**
 * The database's stored slices that hold oplog time in [from, to], oldest first, `limit` from
 * `offset`; with the total, and the next page's offset (null on the last page).
 */
export async function listUserSlices(
  ctx: AppContext,
  organizationId: string,
  databaseId: string,
  query: { from?: string; to?: string; offset?: number; limit?: number },
) {
  const database = await ownDatabase(ctx, organizationId, databaseId);
  const where = slicesInRange(database.id, query);
  const limit = query.limit ?? 100;
  const offset = query.offset ?? 0;
  const [{ total } = { total: 0 }] = await ctx.db.select({ total: count() }).from(pitrSlices).where(where);
  const rows = await ctx.db.select().from(pitrSlices).where(where).orderBy(asc(pitrSlices.startTs), asc(pitrSlices.sequence)).limit(limit).offset(offset);
  return {
    databaseId: database.id,
    databaseName: database.name,
    slices: rows.map((row) => ({
      id: row.id,
      chain: row.chain,
      sequence: row.sequence,
      start: describeOplogPosition(row.startTs),
      end: describeOplogPosition(row.endTs),
      entries: row.entryCount,
      bytes: row.size,
      sha256: row.sha256,
      reason: row.reason,
    })),
    total,
    nextOffset: offset + rows.length < total ? offset + rows.length : null,
  };
}

/** One of the user's stored slices; 404 for another account's or an unknown one. */
export async function findUserSlice(ctx: AppContext, organizationId: string, databaseId: string, sliceId: string) {
  const database = await ownDatabase(ctx, organizationId, databaseId);
  const [slice] = await ctx.db
    .select()
    .from(pitrSlices)
    .where(and(eq(pitrSlices.id, sliceId), eq(pitrSlices.databaseId, database.id), eq(pitrSlices.stored, true)));
  if (!slice) throw notFound("Slice");
  return slice;
}
