// The applier on entries the replica-set test server records as it takes writes: the source's
// oplog replayed into another server, under staging names, must give the source's collections
// and indexes exactly, as a whole and as of a position ("until"): a transaction whose commit is
// after that position contributes nothing even when its first entries are before it, one
// committed at or before it is there whole. An incomplete transaction chain is refused.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { EJSON } from "bson";
import { type Document, MongoClient, type Timestamp } from "mongodb";
import { parseTyped, startReplicaSetWithClient, stopWithClient } from "../../../../testkit/mongo-server/replica-set/test-support.ts";
import { startMongoTestServer, type MongoTestServer } from "../../../../testkit/mongo-server/server.ts";
import type { LooseDocument } from "../../../../testkit/mongo-server/test-support.ts";
import { createStagingArea } from "../../dump/builtin/staging.ts";
import type { OplogTime } from "../../../../protocol/oplog-position.ts";
import { applyOplog, type ApplyOplogResult, OplogApplyError } from "./index.ts";

const DB = "shop";
const staging = createStagingArea("wk0001");

let source: MongoTestServer;
let sourceClient: MongoClient;
let target: Awaited<ReturnType<typeof startReplicaSetWithClient>>;
/** The source's contents when the workload had reached each named position. */
const moments = new Map<string, { at: OplogTime; contents: Contents }>();
let entries: Uint8Array[];

type Contents = Record<string, { documents: string[]; indexes: string[] }>;

async function contentsOf(client: MongoClient, names: string[], locate: (name: string) => { db: string; name: string }): Promise<Contents> {
  const contents: Contents = {};
  for (const name of names) {
    const at = locate(name);
    const collection = client.db(at.db).collection(at.name);
    const raw = (await collection.find({}, { raw: true, sort: { _id: 1 } }).toArray()) as unknown as Uint8Array[];
    const indexes = await collection.listIndexes().toArray();
    contents[name] = {
      documents: raw.map((bytes) => EJSON.stringify(parseTyped(bytes), { relaxed: false })),
      indexes: indexes.map(({ v: _, ...spec }) => EJSON.stringify(spec)).sort(),
    };
  }
  return contents;
}

async function sourceCollections(): Promise<string[]> {
  const infos = await sourceClient.db(DB).listCollections({}, { nameOnly: true }).toArray();
  return infos.map((info) => info.name).sort();
}

async function lastPosition(): Promise<OplogTime> {
  const [last] = await sourceClient.db("local").collection("oplog.rs").find({}).sort({ $natural: -1 }).limit(1).toArray();
  const ts = last!.ts as Timestamp;
  return { t: ts.t, i: ts.i };
}

async function record(name: string): Promise<void> {
  moments.set(name, {
    at: await lastPosition(),
    contents: await contentsOf(sourceClient, await sourceCollections(), (collection) => ({ db: DB, name: collection })),
  });
}

async function transaction(work: (session: import("mongodb").ClientSession) => Promise<void>, abort = false): Promise<void> {
  const session = sourceClient.startSession();
  try {
    session.startTransaction();
    await work(session);
    await (abort ? session.abortTransaction() : session.commitTransaction());
  } finally {
    await session.endSession();
  }
}

beforeAll(async () => {
  // A small split size: a transaction of a few documents spans a partialTxn chain.
  source = await startMongoTestServer({ replicaSet: { name: "rs0", maxTransactionEntryBytes: 400 } });
  sourceClient = await new MongoClient(source.uri, { serverSelectionTimeoutMS: 5000 }).connect();
  target = await startReplicaSetWithClient();
  const shop = sourceClient.db(DB);
  const orders = shop.collection<LooseDocument>("orders");
  await shop.createCollection("orders");
  await orders.insertMany(Array.from({ length: 20 }, (_, i) => ({ _id: i, sku: `s${i % 4}`, qty: i, tags: ["a"], note: "x" })));
  await orders.createIndex({ sku: 1 }, { name: "sku_1" });
  await orders.updateOne({ _id: 1 }, { $set: { "address.city": "Lyon" }, $inc: { qty: 5 } });
  await orders.updateOne({ _id: 2 }, { $push: { tags: "b" }, $unset: { note: "" } } as Document);
  await orders.updateMany({ qty: { $gt: 15 } }, { $set: { big: true }, $inc: { qty: 1000 } });
  await orders.replaceOne({ _id: 3 }, { sku: "new", qty: 0 });
  await orders.deleteOne({ _id: 4 });
  await record("before transactions");
  const lines = shop.collection<LooseDocument>("lines");
  await transaction(async (session) => {
    for (let i = 0; i < 8; i++) await lines.insertOne({ _id: i, order: i % 3, text: "line ".repeat(10) }, { session });
    await orders.updateOne({ _id: 0 }, { $inc: { qty: 100 } }, { session });
  });
  await record("first transaction");
  await transaction(async (session) => {
    for (let i = 8; i < 16; i++) await lines.insertOne({ _id: i, order: i % 3, text: "line ".repeat(10) }, { session });
    await orders.deleteOne({ _id: 5 }, { session });
  });
  await record("second transaction");
  await transaction(async (session) => {
    await lines.insertOne({ _id: 99 }, { session });
    await orders.deleteMany({}, { session });
  }, true);
  await shop.createCollection("scratch");
  await shop.collection<LooseDocument>("scratch").insertOne({ _id: 1 });
  await shop.collection<LooseDocument>("drafts").insertOne({ _id: "d", v: 1 });
  await shop.collection("drafts").rename("published");
  await shop.collection("scratch").drop();
  await orders.dropIndex("sku_1");
  await lines.createIndex({ order: 1, _id: -1 }, { name: "order_id" });
  await record("end");
  const raw = (await sourceClient.db("local").collection("oplog.rs").find({}, { raw: true }).toArray()) as unknown as Uint8Array[];
  entries = raw;
});

afterAll(async () => {
  await sourceClient?.close();
  await source?.stop();
  if (target) await stopWithClient(target);
});

async function replay(until?: OplogTime, from = entries): Promise<{ result: ApplyOplogResult; contents: Contents }> {
  // Every replay starts from an empty target.
  await target.client.db(DB).dropDatabase();
  const locate = (collection: string) => staging.locate(DB, collection);
  const result = await applyOplog({ client: target.client, entries: from, sourceDb: DB, mapping: { locate }, collections: [], until });
  return { result, contents: await contentsOf(target.client, result.collections, locate) };
}

/** The entries of the second transaction: its partialTxn chain and the entry that commits it. */
function secondTransaction(): { first: OplogTime; commit: OplogTime; indexes: number[] } {
  const [after, upTo] = [moments.get("first transaction")!.at, moments.get("second transaction")!.at];
  const indexes: number[] = [];
  entries.forEach((bytes, index) => {
    const ts = parseTyped(bytes).ts as Timestamp;
    if ((ts.t > after.t || (ts.t === after.t && ts.i > after.i)) && (ts.t < upTo.t || (ts.t === upTo.t && ts.i <= upTo.i))) indexes.push(index);
  });
  const tsOf = (index: number) => {
    const ts = parseTyped(entries[index]!).ts as Timestamp;
    return { t: ts.t, i: ts.i };
  };
  return { first: tsOf(indexes[0]!), commit: tsOf(indexes.at(-1)!), indexes };
}

describe("the source's own oplog replayed into staging names", () => {
  test("the workload records its second transaction as a partialTxn chain", () => {
    const { indexes } = secondTransaction();
    expect(indexes.length).toBeGreaterThan(1);
    const chain = indexes.map((index) => parseTyped(entries[index]!).o as Document);
    expect(chain.slice(0, -1).every((o) => o.partialTxn === true)).toBe(true);
  });

  test("the whole oplog gives the source as it ended: documents, indexes, renamed and dropped collections", async () => {
    const { result, contents } = await replay();
    expect(contents).toEqual(moments.get("end")!.contents);
    expect(result.collections).toEqual(["lines", "orders", "published"]);
    expect(result.removed).toEqual(["drafts", "scratch"]);
    expect(result.transactions).toEqual({ committed: 2, aborted: 0, notCommitted: 0 });
  });

  for (const moment of ["before transactions", "first transaction", "second transaction"]) {
    test(`until the position after "${moment}" gives the source as it was then`, async () => {
      const { at, contents: expected } = moments.get(moment)!;
      const { result, contents } = await replay(at);
      expect(contents).toEqual(expected);
      expect(result.reached).toEqual(at);
    });
  }

  test("until inside a transaction's chain: none of it is applied, it counts as not committed", async () => {
    const { first } = secondTransaction();
    const { result, contents } = await replay(first);
    expect(contents).toEqual(moments.get("first transaction")!.contents);
    expect(result.transactions).toEqual({ committed: 1, aborted: 0, notCommitted: 1 });
  });

  test("until at the transaction's commit: all of it is applied", async () => {
    const { commit } = secondTransaction();
    const { contents } = await replay(commit);
    expect(contents).toEqual(moments.get("second transaction")!.contents);
  });

  test("a chain missing its first entry is refused, naming the entry that links to it", async () => {
    const { indexes } = secondTransaction();
    const broken = entries.filter((_, index) => index !== indexes[0]);
    const failure = await replay(undefined, broken).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OplogApplyError);
    expect((failure as Error).message).toMatch(/^oplog entry \d+,\d+: a transaction's entry follows \d+,\d+, which is not among the entries replayed/);
  });

  test("nothing is written under the source's own names", async () => {
    await replay();
    const names = (await target.client.db(DB).listCollections({}, { nameOnly: true }).toArray()).map((info) => info.name);
    expect(names.every((name) => name.endsWith(`.dbvault-restore-${staging.id}`))).toBe(true);
  });
});
