// Reading a replica set's oplog (local.oplog.rs) as raw BSON entries: where it starts and ends
// now (the one reader of its edges), where a consistent copy must start, and the entries of a
// range. Used by the built-in dump (the entries written while it read the collections) and by
// continuous shipping.
// The driver's own Timestamp class, so `instanceof` holds for the values it decodes.
import { type MongoClient, Timestamp } from "mongodb";
import type { OplogTime } from "../../../protocol/oplog-position.ts";

/** Raised when entries a range needs were already removed from the capped oplog. */
export class OplogRolledOverError extends Error {
  override readonly name = "OplogRolledOverError";
}

const OPLOG_BATCH_SIZE = 1000;

/** The timestamp of the oplog's newest entry; throws when the oplog is empty. */
export async function readNewestOplogTimestamp(client: MongoClient): Promise<Timestamp> {
  return orThrow(await readEdgeTimestamp(client, -1));
}

/** The oldest and newest entries' positions (undefined: the member has no oplog, it is not in a replica set). */
export async function readOplogBounds(client: MongoClient): Promise<{ oldest: OplogTime; newest: OplogTime } | undefined> {
  const oldest = await readEdgeTimestamp(client, 1);
  const newest = await readEdgeTimestamp(client, -1);
  if (!oldest || !newest) return undefined;
  return { oldest: toOplogTimestamp(oldest), newest: toOplogTimestamp(newest) };
}

/**
 * Where a copy that reads the collections next must start reading the oplog, as `mongodump --oplog`
 * decides: the start of the oldest transaction still open (its first entries may already be
 * written), else the newest entry. `inclusive` says whether the entry at `from` itself belongs to
 * the copy (an open transaction's first entry does; the newest entry's write is already visible to
 * the reads that follow, so it does not).
 */
export async function readOplogStart(client: MongoClient): Promise<{ from: Timestamp; inclusive: boolean }> {
  const open = await client
    .db("config")
    .collection("transactions")
    .findOne({ state: { $in: ["prepared", "inProgress"] } }, { sort: { startOpTime: 1 }, projection: { startOpTime: 1 } })
    .catch(() => null);
  const started = (open?.startOpTime as { ts?: unknown } | undefined)?.ts;
  if (started instanceof Timestamp) return { from: started, inclusive: true };
  return { from: await readNewestOplogTimestamp(client), inclusive: false };
}

/**
 * Yields the raw entries after `start` (from it, when inclusive) up to and including `until`, in
 * oplog order, one cursor batch at a time. Throws OplogRolledOverError when the oplog no longer
 * holds `start` (entries were lost), checked before and after reading as mongodump does.
 */
export async function* readOplogRange(
  client: MongoClient,
  start: { from: Timestamp; inclusive: boolean },
  until: Timestamp,
): AsyncGenerator<Uint8Array[], void, undefined> {
  await assertOplogHolds(client, start.from);
  const filter = { ts: { [start.inclusive ? "$gte" : "$gt"]: start.from, $lte: until } };
  const cursor = client.db("local").collection("oplog.rs").find(filter, { raw: true, batchSize: OPLOG_BATCH_SIZE });
  try {
    while (await cursor.hasNext()) yield cursor.readBufferedDocuments() as unknown as Uint8Array[];
  } finally {
    await cursor.close().catch(() => undefined);
  }
  await assertOplogHolds(client, start.from);
}

/** The plain form of a BSON timestamp: seconds since the epoch and the increment within it (unsigned). */
export function toOplogTimestamp(ts: Timestamp): OplogTime {
  return { t: ts.t, i: ts.i };
}

async function assertOplogHolds(client: MongoClient, ts: Timestamp): Promise<void> {
  const oldest = orThrow(await readEdgeTimestamp(client, 1));
  if (oldest.greaterThan(ts)) {
    const { t, i } = toOplogTimestamp(ts);
    throw new OplogRolledOverError(`the oplog no longer holds the entry at {t: ${t}, i: ${i}}: it rolled over while the dump ran`);
  }
}

async function readEdgeTimestamp(client: MongoClient, direction: 1 | -1): Promise<Timestamp | undefined> {
  const entry = await client
    .db("local")
    .collection("oplog.rs")
    .findOne({}, { sort: { $natural: direction }, projection: { ts: 1 } });
  return entry?.ts instanceof Timestamp ? entry.ts : undefined;
}

function orThrow(ts: Timestamp | undefined): Timestamp {
  if (!ts) throw new Error("the oplog (local.oplog.rs) holds no entry");
  return ts;
}
