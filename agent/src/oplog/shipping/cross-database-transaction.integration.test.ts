// A multi-entry transaction whose parts span databases, shipped for one of them: its first part
// touches only another database, a later one this database. The replay links a transaction's
// parts through prevOpTime, so the slices must hold every part (cut down to this database's
// operations), or the restore refuses the chain as incomplete.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MongoClient } from "mongodb";
import { startMongoTestServer, type MongoTestServer } from "../../../../testkit/mongo-server/server.ts";
import { waitUntil } from "../../../../testkit/wait-until.ts";
import { applyOplog } from "../apply/index.ts";
import { readNewestOplogTimestamp, toOplogTimestamp } from "../read-oplog.ts";
import { compareOplogTimes } from "../../../../protocol/oplog-position.ts";
import { readShippedSlices, shipToDirectory } from "./test-support/slice-sink.ts";

const KEY = Buffer.alloc(32, 9);
let server: MongoTestServer;
let client: MongoClient;
let dir: string;
beforeAll(async () => {
  // Entries of at most 4 KiB: each 3 KB insert of the transaction is a part of its own.
  server = await startMongoTestServer({ replicaSet: { name: "spans", maxTransactionEntryBytes: 4096 } });
  client = await new MongoClient(server.uri, { serverSelectionTimeoutMS: 5000 }).connect();
  dir = await mkdtemp(join(tmpdir(), "dbvault-spans-"));
});
afterAll(async () => {
  await client.close();
  await server.stop();
  await rm(dir, { recursive: true, force: true });
});

test("a transaction whose first part touches another database, shipped across slices, replays whole", async () => {
  const out = join(dir, "shipped");
  const { sealed, stop } = shipToDirectory(client, "shop", KEY, out, { maxAgeMs: 50 });
  try {
    await waitUntil(async () => (await readdir(join(out, "state")).catch(() => [] as string[])).includes("state.json"), { message: "the chain started" });
    await client
      .db("shop")
      .collection("orders")
      .insertOne({ _id: "before" } as never);
    const session = client.startSession();
    try {
      await session.withTransaction(async () => {
        await client
          .db("other")
          .collection("things")
          .insertOne({ _id: 1, pad: "a".repeat(3000) } as never, { session });
        await client
          .db("shop")
          .collection("orders")
          .insertOne({ _id: "in-transaction", pad: "b".repeat(3000) } as never, { session });
        await client
          .db("other")
          .collection("things")
          .insertOne({ _id: 2, pad: "c".repeat(3000) } as never, { session });
      });
    } finally {
      await session.endSession();
    }
    await client
      .db("shop")
      .collection("orders")
      .insertOne({ _id: "after" } as never);
    const newest = toOplogTimestamp(await readNewestOplogTimestamp(client));
    await waitUntil(() => sealed.some((slice) => compareOplogTimes(slice.end, newest) >= 0), { message: "the last insert shipped" });
  } finally {
    await stop();
  }

  const slices = await readShippedSlices(join(out, "server"), KEY);
  const parts = slices.flatMap((slice) => slice.entries).filter((entry) => entry.op === "c" && entry.txnNumber !== undefined);
  expect(parts.length).toBe(3);
  // Nothing of the other database is in this database's slices.
  expect(JSON.stringify(parts)).not.toContain("things");
  const raw: Uint8Array[] = [];
  for (const slice of slices) {
    for (let at = 0; at < slice.plaintext.length; ) {
      const size = slice.plaintext.readInt32LE(at);
      raw.push(slice.plaintext.subarray(at, at + size));
      at += size;
    }
  }
  const result = await applyOplog({
    client,
    entries: raw,
    sourceDb: "shop",
    mapping: { locate: (collection) => ({ db: "shop_replayed", name: collection }) },
    collections: [],
  });
  expect(result.transactions).toEqual({ committed: 1, aborted: 0, notCommitted: 0 });
  const ids = (await client.db("shop_replayed").collection<{ _id: string }>("orders").find().toArray()).map((document) => document._id);
  expect(ids.sort()).toEqual(["after", "before", "in-transaction"]);
  expect(await client.db("shop_replayed").listCollections({ name: "things" }).toArray()).toEqual([]);
}, 60_000);
