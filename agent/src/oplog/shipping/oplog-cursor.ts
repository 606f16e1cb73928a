// Reading local.oplog.rs as shipping needs it: a tailable awaitData cursor of majority-committed
// entries after a position, each entry as the raw bytes the server sent (its bounds are
// read-oplog.ts readOplogBounds).
import { BSON } from "bson";
import type { FindCursor, MongoClient } from "mongodb";
import type { OplogTime } from "../../../../protocol/oplog-position.ts";
import { type EntryHeader, readEntryHeader } from "../entry-header.ts";

/** How long one getMore waits for new entries: the loop checks its timers this often when idle. */
export const AWAIT_MS = 1_000;
/**
 * Entries per reply. Unbounded, a tail catching up (after a seal, a slow upload) gets 16 MiB
 * replies, each assembled from the socket's chunks then copied whole by the driver: ~32 MiB at
 * once on top of the slice being gathered. 1,000 oplog entries are ~1 MB at this bench's sizes,
 * and a reply a few ms apart on a healthy link still reads far more than a server writes.
 */
const BATCH_SIZE = 1_000;

const oplog = (client: MongoClient) => client.db("local").collection("oplog.rs");

/** A raw oplog entry and what shipping reads of every entry (its position, kind and namespace). */
export type ReadEntry = EntryHeader & { raw: Uint8Array };

/** Opens the tail after `after` (exclusive); `next` answers an entry, or null when none came within AWAIT_MS. */
export function openOplogTail(client: MongoClient, after: OplogTime) {
  const { Timestamp } = BSON;
  const cursor: FindCursor<Uint8Array> = oplog(client).find(
    { ts: { $gt: new Timestamp({ t: after.t, i: after.i }) } },
    { tailable: true, awaitData: true, maxAwaitTimeMS: AWAIT_MS, batchSize: BATCH_SIZE, raw: true, readConcern: { level: "majority" } },
  ) as unknown as FindCursor<Uint8Array>;
  return {
    async next(): Promise<ReadEntry | null> {
      const raw = await cursor.tryNext();
      if (!raw) return null;
      const { ts, op, ns } = readEntryHeader(raw);
      return { raw, ts, op, ns };
    },
    close: () => cursor.close().catch(() => undefined),
  };
}
