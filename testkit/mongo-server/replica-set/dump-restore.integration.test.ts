// The real tools on the replica-set test server: `mongodump --oplog` while writes run, then
// `mongorestore --oplogReplay` into a fresh test server, must give the source exactly as it was
// at the dump's last oplog entry: every document's bytes, every index, every option. That moment
// is caught with the fault-injection hook: mongodump reads the oplog's newest entry to end its
// window, and commands run one at a time, so a snapshot taken when that read arrives is the state
// the entry it returns describes.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Int32 } from "bson";
import { MongoClient } from "mongodb";
import { findMongoTools } from "../../mongo-tools";
import { isDocument } from "../bson-order";
import { startMongoTestServer, type MongoTestServer } from "../server";
import type { ServerState } from "../server-state";
import type { LooseDocument } from "../test-support";
import { parseTyped, runTool, splitBsonFile } from "./test-support";

const { tools, missing } = findMongoTools();
const DATABASE = "shop";

/** A database's contents, comparable exactly: documents (bytes, by _id), index specs, options. */
function snapshot(state: ServerState, database: string): Record<string, { options: string; indexes: string[]; documents: string[] }> {
  const collections = [...(state.databases.get(database)?.values() ?? [])].sort((a, b) => (a.name < b.name ? -1 : 1));
  return Object.fromEntries(
    collections.map((collection) => [
      collection.name,
      {
        options: JSON.stringify(collection.options),
        // mongorestore rebuilds index specs from a Go map, so their top-level field order varies
        // from run to run on any server; the order of the key's fields does matter and is kept.
        indexes: collection.indexes.map((index) => JSON.stringify(Object.fromEntries(Object.entries(index.spec).sort(([a], [b]) => (a < b ? -1 : 1))))).sort(),
        documents: [...collection.documents.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, stored]) => stored.raw.toString("base64")),
      },
    ]),
  );
}

/** A tiny seeded generator, so a failing run can be replayed. */
function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

let source: MongoTestServer;
let target: MongoTestServer;
let client: MongoClient;
let dir: string;
beforeAll(async () => {
  source = await startMongoTestServer({ replicaSet: { name: "rs0" } });
  target = await startMongoTestServer({ replicaSet: { name: "rs1" } });
  client = await new MongoClient(source.uri, { serverSelectionTimeoutMS: 5000 }).connect();
  dir = mkdtempSync(join(tmpdir(), "dbvault-oplog-dump-"));
});
afterAll(async () => {
  await client.close();
  await source.stop();
  await target.stop();
  rmSync(dir, { recursive: true, force: true });
});

test.skipIf(missing !== null)(
  `mongodump --oplog under writes, then mongorestore --oplogReplay, gives the source as of the dump's last entry${missing ? ` (skipped: ${missing})` : ""}`,
  async () => {
    const db = client.db(DATABASE);
    await db.createCollection("orders", { validator: { total: { $exists: true } } });
    await db.collection<LooseDocument>("orders").createIndex({ customer: 1, placed: -1 }, { name: "by_customer" });
    await db.collection<LooseDocument>("lines").createIndex({ sku: 1 }, { unique: true, sparse: true });
    const pad = "x".repeat(300);
    await db
      .collection<LooseDocument>("orders")
      .insertMany(
        Array.from({ length: 4000 }, (_, i) => ({
          _id: i,
          customer: `c${i % 97}`,
          placed: new Date(1_700_000_000_000 + i),
          total: new Int32(i),
          items: [i],
          pad,
        })),
      );
    await db.collection<LooseDocument>("lines").insertMany(Array.from({ length: 4000 }, (_, i) => ({ _id: `l${i}`, order: i, sku: `sku-${i}`, qty: 1, pad })));

    // The state when mongodump reads the oplog's newest entry; the last such read ends its window.
    let atWindowEnd: ReturnType<typeof snapshot> | undefined;
    source.intercept(({ name, db: on, body }) => {
      const sort = body.sort;
      if (name === "find" && on === "local" && body.find === "oplog.rs" && isDocument(sort) && Number(sort.$natural) === -1)
        atWindowEnd = snapshot(source.state, DATABASE);
    });

    const random = createRandom(25);
    let writing = true;
    let writes = 0;
    const writer = (async () => {
      let next = 4000;
      while (writing) {
        const id = Math.floor(random() * next);
        const pick = random();
        if (pick < 0.3)
          await db.collection<LooseDocument>("orders").insertOne({ _id: next++, customer: "new", placed: new Date(), total: new Int32(1), items: [], pad });
        else if (pick < 0.55)
          await db
            .collection<LooseDocument>("orders")
            .updateOne({ _id: id }, { $inc: { total: 5 }, $push: { items: writes } as never, $set: { "meta.touched": writes } });
        else if (pick < 0.65)
          await db.collection<LooseDocument>("orders").updateOne({ _id: id }, { $unset: { pad: "" }, $set: { customer: `moved${writes}` } });
        else if (pick < 0.75)
          await db.collection<LooseDocument>("orders").replaceOne({ _id: id }, { customer: "replaced", total: new Int32(0), placed: new Date(0) });
        else if (pick < 0.85) await db.collection<LooseDocument>("orders").deleteOne({ _id: id });
        else if (pick < 0.95) await db.collection<LooseDocument>("lines").updateOne({ _id: `l${id}` }, { $set: { qty: writes } });
        else await db.collection<LooseDocument>("lines").deleteOne({ _id: `l${id}` });
        writes++;
      }
    })();

    const dump = await runTool(tools!.mongodump, [`--uri=${source.uri}`, "--oplog", `--out=${dir}`]);
    writing = false;
    await writer;
    source.intercept(undefined);
    expect(dump.code).toBe(0);
    const entries = splitBsonFile(readFileSync(join(dir, "oplog.bson"))).map(parseTyped);
    const ours = entries.filter((entry) => String(entry.ns).startsWith(`${DATABASE}.`));
    // Without writes inside the window this test would prove nothing.
    expect(ours.length).toBeGreaterThan(0);
    expect(atWindowEnd).toBeDefined();

    const restore = await runTool(tools!.mongorestore, [`--uri=${target.uri}`, "--oplogReplay", `--dir=${dir}`]);
    expect({ code: restore.code, oplog: /applied \d+ oplog entries/.test(restore.stderr) }).toEqual({ code: 0, oplog: true });
    const restored = snapshot(target.state, DATABASE);
    expect(Object.keys(restored)).toEqual(Object.keys(atWindowEnd!));
    for (const name of Object.keys(restored)) {
      expect(restored[name]!.options).toBe(atWindowEnd![name]!.options);
      expect(restored[name]!.indexes).toEqual(atWindowEnd![name]!.indexes);
      expect(restored[name]!.documents.length).toBe(atWindowEnd![name]!.documents.length);
      expect(restored[name]!.documents).toEqual(atWindowEnd![name]!.documents);
    }
  },
  120_000,
);
