// Collections and indexes as a dump records them and a restore recreates them: options, UUIDs,
// index specs, and the errors conflicting definitions get.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Double, Int32, Long } from "bson";
import type { Db } from "mongodb";
import { type LooseDocument, type TestConnection, createDatabaseName, openTestConnection } from "./test-support";

let connection: TestConnection;
let db: Db;
beforeAll(async () => {
  connection = await openTestConnection();
  db = connection.client.db(createDatabaseName("collections"));
});
afterAll(async () => {
  await db.dropDatabase();
  await connection.close();
});

// Options come back with their BSON types intact, so compare them without type promotion.
async function readCollectionInfo(name: string) {
  const [info] = await db.listCollections({ name }, { promoteValues: false }).toArray();
  return info as Record<string, any>;
}

describe("collections", () => {
  test("create keeps capped, validator and collation options, returned by listCollections", async () => {
    await db.createCollection("capped", { capped: true, size: 8192, max: 100 });
    await db.createCollection("validated", {
      validator: { $jsonSchema: { bsonType: "object", required: ["email"] } },
      validationLevel: "moderate",
      validationAction: "warn",
      collation: { locale: "fr", strength: 2 },
    });
    const capped = await readCollectionInfo("capped");
    expect(capped.type).toBe("collection");
    expect(capped.options).toEqual({ capped: true, size: new Int32(8192), max: new Int32(100) });
    expect(capped.idIndex).toMatchObject({ name: "_id_" });
    const validated = await readCollectionInfo("validated");
    expect(validated.options.validator).toEqual({ $jsonSchema: { bsonType: "object", required: ["email"] } });
    expect(validated.options).toMatchObject({ validationLevel: "moderate", validationAction: "warn" });
    expect(validated.options.collation.locale).toBe("fr");
  });

  test("each collection has its own UUID, the same on every listing, and a new one once recreated", async () => {
    await db.createCollection("uuid-a");
    await db.createCollection("uuid-b");
    const first = await readCollectionInfo("uuid-a");
    const again = await readCollectionInfo("uuid-a");
    const other = await readCollectionInfo("uuid-b");
    expect(first.info.uuid.toHexString()).toBe(again.info.uuid.toHexString());
    expect(first.info.uuid.toHexString()).not.toBe(other.info.uuid.toHexString());
    expect(first.info.readOnly).toBe(false);
    await db.collection<LooseDocument>("uuid-a").drop();
    await db.createCollection("uuid-a");
    expect((await readCollectionInfo("uuid-a")).info.uuid.toHexString()).not.toBe(first.info.uuid.toHexString());
  });

  test("listCollections filters by name and answers nameOnly with name and type", async () => {
    await db.createCollection("filter-me");
    await db.createCollection("a-view", { viewOn: "filter-me", pipeline: [{ $match: { shown: true } }] });
    expect(await db.listCollections({ name: "filter-me" }, { nameOnly: true }).toArray()).toEqual([{ name: "filter-me", type: "collection" }]);
    const view = await readCollectionInfo("a-view");
    expect(view).toMatchObject({
      name: "a-view",
      type: "view",
      options: { viewOn: "filter-me", pipeline: [{ $match: { shown: true } }] },
      info: { readOnly: true },
    });
    expect(view.idIndex).toBeUndefined();
    const views = await db.listCollections({ type: "view" }).toArray();
    expect(views.map((entry) => entry.name)).toEqual(["a-view"]);
  });

  test("creating an existing collection with other options fails with NamespaceExists", async () => {
    await db.createCollection("exists");
    const failure = await db.createCollection("exists", { capped: true, size: 4096 }).catch((error) => error);
    expect(failure.code).toBe(48);
    expect(failure.codeName).toBe("NamespaceExists");
  });

  test("names with dots and unicode work, empty collections are listed, bad names are refused", async () => {
    const dotted = "orders.2024.archive";
    const unicode = "données-日本-🚀";
    await db.collection<LooseDocument>(dotted).insertOne({ n: 1 });
    await db.createCollection(unicode);
    const unicodeDb = connection.client.db(createDatabaseName("ünï"));
    await unicodeDb.collection("x.y").insertOne({ ok: true });
    const names = (await db.listCollections({}, { nameOnly: true }).toArray()).map((entry) => entry.name);
    expect(names).toContain(dotted);
    expect(names).toContain(unicode);
    expect(await db.collection<LooseDocument>(unicode).countDocuments()).toBe(0);
    expect(await db.collection<LooseDocument>(dotted).findOne<object>({}, { projection: { _id: 0 } })).toEqual({ n: 1 });
    expect(await unicodeDb.collection("x.y").countDocuments()).toBe(1);
    await unicodeDb.dropDatabase();
    const bad = await db.createCollection("has$dollar").catch((error) => error);
    expect(bad.code).toBe(73);
  });

  test("drop removes one collection; dropDatabase removes them all", async () => {
    const scratch = connection.client.db(createDatabaseName("drop"));
    await scratch.collection("a").insertOne({});
    await scratch.collection("b").insertOne({});
    expect(await scratch.collection("a").drop()).toBe(true);
    expect((await scratch.listCollections().toArray()).map((entry) => entry.name)).toEqual(["b"]);
    await scratch.dropDatabase();
    expect(await scratch.listCollections().toArray()).toEqual([]);
    expect(await scratch.collection("b").countDocuments()).toBe(0);
  });

  test("dbStats and $collStats report document counts and data sizes", async () => {
    const scratch = connection.client.db(createDatabaseName("stats"));
    await scratch.collection<LooseDocument>("sized").insertMany(Array.from({ length: 10 }, (_, i) => ({ i, pad: "x".repeat(100) })));
    const stats = await scratch.stats();
    expect(stats).toMatchObject({ db: scratch.databaseName, collections: 1, objects: 10 });
    expect(stats.dataSize).toBeGreaterThan(1000);
    const [collStats] = await scratch
      .collection("sized")
      .aggregate([{ $collStats: { count: {}, storageStats: {} } }])
      .toArray();
    expect(collStats!.count).toBe(10);
    expect(collStats!.storageStats).toMatchObject({ count: 10, nindexes: 1 });
    expect(collStats!.storageStats.size).toBe(stats.dataSize);
    await scratch.dropDatabase();
  });

  test("a capped collection keeps only its newest documents", async () => {
    await db.createCollection("ring", { capped: true, size: 100_000, max: 3 });
    await db.collection<LooseDocument>("ring").insertMany([1, 2, 3, 4, 5].map((n) => ({ n })));
    expect((await db.collection<LooseDocument>("ring").find().toArray()).map((doc) => doc.n)).toEqual([3, 4, 5]);
  });
});

describe("indexes", () => {
  test("createIndexes keeps unique, TTL, compound, sparse, partial and custom names; listIndexes returns them", async () => {
    const collection = db.collection<LooseDocument>("indexed");
    await collection.createIndexes([
      { key: { email: 1 }, name: "email_unique", unique: true },
      { key: { createdAt: 1 }, expireAfterSeconds: 3600 },
      { key: { tenant: 1, createdAt: -1 } },
      { key: { nickname: 1 }, sparse: true },
      { key: { score: -1 }, partialFilterExpression: { score: { $gt: 10 } } },
    ]);
    const indexes = await collection.listIndexes({ promoteValues: false } as never).toArray();
    expect(indexes.map((index) => index.name)).toEqual(["_id_", "email_unique", "createdAt_1", "tenant_1_createdAt_-1", "nickname_1", "score_-1"]);
    const byName = Object.fromEntries(indexes.map((index) => [index.name, index]));
    expect(byName._id_).toEqual({ v: new Int32(2), key: { _id: new Int32(1) }, name: "_id_" });
    expect(byName.email_unique).toMatchObject({ v: new Int32(2), unique: true });
    expect(byName.createdAt_1!.expireAfterSeconds).toEqual(new Int32(3600));
    expect(Object.keys(byName["tenant_1_createdAt_-1"]!.key)).toEqual(["tenant", "createdAt"]);
    expect(byName.nickname_1!.sparse).toBe(true);
    expect(byName["score_-1"]!.partialFilterExpression).toEqual({ score: { $gt: new Int32(10) } });
  });

  test("repeating an index is a no-op; reusing its name for another key is IndexKeySpecsConflict", async () => {
    const collection = db.collection<LooseDocument>("indexed-again");
    await collection.createIndex({ a: 1 }, { name: "mine" });
    const again = await db.command({ createIndexes: "indexed-again", indexes: [{ key: { a: 1 }, name: "mine" }] });
    expect(again.note).toBe("all indexes already exist");
    expect(again.numIndexesAfter).toBe(2);
    const clash = await collection.createIndex({ b: 1 }, { name: "mine" }).catch((error) => error);
    expect(clash.code).toBe(86);
    const sameKey = await collection.createIndex({ a: 1 }, { name: "other" }).catch((error) => error);
    expect(sameKey.code).toBe(85);
  });

  test("dropIndexes removes named indexes but never _id_", async () => {
    const collection = db.collection<LooseDocument>("indexed-drop");
    await collection.createIndex({ a: 1 });
    await collection.createIndex({ b: 1 });
    await collection.dropIndex("a_1");
    expect((await collection.indexes()).map((index) => index.name)).toEqual(["_id_", "b_1"]);
    expect((await collection.dropIndex("_id_").catch((error) => error)).code).toBe(72);
    await collection.dropIndexes();
    expect((await collection.indexes()).map((index) => index.name)).toEqual(["_id_"]);
  });

  test("listIndexes on a missing collection fails with NamespaceNotFound", async () => {
    const failure = await db.command({ listIndexes: "nope" }).catch((error) => error);
    expect(failure.code).toBe(26);
  });

  test("numeric types inside index specs survive: a Double key and a Long in a partial filter", async () => {
    await db.command({
      createIndexes: "typed",
      indexes: [
        { key: { a: 1 }, name: "long_filter", partialFilterExpression: { a: { $gt: Long.fromNumber(5) } } },
        { key: { b: new Double(1) }, name: "double_key" },
      ],
    });
    const indexes = await db
      .collection<LooseDocument>("typed")
      .listIndexes({ promoteValues: false } as never)
      .toArray();
    expect(indexes[1]!.partialFilterExpression).toEqual({ a: { $gt: Long.fromNumber(5) } });
    expect(indexes[2]!.key.b).toEqual(new Double(1));
  });
});

describe("renameCollection", () => {
  const rename = (from: string, to: string, dropTarget = false) =>
    connection.client.db("admin").command({ renameCollection: `${db.databaseName}.${from}`, to: `${db.databaseName}.${to}`, dropTarget });

  test("moves documents, indexes and options under the new name, replacing the target with dropTarget", async () => {
    await db.createCollection("staged", { collation: { locale: "en", strength: 2 } });
    await db.collection<LooseDocument>("staged").insertMany([
      { _id: 1, a: "new" },
      { _id: 2, a: "newer" },
    ]);
    await db.collection("staged").createIndex({ a: 1 }, { unique: true });
    await db.collection<LooseDocument>("live").insertOne({ _id: 1, a: "old" });
    expect((await rename("staged", "live").catch((error) => error)).code).toBe(48);
    await rename("staged", "live", true);
    expect(await db.collection<LooseDocument>("live").find().toArray()).toEqual([
      { _id: 1, a: "new" },
      { _id: 2, a: "newer" },
    ]);
    expect((await db.collection("live").indexes()).map((index) => index.name)).toEqual(["_id_", "a_1"]);
    expect((await readCollectionInfo("live")).options).toEqual({ collation: expect.objectContaining({ locale: "en" }) });
    expect(await readCollectionInfo("staged")).toBeUndefined();
  });

  test("a missing source is NamespaceNotFound, a view cannot be renamed, and only admin runs it", async () => {
    expect((await rename("no-such", "anything").catch((error) => error)).code).toBe(26);
    await db.createCollection("rename-view-source");
    await db.createCollection("rename-view", { viewOn: "rename-view-source", pipeline: [] });
    expect((await rename("rename-view", "other-view").catch((error) => error)).code).toBe(166);
    const notAdmin = await db.command({ renameCollection: `${db.databaseName}.rename-view-source`, to: `${db.databaseName}.x` }).catch((error) => error);
    expect(notAdmin.code).toBe(13);
  });
});
