// A recorded history for point-in-time restore tests: the real shipper ships `shop` from the
// replica-set test server while a base backup is taken and a workload runs (inserts, updates,
// deletes, an index, a new collection, a committed and an aborted transaction); after each step
// the test records the database's whole contents and the oplog position then.
import { createWriteStream } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { EJSON } from "bson";
import type { MongoClient } from "mongodb";
import { waitUntil } from "../../../../../testkit/wait-until.ts";
import { compareOplogTimes, type OplogTime } from "../../../../../protocol/oplog-position.ts";
import { createBackupStream } from "../../../dump/encrypted.ts";
import { readNewestOplogTimestamp, toOplogTimestamp } from "../../read-oplog.ts";
import { shipToDirectory } from "../../shipping/test-support/slice-sink.ts";
import type { SliceFile } from "../open-slice.ts";

export type Moment = { label: string; until: OplogTime; contents: string };

/** Every collection of `db` (its options, documents by _id, indexes by name with their options) as one comparable text. */
export async function snapshotDatabase(client: MongoClient, db: string): Promise<string> {
  const listed = (await client.db(db).listCollections({}, { nameOnly: false }).toArray()).filter((entry) => !entry.name.startsWith("system."));
  const names = listed.map((entry) => entry.name).sort();
  const collections: Record<string, unknown> = {};
  for (const name of names) {
    const options = EJSON.stringify(listed.find((entry) => entry.name === name)!.options ?? {}, { relaxed: false });
    const collection = client.db(db).collection(name);
    const documents = (await collection.find().toArray()).map((document) => EJSON.stringify(document, { relaxed: false })).sort();
    const indexes = (await collection.indexes())
      // Every option of the index (sparse, partial filter, TTL…); v and ns say nothing of its contents.
      .map(({ v: _v, ns: _ns, ...index }) => ({ ...index, unique: index.unique === true }))
      .sort((a, b) => String(a.name).localeCompare(String(b.name)));
    collections[name] = { options, documents, indexes };
  }
  return JSON.stringify(collections, null, 1);
}

/**
 * Records the moment; unless `within`, then waits for the slice holding it to be sealed (a chain of
 * several slices). A moment `within` a slice has later entries in the same slice: only "until"
 * keeps them out of a restore to it.
 */
async function record(client: MongoClient, moments: Moment[], label: string, sealed: { end: OplogTime }[], within = false): Promise<void> {
  const until = toOplogTimestamp(await readNewestOplogTimestamp(client));
  moments.push({ label, until, contents: await snapshotDatabase(client, "shop") });
  if (within) return;
  await waitUntil(
    async () => {
      await tick(client);
      return sealed.some((slice) => compareOplogTimes(slice.end, until) >= 0);
    },
    {
      timeout: 30_000,
      message: `a slice reaching ${label}`,
    },
  );
}

// An idle database's slice is sealed once the oplog moves on: writes elsewhere move it.
const tick = (client: MongoClient) => client.db("other").collection("ticks").insertOne({});

/** Runs the history; answers the base backup's path, the recorded moments and the slices' directory. */
export async function recordHistory(client: MongoClient, uri: string, key: Uint8Array, dir: string) {
  const shop = client.db("shop");
  await shop.collection("orders").insertMany([
    { _id: 1, n: 1, tags: ["a"] },
    { _id: 2, n: 2 },
    { _id: 3, n: 3 },
  ] as never[]);
  await shop.collection("orders").createIndex({ n: 1 }, { name: "n_1" });
  const shipper = shipToDirectory(client, "shop", key, dir);
  await waitUntil(
    async () => {
      await tick(client);
      return shipper.sealed.length > 0;
    },
    { timeout: 20_000, message: "the shipper sealed no first slice" },
  );

  const base = join(dir, "base.enc.dbvault");
  const backup = createBackupStream({ uri, database: "shop", masterKey: key, tools: { mode: "builtin" }, compressionThreads: 0 });
  await Promise.all([pipeline(backup.stream, createWriteStream(base)), backup.result]);

  const moments: Moment[] = [];
  await record(client, moments, "base", shipper.sealed);
  const orders = shop.collection("orders");
  await orders.insertMany([
    { _id: 4, n: 4 },
    { _id: 5, n: 5 },
  ] as never[]);
  await record(client, moments, "inserts", shipper.sealed, true);
  await orders.updateOne({ _id: 1 } as never, { $set: { status: "paid" }, $inc: { n: 10 }, $push: { tags: "b" } } as never);
  await orders.updateOne({ _id: 2 } as never, { $unset: { n: "" } } as never);
  await orders.deleteOne({ _id: 3 } as never);
  await record(client, moments, "updates and a delete", shipper.sealed);
  await shop.collection("lines").insertOne({ _id: "l1", order: 1 } as never);
  await shop.collection("lines").createIndex({ order: 1 }, { name: "order_1", unique: true });
  await orders.dropIndex("n_1");
  await record(client, moments, "a collection and indexes", shipper.sealed);
  const session = client.startSession();
  try {
    await session.withTransaction(async () => {
      await shop.collection("lines").insertOne({ _id: "l2", order: 4 } as never, { session });
      await orders.updateOne({ _id: 4 } as never, { $set: { lines: 1 } } as never, { session });
    });
    await record(client, moments, "a committed transaction", shipper.sealed, true);
    session.startTransaction();
    await shop.collection("lines").insertOne({ _id: "l3", order: 5 } as never, { session });
    await orders.deleteOne({ _id: 5 } as never, { session });
    await session.abortTransaction();
  } finally {
    await session.endSession();
  }
  await orders.insertOne({ _id: 6, n: 6 } as never);
  await record(client, moments, "after an aborted transaction", shipper.sealed);
  // Slices past the last moment's second too: a restore to that second (ISO time) is covered.
  const last = moments.at(-1)!.until;
  await waitUntil(
    async () => {
      await tick(client);
      return shipper.sealed.some((slice) => slice.end.t > last.t);
    },
    {
      timeout: 30_000,
      message: "a slice past the last second",
    },
  );
  await shipper.stop();
  return { base, moments, slices: join(dir, "server") };
}

/** The slice files of a directory, named by their file names. */
export async function readSliceFiles(directory: string): Promise<SliceFile[]> {
  const names = (await readdir(directory)).filter((name) => name.endsWith(".enc.dbvault")).sort();
  return names.map((name) => ({ name, path: join(directory, name) }));
}
