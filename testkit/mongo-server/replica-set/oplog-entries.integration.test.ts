// What the replica-set test server writes into local.oplog.rs, compared field by field with the
// entries real mongod servers wrote (testkit/fixtures/mongo-oplogs): the same command run here
// must give the same fields, in the same order, with the same BSON types and values, except the
// values that differ by nature (ts, wall, ui, lsid.id, txnNumber, indexBuildUUID), which are
// compared by type only. The clock fields (ts, t, v, wall) follow the newest fixtures' order.
// Updates have no real fixture: their `$v: 2` diffs are checked against MongoDB's documented
// format and by applying them to a second server, which must end with the same documents.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Double, EJSON, Int32, Long, ObjectId } from "bson";
import { type Db, MongoClient } from "mongodb";
import { startMongoTestServer, type MongoTestServer } from "../server";
import { waitUntil } from "../../wait-until";
import type { LooseDocument } from "../test-support";
import { FIXTURES_MISSING, OPLOG_FIXTURES, parseTyped, readFixtureEntries, startReplicaSetWithClient, stopWithClient } from "./test-support";

type Document = Record<string, unknown>;

const CLOCK_FIELDS = new Set(["ts", "t", "v", "wall", "h"]);

function describeType(value: unknown): string {
  const tag = (value as { _bsontype?: string; sub_type?: number })?._bsontype;
  if (tag === "Binary") return `Binary(${(value as { sub_type: number }).sub_type})`;
  return tag ?? (value instanceof Date ? "Date" : typeof value);
}

/** The entry without its clock fields, values that differ by nature replaced by their type. */
function operationPart(entry: Document): string {
  const copy: Document = Object.fromEntries(Object.entries(entry).filter(([key]) => !CLOCK_FIELDS.has(key)));
  if (copy.ui !== undefined) copy.ui = `<${describeType(copy.ui)}>`;
  if (copy.txnNumber !== undefined) copy.txnNumber = `<${describeType(copy.txnNumber)}>`;
  if (copy.lsid !== undefined) {
    const lsid = copy.lsid as Document;
    copy.lsid = { ...lsid, id: `<${describeType(lsid.id)}>` };
  }
  const o = copy.o as Document;
  if (o?.indexBuildUUID !== undefined) copy.o = { ...o, indexBuildUUID: `<${describeType(o.indexBuildUUID)}>` };
  return EJSON.stringify(copy, { relaxed: false });
}

function describeClock(entry: Document): string[] {
  return Object.keys(entry)
    .filter((key) => CLOCK_FIELDS.has(key))
    .map((key) => `${key}:${describeType(entry[key])}${key === "v" ? `=${String(entry[key])}` : ""}`);
}

const fixture = (path: string, index: number): Document => readFixtureEntries(join(OPLOG_FIXTURES!, "mongorestore/testdata", path))[index]!;

let server: MongoTestServer;
let client: MongoClient;
beforeAll(async () => ({ server, client } = await startReplicaSetWithClient()));
afterAll(() => stopWithClient({ server, client }));

/** Runs `write` and returns the oplog entries it produced, types kept. */
async function entriesOf(write: () => Promise<unknown>): Promise<Document[]> {
  const before = server.replicaSet!.oplog.lastPosition;
  await write();
  return server.replicaSet!.oplog.readAfter(before).map((entry) => parseTyped(entry.raw));
}

const oplogView = () => client.db("local").collection<LooseDocument>("oplog.rs");

describe.skipIf(OPLOG_FIXTURES === undefined)(`entries compared with real ones${OPLOG_FIXTURES ? "" : ` (skipped: ${FIXTURES_MISSING})`}`, () => {
  test("create, createIndexes on an empty collection and a retryable insert match a 2026 mongod's entries, clock fields included", async () => {
    const db = client.db("mongodump_test_db");
    const validator = { $jsonSchema: { bsonType: "object", title: "Test validator", properties: { testField: { enum: ["valid"] } } } };
    const [create] = await entriesOf(() => db.createCollection("coll1", { validator }));
    const [insert] = await entriesOf(() =>
      db.collection<LooseDocument>("coll1").insertOne({ _id: new ObjectId("69971dae4522979744225826"), testField: "valid" }),
    );
    const [index] = await entriesOf(() => db.collection<LooseDocument>("coll1").createIndex({ c: 1 }, { name: "c_1", expireAfterSeconds: 100000 }));
    const realCreate = fixture("oplogs/bson/bypassDocumentValidation.bson", 1);
    const realInsert = fixture("oplogs/bson/bypassDocumentValidation.bson", 2);
    expect(operationPart(create!)).toBe(operationPart(realCreate));
    expect(operationPart(insert!)).toBe(operationPart(realInsert));
    // The collection holds a document now, so mongod would build this index in two phases; the
    // single-entry form is checked on an empty collection below.
    expect((index!.o as Document).startIndexBuild).toBe("coll1");
    for (const [ours, real] of [
      [create, realCreate],
      [insert, realInsert],
    ] as const)
      expect(describeClock(ours!)).toEqual(describeClock(real));

    const [emptyIndex] = await entriesOf(async () => {
      await db.createCollection("coll2");
      await db.collection<LooseDocument>("coll2").createIndex({ c: 1 }, { name: "c_1", expireAfterSeconds: 100000 });
    }).then((entries) => entries.slice(1));
    const realIndex = fixture("oplogs/bson/collMod_indexUniqueness.bson", 3);
    expect(operationPart({ ...emptyIndex!, o: { ...(emptyIndex!.o as Document), createIndexes: "coll1" } })).toBe(operationPart(realIndex));
    expect(describeClock(emptyIndex!)).toEqual(describeClock(realIndex));
  });

  test("createIndexes, a two-phase index build, dropIndexes, drop and dropDatabase match the fixtures' entries", async () => {
    const db = client.db("test");
    await db.createCollection("foo");
    const [created] = await entriesOf(() => db.command({ createIndexes: "foo", indexes: [{ key: { f: new Double(1) }, name: "f_1" }] }));
    expect(operationPart(created!)).toBe(operationPart(fixture("oplogs/bson/create_index.bson", 0)));
    const [dropped] = await entriesOf(() => db.collection<LooseDocument>("foo").dropIndex("f_1"));
    expect(operationPart(dropped!)).toBe(operationPart(fixture("oplogs/bson/drop_index.bson", 0)));

    await db.collection<LooseDocument>("foo").insertOne({ _id: 1 });
    const build = await entriesOf(() => db.command({ createIndexes: "foo", indexes: [{ key: { a: new Double(1) }, name: "a_1" }] }));
    expect(build.map(operationPart)).toEqual([0, 1].map((i) => operationPart(fixture("oplogs/bson/commit_index.bson", i))));
    expect(String((build[0]!.o as Document).indexBuildUUID)).toBe(String((build[1]!.o as Document).indexBuildUUID));

    const [drop] = await entriesOf(() => db.collection<LooseDocument>("foo").drop());
    expect(operationPart(drop!)).toBe(operationPart(fixture("oplogs/bson/drop_collection.bson", 0)));

    await db.collection<LooseDocument>("bar").insertOne({ _id: 1 });
    const dropDatabase = await entriesOf(() => db.dropDatabase());
    // mongod drops the collections first, each as a drop entry, then records the database's drop.
    expect(dropDatabase.map((entry) => Object.keys(entry.o as Document)[0])).toEqual(["drop", "dropDatabase"]);
    expect(operationPart(dropDatabase[1]!)).toBe(operationPart(fixture("oplogs/bson/drop_db.bson", 0)));
  });

  test("a delete matches a real delete entry; a step-down's no-op matches a real no-op", async () => {
    const db = client.db("config_like");
    const sessions = db.collection<{ _id: { id: number } }>("sessions");
    await sessions.insertOne({ _id: { id: 1 } });
    const [deleted] = await entriesOf(() => sessions.deleteOne({ _id: { id: 1 } }));
    const realDelete = fixture("oplog_partial_skips/oplog.bson", 10);
    expect(realDelete.op).toBe("d");
    // The real one was not a retryable write; the shape after the session fields is the same.
    const { lsid: _lsid, txnNumber: _txn, stmtId: _stmt, prevOpTime: _prev, ...plain } = deleted!;
    expect(Object.keys(plain).filter((key) => !CLOCK_FIELDS.has(key))).toEqual(Object.keys(realDelete).filter((key) => !CLOCK_FIELDS.has(key)));
    expect(EJSON.stringify(plain.o, { relaxed: false })).toBe(EJSON.stringify({ _id: { id: new Int32(1) } }, { relaxed: false }));

    const before = server.replicaSet!.oplog.lastPosition;
    await client.db("admin").command({ replSetStepDown: 60, force: true });
    // The member is elected again a moment later; the new primary's no-op comes then.
    const noop = await waitUntil(() => server.replicaSet!.oplog.readAfter(before).map((entry) => parseTyped(entry.raw))[0], {
      message: "the new primary's no-op",
    });
    const realNoop = fixture("oplogs/bson/bypassDocumentValidation.bson", 0);
    expect(operationPart({ ...noop, o: { msg: "periodic noop" } })).toBe(operationPart(realNoop));
    expect(describeClock(noop)).toEqual(describeClock(realNoop));
    expect(noop.o).toEqual({ msg: "new primary" });
  });
});

describe("entries without a real fixture: updates as $v: 2 diffs, renames", () => {
  let copy: MongoTestServer;
  let copyClient: MongoClient;
  beforeAll(async () => {
    copy = await startMongoTestServer();
    copyClient = await new MongoClient(copy.uri, { serverSelectionTimeoutMS: 5000 }).connect();
  });
  afterAll(async () => {
    await copyClient.close();
    await copy.stop();
  });

  const update = async (db: Db, change: Document): Promise<Document> => {
    const [entry] = await entriesOf(() => db.collection<LooseDocument>("docs").updateOne({ _id: 1 }, change));
    return entry!;
  };

  test("each operator gives the diff mongod writes, and replaying the entries gives the same documents", async () => {
    const db = client.db("diffs");
    // The first insert creates the collection: a create entry, then the insert.
    const entries = await entriesOf(() => db.collection<LooseDocument>("docs").insertOne({ _id: 1, a: 1, b: { c: 1, d: 2 }, list: [1, 2, 3], gone: true }));
    expect(entries.map((entry) => entry.op)).toEqual(["c", "i"]);
    const expectations: [Document, Document][] = [
      [{ $set: { a: 2 } }, { u: { a: new Int32(2) } }],
      [{ $unset: { gone: "" } }, { d: { gone: false } }],
      [{ $set: { added: "x" } }, { i: { added: "x" } }],
      [{ $inc: { "b.c": 5 } }, { sb: { u: { c: new Int32(6) } } }],
      [{ $set: { "b.e": 1 } }, { sb: { i: { e: new Int32(1) } } }],
      [{ $push: { list: 4 } }, { slist: { a: true, u3: new Int32(4) } }],
      [{ $set: { "list.0": 9 } }, { slist: { a: true, u0: new Int32(9) } }],
      [{ $set: { list: [9] } }, { slist: { a: true, l: new Int32(1) } }],
      [
        { $set: { a: "text", n: Long.fromNumber(1) }, $unset: { added: "" } },
        { d: { added: false }, u: { a: "text" }, i: { n: Long.fromNumber(1) } },
      ],
    ];
    for (const [change, diff] of expectations) {
      const entry = await update(db, change);
      expect(EJSON.stringify(entry.o, { relaxed: false })).toBe(EJSON.stringify({ $v: new Int32(2), diff }, { relaxed: false }));
      expect(Object.keys(entry).filter((key) => !["lsid", "txnNumber", "stmtId", "prevOpTime"].includes(key))).toEqual([
        "op",
        "ns",
        "ui",
        "o",
        "o2",
        "ts",
        "t",
        "v",
        "wall",
      ]);
      entries.push(entry);
    }
    const [replacement] = await entriesOf(() => db.collection<LooseDocument>("docs").replaceOne({ _id: 1 }, { whole: "new" }));
    expect(EJSON.stringify(replacement!.o, { relaxed: false })).toBe(EJSON.stringify({ _id: new Int32(1), whole: "new" }, { relaxed: false }));
    entries.push(replacement!);

    // Applied as a secondary would (applyOps), the entries rebuild the document byte for byte.
    const ops = entries.map(({ lsid: _l, txnNumber: _t, stmtId: _s, prevOpTime: _p, ...op }) => op);
    for (const op of ops) await copyClient.db("admin").command({ applyOps: [op] });
    const read = async (target: Db) =>
      ((await target.collection<LooseDocument>("docs").find({}, { raw: true }).toArray()) as unknown as Uint8Array[]).map((raw) =>
        Buffer.from(raw).toString("base64"),
      );
    expect(await read(copyClient.db("diffs"))).toEqual(await read(db));
    expect(await oplogView().countDocuments({ ns: "diffs.docs", op: "u" })).toBe(expectations.length + 1);
  });

  test("renameCollection is a c entry on the source database (no real fixture: mongod's documented shape); applied, it renames", async () => {
    const db = client.db("renames");
    await db.collection<LooseDocument>("a").insertOne({ _id: 1 });
    await db.collection<LooseDocument>("b").insertOne({ _id: 2 });
    const [rename] = await entriesOf(() => client.db("admin").command({ renameCollection: "renames.a", to: "renames.b", dropTarget: true }));
    expect(Object.keys(rename!).filter((key) => !CLOCK_FIELDS.has(key))).toEqual(["op", "ns", "ui", "o", "o2"]);
    expect(rename!.ns).toBe("renames.$cmd");
    expect(Object.keys(rename!.o as Document)).toEqual(["renameCollection", "to", "dropTarget", "stayTemp"]);
    expect(rename!.o2).toEqual({ numRecords: new Int32(1) });

    await copyClient.db("renames").collection<LooseDocument>("a").insertOne({ _id: 1 });
    const { ts: _ts, t: _t, v: _v, wall: _wall, ...op } = rename!;
    await copyClient.db("admin").command({ applyOps: [op] });
    expect(
      await copyClient
        .db("renames")
        .listCollections()
        .toArray()
        .then((infos) => infos.map((info) => info.name)),
    ).toEqual(["b"]);
  });
});

test("an idle primary writes mongod's periodic no-op each interval, and none while it is written to", async () => {
  if (!OPLOG_FIXTURES) return console.warn(FIXTURES_MISSING);
  const idle = await startReplicaSetWithClient({ periodicNoopIntervalMs: 300 });
  try {
    const oplog = idle.server.replicaSet!.oplog;
    const noops = () =>
      oplog
        .readAll()
        .map((entry) => parseTyped(entry.raw))
        .filter((entry) => (entry.o as Document | undefined)?.msg === "periodic noop");
    const [noop] = await waitUntil(() => (noops().length > 0 ? noops() : undefined), { message: "a periodic no-op", timeout: 5_000 });
    expect(operationPart(noop!)).toBe(operationPart(fixture("create_indexes/oplog.bson", 0)));
    // Written to more often than the interval: the oplog moves anyway, no no-op is added.
    const before = noops().length;
    const until = Date.now() + 1_500;
    while (Date.now() < until) await idle.client.db("busy").collection("docs").insertOne({ at: Date.now() });
    expect(noops().length).toBeLessThanOrEqual(before + 1); // one may fall due just before the first write
  } finally {
    await stopWithClient(idle);
  }
});
