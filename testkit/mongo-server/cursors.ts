// Server-side cursors. A query's result is fixed when it runs (the stored byte buffers are never
// mutated, so holding references is a snapshot), then handed out in batches bounded both by
// count and by MongoDB's 16 MiB batch budget so no reply can outgrow the message size limit.
import { randomBytes } from "node:crypto";
import { Long } from "bson";
import { CommandError } from "./errors";
import { CURSOR_IDLE_TIMEOUT_MS, MAX_BATCH_BYTES } from "./limits";
import { RawDocuments } from "./raw-bson";

/** Where a tailable cursor finds what was appended after it last looked (the oplog). */
export type TailSource = {
  readAfter(position: number): { raw: Uint8Array; position: number }[];
  /** Every entry still kept, oldest first. */
  readAll(): { raw: Uint8Array; position: number }[];
  /** Throws CappedPositionLost when the entry at `position` has already been dropped. */
  assertKept(position: number): void;
  /** The position of the newest entry. */
  readonly lastPosition: number;
  waitForAppend(timeoutMs: number): { done: Promise<void>; cancel: () => void };
};

type Tail = {
  source: TailSource;
  /** The source position of the last entry looked at, matching or not. */
  sourcePosition: number;
  /** The source position of each entry in the cursor's results. */
  positions: number[];
  accepts: (raw: Uint8Array) => boolean;
  awaitData: boolean;
  /** Set while a getMore waits for data: ends that wait with an error. */
  interrupt?: (error: CommandError) => void;
};

type OpenCursor = { ns: string; results: Uint8Array[]; position: number; lastUsed: number; tail?: Tail };

/** How long an awaitData getMore waits when it names no maxAwaitTimeMS, as in mongod. */
const DEFAULT_MAX_AWAIT_TIME_MS = 1000;

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
  /** Cursors ended by a step-down: their next getMore fails with this error, once. */
  private readonly ended = new Map<bigint, CommandError>();

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

  /**
   * Opens a tailable cursor over `source`: it stays open when it has returned everything, and
   * each getMore returns what was appended since (waiting for it when `awaitData`).
   */
  openTailableCursor(ns: string, source: TailSource, accepts: (raw: Uint8Array) => boolean, options: { batchSize?: number; awaitData: boolean }): CursorReply {
    const scanned = source.readAll().filter((entry) => accepts(entry.raw));
    const tail: Tail = {
      source,
      sourcePosition: source.lastPosition,
      positions: scanned.map((entry) => entry.position),
      accepts,
      awaitData: options.awaitData,
    };
    const results = scanned.map((entry) => entry.raw);
    const end = options.batchSize === 0 ? 0 : measureBatch(results, 0, options.batchSize);
    const id = createCursorId();
    this.cursors.set(id, { ns, results, position: end, lastUsed: Date.now(), tail });
    return { cursor: { firstBatch: new RawDocuments(results.slice(0, end)), id: Long.fromBigInt(id), ns } };
  }

  /**
   * Answers a getMore; throws CursorNotFound or Unauthorized (namespace mismatch) like mongod.
   * A tailable awaitData cursor with nothing new waits up to `maxAwaitTimeMS` (a promise).
   */
  continueCursor(rawId: bigint, ns: string, batchSize: number | undefined, maxAwaitTimeMS?: number): CursorReply | Promise<CursorReply> {
    const endedBy = this.ended.get(rawId);
    if (endedBy) {
      this.ended.delete(rawId);
      throw endedBy;
    }
    const cursor = this.cursors.get(rawId);
    if (!cursor) throw new CommandError(43, `cursor id ${rawId} not found`);
    if (cursor.ns !== ns) {
      throw new CommandError(13, `Requested getMore on namespace '${ns}', but cursor belongs to a different namespace ${cursor.ns}`);
    }
    if (cursor.tail) return this.continueTail(rawId, cursor, cursor.tail, batchSize, maxAwaitTimeMS ?? DEFAULT_MAX_AWAIT_TIME_MS);
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

  private continueTail(id: bigint, cursor: OpenCursor, tail: Tail, batchSize: number | undefined, maxAwaitTimeMS: number): CursorReply | Promise<CursorReply> {
    const answer = (): CursorReply => {
      if (cursor.position >= cursor.results.length) {
        const scanned = tail.source.readAfter(tail.sourcePosition);
        tail.sourcePosition = scanned.at(-1)?.position ?? tail.sourcePosition;
        const kept = scanned.filter((entry) => tail.accepts(entry.raw));
        cursor.results = kept.map((entry) => entry.raw);
        tail.positions = kept.map((entry) => entry.position);
        cursor.position = 0;
      } else {
        // Entries read ahead but not yet returned are lost if the oplog has dropped them since.
        tail.source.assertKept(tail.positions[cursor.position]!);
      }
      const end = measureBatch(cursor.results, cursor.position, batchSize);
      const batch = cursor.results.slice(cursor.position, end);
      cursor.position = end;
      cursor.lastUsed = Date.now();
      return { cursor: { nextBatch: new RawDocuments(batch), id: Long.fromBigInt(id), ns: cursor.ns } };
    };
    const first = answer();
    if (!tail.awaitData || (first.cursor.nextBatch as RawDocuments).documents.length > 0) return first;
    const wait = tail.source.waitForAppend(maxAwaitTimeMS);
    return new Promise<CursorReply>((resolve, reject) => {
      tail.interrupt = (error) => {
        wait.cancel();
        reject(error);
      };
      void wait.done.then(() => {
        tail.interrupt = undefined;
        if (!this.cursors.has(id)) return; // interrupted: already rejected
        try {
          resolve(answer());
        } catch (error) {
          reject(error);
        }
      });
    });
  }

  /** Closes cursors by id; reports which existed, in killCursors' reply shape. */
  killCursors(ids: bigint[]): { killed: Long[]; notFound: Long[] } {
    const killed: Long[] = [];
    const notFound: Long[] = [];
    for (const id of ids) {
      const cursor = this.cursors.get(id);
      this.cursors.delete(id);
      cursor?.tail?.interrupt?.(new CommandError(237, `cursor id ${id} was killed`));
      (cursor ? killed : notFound).push(Long.fromBigInt(id));
    }
    return { killed, notFound };
  }

  /**
   * Ends every open cursor as a primary stepping down does: a getMore waiting now, or the next
   * getMore on any of them, fails with InterruptedDueToReplStateChange (11602), carrying the new
   * topology version as mongod's state-change errors do (drivers use it to tell a stale error
   * from news).
   */
  endAllForStepDown(topologyVersion?: Record<string, unknown>): void {
    const details = topologyVersion ? { topologyVersion } : {};
    const error = () => new CommandError(11602, "operation was interrupted because of a replica set state change", details);
    for (const [id, cursor] of [...this.cursors]) {
      this.cursors.delete(id);
      if (cursor.tail?.interrupt) cursor.tail.interrupt(error());
      else this.ended.set(id, error());
    }
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
