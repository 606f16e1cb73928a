// Server-side cursors. A query's result is fixed when it runs (the stored byte buffers are never
// mutated, so holding references is a snapshot), then handed out in batches bounded both by
// count and by MongoDB's 16 MiB batch budget so no reply can outgrow the message size limit.
import { randomBytes } from "node:crypto";
import { Long } from "bson";
import { CommandError } from "./errors";
import { CURSOR_IDLE_TIMEOUT_MS, MAX_BATCH_BYTES } from "./limits";
import { RawDocuments } from "./raw-bson";

type OpenCursor = { ns: string; results: Uint8Array[]; position: number; lastUsed: number };

/** A cursor reply's `cursor` field: first or next batch (raw), id (0 when exhausted) and namespace. */
export type CursorReply = { cursor: Record<string, unknown> };

/** How far from `start` the next batch reaches: at most `limit` documents and MAX_BATCH_BYTES. */
export function measureBatch(results: readonly Uint8Array[], start: number, limit: number | undefined): number {
  let end = start;
  let bytes = 0;
  while (end < results.length && (limit === undefined || limit <= 0 || end - start < limit)) {
    const size = results[end]!.length;
    // One document larger than what is left still goes alone: a batch is never empty.
    if (end > start && bytes + size > MAX_BATCH_BYTES) break;
    bytes += size;
    end++;
  }
  return end;
}

function createCursorId(): bigint {
  // A random positive int64; 0 means "no cursor" on the wire.
  const id = randomBytes(8).readBigUInt64LE() & 0x7fff_ffff_ffff_ffffn;
  return id === 0n ? 1n : id;
}

export class CursorRegistry {
  private readonly cursors = new Map<bigint, OpenCursor>();

  /** Answers the first batch of a result and keeps a cursor open for the rest, if any. */
  openCursor(ns: string, results: Uint8Array[], options: { batchSize?: number; singleBatch?: boolean }): CursorReply {
    const batchSize = options.batchSize;
    // batchSize 0 asks for a cursor with an empty first batch.
    const end = batchSize === 0 ? 0 : measureBatch(results, 0, batchSize);
    let id = 0n;
    if (end < results.length && !options.singleBatch) {
      id = createCursorId();
      this.cursors.set(id, { ns, results, position: end, lastUsed: Date.now() });
    }
    return { cursor: { firstBatch: new RawDocuments(results.slice(0, end)), id: Long.fromBigInt(id), ns } };
  }

  /** Answers a getMore; throws CursorNotFound or Unauthorized (namespace mismatch) like mongod. */
  continueCursor(rawId: bigint, ns: string, batchSize: number | undefined): CursorReply {
    const cursor = this.cursors.get(rawId);
    if (!cursor) throw new CommandError(43, `cursor id ${rawId} not found`);
    if (cursor.ns !== ns) {
      throw new CommandError(13, `Requested getMore on namespace '${ns}', but cursor belongs to a different namespace ${cursor.ns}`);
    }
    const end = measureBatch(cursor.results, cursor.position, batchSize);
    const batch = cursor.results.slice(cursor.position, end);
    cursor.position = end;
    cursor.lastUsed = Date.now();
    let id = rawId;
    if (end >= cursor.results.length) {
      this.cursors.delete(rawId);
      id = 0n;
    }
    return { cursor: { nextBatch: new RawDocuments(batch), id: Long.fromBigInt(id), ns } };
  }

  /** Closes cursors by id; reports which existed, in killCursors' reply shape. */
  killCursors(ids: bigint[]): { killed: Long[]; notFound: Long[] } {
    const killed: Long[] = [];
    const notFound: Long[] = [];
    for (const id of ids) (this.cursors.delete(id) ? killed : notFound).push(Long.fromBigInt(id));
    return { killed, notFound };
  }

  /** Drops cursors idle past mongod's 10-minute timeout. */
  sweepIdleCursors(now = Date.now()): void {
    for (const [id, cursor] of this.cursors) if (now - cursor.lastUsed > CURSOR_IDLE_TIMEOUT_MS) this.cursors.delete(id);
  }

  /** How many cursors are open (tests use it to see that cursors get closed). */
  get openCount(): number {
    return this.cursors.size;
  }
}
