// The real oplog fixtures (testkit/fixtures/mongo-oplogs: entries written by real mongod
// servers) as test cases: each file's entries, the database they are of, the dump they are
// replayed on and what must hold afterwards. The expected results are the fixtures' own: the
// transaction cases' `postimage`, and for the others what mongo-tools' own tests
// (mongorestore/oplog_test.go, mongorestore_test.go at the same commit) assert after replaying
// them onto the same base dumps, rebuilt here from those tests' testdata. Shared by whatever
// replays them: the real mongorestore --oplogReplay into the test server, the agent's applier.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "bun:test";
import { Double, EJSON, Int32, ObjectId } from "bson";
import type { MongoClient } from "mongodb";
import { encodeExtendedJson, OPLOG_FIXTURES, parseTyped } from "./test-support";

const fixtures = OPLOG_FIXTURES ?? "";

type Document = Record<string, unknown>;
/** A dump the oplog is replayed on top of: one collection, its documents and index specs. */
export type Base = { db: string; collection: string; documents: Document[]; indexes: Document[] };
/**
 * Where the replay went: `where` names the collection a source collection was applied to (a
 * restore's staging collection), the source collection itself when absent.
 */
export type Replayed = { client: MongoClient; where?: (db: string, collection: string) => { db: string; name: string } };
/** One fixture: its entries (concatenated BSON), the database they are of, the dump they apply to. */
export type Case = { name: string; db: string; oplog: () => Buffer; base?: Base; check: (replayed: Replayed) => Promise<void> };

const ID_INDEX = { v: new Int32(2), key: { _id: new Int32(1) }, name: "_id_" };
// mongo-tools' testdata/coll_with_index, coll_with_ttl_index and coll_without_index: test.foo
// holding one document, with an f_1 index, a TTL f_1 index, or none.
const FOO_DOCUMENT = { _id: new ObjectId("605c74db479d533a6e39d860"), f: new Double(1) };
const F_INDEX = { v: new Int32(2), key: { f: new Double(1) }, name: "f_1" };
const fooWith = (indexes: Document[]): Base => ({ db: "test", collection: "foo", documents: [FOO_DOCUMENT], indexes: [ID_INDEX, ...indexes] });
const COLL_WITH_INDEX = fooWith([F_INDEX]);
const COLL_WITH_TTL_INDEX = fooWith([{ ...F_INDEX, expireAfterSeconds: new Int32(1000) }]);
const COLL_WITHOUT_INDEX = fooWith([]);
// testdata/collMod_ttl_index's dump: mongodump_test_db.coll1 with a TTL index on a.
const COLL1_WITH_TTL_INDEX: Base = {
  db: "mongodump_test_db",
  collection: "coll1",
  documents: [],
  indexes: [ID_INDEX, { v: new Int32(2), key: { a: new Int32(1) }, name: "a_1", expireAfterSeconds: new Int32(1000) }],
};

const bsonFile = (path: string) => () => readFileSync(join(fixtures, "mongorestore/testdata", path));
const jsonLines = (path: string) => () =>
  encodeExtendedJson(
    readFileSync(join(fixtures, "mongorestore/testdata", path), "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line)),
  );
const jsonArray = (path: string) => () => encodeExtendedJson(JSON.parse(readFileSync(join(fixtures, "mongorestore/testdata", path), "utf8")));

function collectionOf({ client, where }: Replayed, db: string, collection: string) {
  const located = where ? where(db, collection) : { db, name: collection };
  return client.db(located.db).collection(located.name);
}

async function indexesOf(r: Replayed, db: string, collection: string): Promise<Document[]> {
  return collectionOf(r, db, collection)
    .listIndexes({ promoteValues: false } as never)
    .toArray()
    .catch(() => []);
}

async function countOf(r: Replayed, db: string, collection: string): Promise<number> {
  return collectionOf(r, db, collection).countDocuments();
}

/** The collection's documents by `_id`, as canonical extended JSON (types visible). */
async function contentsOf(r: Replayed, db: string, collection: string): Promise<string[]> {
  const raw = (await collectionOf(r, db, collection)
    .find({}, { raw: true, sort: { _id: 1 } })
    .toArray()) as unknown as Uint8Array[];
  return raw.map((bytes) => EJSON.stringify(parseTyped(bytes), { relaxed: false }));
}

const canonical = (documents: unknown[]) =>
  documents.map((document) => EJSON.stringify(EJSON.deserialize(document as Document, { relaxed: false }), { relaxed: false }));

function expectIndexNames(indexes: Document[], names: string[]): void {
  expect(indexes.map((index) => index.name).sort()).toEqual([...names].sort());
}

const indexNamed = (indexes: Document[], name: string) => indexes.find((index) => index.name === name)!;

export const replayCases: Case[] = [
  {
    name: "oplogs/bson/drop_index.bson: the dropped index is gone, the document stays",
    db: "test",
    oplog: bsonFile("oplogs/bson/drop_index.bson"),
    base: COLL_WITH_INDEX,
    check: async (r) => {
      expect(await countOf(r, "test", "foo")).toBe(1);
      expectIndexNames(await indexesOf(r, "test", "foo"), ["_id_"]);
    },
  },
  {
    name: "oplogs/bson/drop_collection.bson: the collection and its indexes are gone",
    db: "test",
    oplog: bsonFile("oplogs/bson/drop_collection.bson"),
    base: COLL_WITH_INDEX,
    check: async (r) => {
      expect(await countOf(r, "test", "foo")).toBe(0);
      expect(await indexesOf(r, "test", "foo")).toEqual([]);
    },
  },
  {
    name: "oplogs/bson/drop_db.bson: the database is gone",
    db: "test",
    oplog: bsonFile("oplogs/bson/drop_db.bson"),
    base: COLL_WITH_INDEX,
    check: async (r) => {
      expect(await countOf(r, "test", "foo")).toBe(0);
      expect(await indexesOf(r, "test", "foo")).toEqual([]);
    },
  },
  {
    name: "oplogs/bson/create_index.bson: the index is created",
    db: "test",
    oplog: bsonFile("oplogs/bson/create_index.bson"),
    base: COLL_WITH_TTL_INDEX,
    check: async (r) => {
      expect(await countOf(r, "test", "foo")).toBe(1);
      expectIndexNames(await indexesOf(r, "test", "foo"), ["_id_", "f_1"]);
    },
  },
  {
    name: "oplogs/bson/collMod.bson: the TTL index's expiry becomes 3600",
    db: "test",
    oplog: bsonFile("oplogs/bson/collMod.bson"),
    base: COLL_WITH_TTL_INDEX,
    check: async (r) => {
      expect(await countOf(r, "test", "foo")).toBe(1);
      expect(Number(indexNamed(await indexesOf(r, "test", "foo"), "f_1").expireAfterSeconds)).toBe(3600);
    },
  },
  {
    name: "oplogs/bson/collMod_with_hidden.bson: the index is hidden with expiry 3600",
    db: "test",
    oplog: bsonFile("oplogs/bson/collMod_with_hidden.bson"),
    base: COLL_WITH_TTL_INDEX,
    check: async (r) => {
      const index = indexNamed(await indexesOf(r, "test", "foo"), "f_1");
      expect(Number(index.expireAfterSeconds)).toBe(3600);
      expect(index.hidden).toBe(true);
    },
  },
  {
    name: "oplogs/bson/commit_index.bson: a committed two-phase build creates its index",
    db: "test",
    oplog: bsonFile("oplogs/bson/commit_index.bson"),
    check: async (r) => expectIndexNames(await indexesOf(r, "test", "foo"), ["_id_", "a_1"]),
  },
  {
    name: "oplogs/bson/vectored_insert.bson: a vectored insert's documents, exactly",
    db: "mongodump_test_db",
    oplog: bsonFile("oplogs/bson/vectored_insert.bson"),
    base: COLL_WITHOUT_INDEX,
    check: async (r) =>
      expect(await contentsOf(r, "mongodump_test_db", "coll1")).toEqual(
        canonical([
          { _id: 100, a: 1 },
          { _id: 200, a: 2 },
        ]),
      ),
  },
  {
    name: "oplogs/bson/linked_vectored_inserts.bson: both linked batches, exactly",
    db: "mongodump_test_db",
    oplog: bsonFile("oplogs/bson/linked_vectored_inserts.bson"),
    base: COLL_WITHOUT_INDEX,
    check: async (r) =>
      expect(await contentsOf(r, "mongodump_test_db", "coll1")).toEqual(canonical([300, 400, 500, 600, 700].map((id) => ({ _id: id, a: id / 100 })))),
  },
  {
    name: "oplogs/bson/bypassDocumentValidation.bson: all three documents, the invalid ones too",
    db: "mongodump_test_db",
    oplog: bsonFile("oplogs/bson/bypassDocumentValidation.bson"),
    base: COLL_WITHOUT_INDEX,
    check: async (r) => expect(await countOf(r, "mongodump_test_db", "coll1")).toBe(3),
  },
  {
    name: "oplogs/bson/collMod_indexUniqueness.bson: five indexes, every secondary one prepareUnique",
    db: "mongodump_test_db",
    oplog: bsonFile("oplogs/bson/collMod_indexUniqueness.bson"),
    base: COLL_WITHOUT_INDEX,
    check: async (r) => {
      const indexes = await indexesOf(r, "mongodump_test_db", "coll1");
      expect(indexes).toHaveLength(5);
      for (const index of indexes.filter((candidate) => candidate.name !== "_id_")) expect(index.prepareUnique).toBe(true);
    },
  },
  {
    name: "collMod_ttl_index/oplog.bson: two indexes, the TTL one at 1000 seconds",
    db: "mongodump_test_db",
    oplog: bsonFile("collMod_ttl_index/oplog.bson"),
    base: COLL1_WITH_TTL_INDEX,
    check: async (r) => {
      const indexes = await indexesOf(r, "mongodump_test_db", "coll1");
      expect(indexes).toHaveLength(2);
      expect(Number(indexNamed(indexes, "a_1").expireAfterSeconds)).toBe(1000);
    },
  },
  {
    name: "commit_indexes_build/oplog.bson: three indexes (a_1 and the partial b_1) and the document",
    db: "commit_index",
    oplog: bsonFile("commit_indexes_build/oplog.bson"),
    check: async (r) => {
      expectIndexNames(await indexesOf(r, "commit_index", "test"), ["_id_", "a_1", "b_1"]);
      expect(await countOf(r, "commit_index", "test")).toBe(1);
    },
  },
  {
    name: "create_indexes/oplog.bson: three indexes",
    db: "create_indexes",
    oplog: bsonFile("create_indexes/oplog.bson"),
    check: async (r) => expectIndexNames(await indexesOf(r, "create_indexes", "test"), ["_id_", "a_1", "b_1"]),
  },
  {
    name: "dump_with_noop_in_oplog/oplog.bson: the no-ops skipped, the insert applied",
    db: "test",
    oplog: bsonFile("dump_with_noop_in_oplog/oplog.bson"),
    check: async (r) =>
      expect(await contentsOf(r, "test", "data")).toEqual(canonical([{ _id: { $oid: "5473b75c8e32da600b686ed7" }, a: { $numberDouble: "1.0" } }])),
  },
  {
    name: "oplog_partial_skips/oplog.bson: db3.c1's five inserts, no session or cache entry reaches the oplog",
    db: "db3",
    oplog: bsonFile("oplog_partial_skips/oplog.bson"),
    check: async (r) => {
      expect(await countOf(r, "db3", "c1")).toBe(5);
      const skipped = { $or: [{ ns: { $regex: /^config\.system\.sessions/ } }, { ns: { $regex: /^config\.cache\./ } }] };
      expect(await r.client.db("local").collection("oplog.rs").countDocuments(skipped)).toBe(0);
    },
  },
  {
    name: "oplogs/oplog.json: the mixed sequence ends with test2.foo and its f_1 index, test2.bar dropped",
    db: "test2",
    oplog: jsonLines("oplogs/oplog.json"),
    check: async (r) => {
      expectIndexNames(await indexesOf(r, "test2", "foo"), ["_id_", "f_1"]);
      const foo = r.where ? r.where("test2", "foo") : { db: "test2", name: "foo" };
      const names = (await r.client.db(foo.db).listCollections().toArray()).map((info) => info.name);
      expect(names.filter((name) => !name.startsWith("system."))).toEqual([foo.name]);
    },
  },
];

// The json/ files are the bson/ ones as extended JSON: replayed too, with their twin's check.
export const jsonTwins: Case[] = replayCases
  .filter(
    (candidate) =>
      candidate.name.startsWith("oplogs/bson/") && !candidate.name.includes("bypassDocumentValidation") && !candidate.name.includes("collMod_indexUniqueness"),
  )
  .map((twin) => {
    const file = twin.name
      .slice("oplogs/bson/".length)
      .split(":")[0]!
      .replace(/\.bson$/, ".json");
    const isArray = file === "linked_vectored_inserts.json";
    return { ...twin, name: `oplogs/json/${file}: as its bson twin`, oplog: isArray ? jsonArray(`oplogs/json/${file}`) : jsonLines(`oplogs/json/${file}`) };
  });

type TransactionCase = { ops: unknown[]; ns: string; postimage?: unknown[] };

export function transactionCases(): Case[] {
  if (OPLOG_FIXTURES === undefined) return [];
  const cases = JSON.parse(readFileSync(join(fixtures, "common/txn/testdata/oplog_entries.json"), "utf8")) as Record<string, TransactionCase>;
  return Object.entries(cases).map(([label, { ops, ns, postimage }]) => ({
    db: postimage ? ns.slice(0, ns.indexOf(".")) : "test",
    name: `common/txn oplog_entries.json "${label}": ${postimage ? "the documented postimage" : "its documents"}`,
    oplog: () => encodeExtendedJson(ops),
    check: async (r: Replayed) => {
      if (postimage) {
        const [db, collection] = [ns.slice(0, ns.indexOf(".")), ns.slice(ns.indexOf(".") + 1)];
        expect(await contentsOf(r, db, collection)).toEqual(canonical(postimage));
      } else {
        // "not transaction with multiOpType": an applyOps of two inserts into test.foo.
        expect(await contentsOf(r, "test", "foo")).toEqual(
          canonical([
            { _id: 4, x: -20, y: 4 },
            { _id: 5, x: -30, y: 11 },
          ]),
        );
      }
    },
  }));
}

/** Every fixture file (relative to mongorestore/testdata) that some case must cover. */
export function fixtureFiles(): string[] {
  return [
    ...readdirSync(join(fixtures, "mongorestore/testdata/oplogs/bson")).map((file) => `oplogs/bson/${file}`),
    ...readdirSync(join(fixtures, "mongorestore/testdata/oplogs/json")).map((file) => `oplogs/json/${file}`),
    "oplogs/oplog.json",
    ...readdirSync(join(fixtures, "mongorestore/testdata"))
      .filter((name) => name !== "oplogs")
      .map((name) => `${name}/oplog.bson`),
  ];
}
