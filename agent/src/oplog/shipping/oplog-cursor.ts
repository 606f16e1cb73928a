// Reading local.oplog.rs as shipping needs it: its bounds, and a tailable awaitData cursor of
// majority-committed entries after a position, each entry as the raw bytes the server sent.
import { BSON, type Timestamp } from "bson";
import type { FindCursor, MongoClient } from "mongodb";
import type { OplogTime } from "../../../../protocol/pitr.ts";
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

const toTime = (ts: Timestamp): OplogTime => ({ t: ts.high >>> 0, i: ts.low >>> 0 });

/** The oldest and newest entries' positions (undefined: the member has no oplog, it is not in a replica set). */
export async function readOplogBounds(client: MongoClient): Promise<{ oldest: OplogTime; newest: OplogTime } | undefined> {
  const [oldest] = await oplog(client)
    .find({}, { sort: { $natural: 1 }, limit: 1, projection: { ts: 1 } })
    .toArray();
  const [newest] = await oplog(client)
    .find({}, { sort: { $natural: -1 }, limit: 1, projection: { ts: 1 } })
    .toArray();
  if (!oldest || !newest) return undefined;
  return { oldest: toTime(oldest.ts as Timestamp), newest: toTime(newest.ts as Timestamp) };
}

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
