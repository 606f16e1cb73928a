// The test server's reason to exist: a dump (listCollections, listIndexes, raw finds) and a restore
// (create with options and idIndex, createIndexes, inserts) done with the official driver the way
// the agent's built-in dumper does, must reproduce collections, options, indexes and exact bytes.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Binary, BSON, Decimal128, Double, Int32, Long, ObjectId, Timestamp } from "bson";
import type { CollectionInfo, Db, Document } from "mongodb";
import { type LooseDocument, type TestConnection, createDatabaseName, openTestConnection } from "./test-support";

type DumpedCollection = { name: string; options: Document; indexes: Document[]; documents: Uint8Array[] };

let connection: TestConnection;
let source: Db;
let target: Db;
beforeAll(async () => {
  connection = await openTestConnection();
  source = connection.client.db(createDatabaseName("dump"));
  target = connection.client.db(createDatabaseName("restore"));
});
afterAll(async () => {
  await source.dropDatabase();
  await target.dropDatabase();
  await connection.close();
});

const typed = { promoteValues: false, promoteBuffers: false, bsonRegExp: true } as const;

async function dumpDatabase(db: Db): Promise<DumpedCollection[]> {
  const dumped: DumpedCollection[] = [];
  const infos = (await db.listCollections({ type: "collection" }, { ...typed, batchSize: 1 }).toArray()) as CollectionInfo[];
  // A real mongod lists collections in no particular order.
  infos.sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const info of infos) {
    const collection = db.collection(info.name);
    const indexes = await collection.listIndexes(typed as never).toArray();
    const documents = (await collection.find({}, { raw: true, batchSize: 50, sort: { $natural: 1 } }).toArray()) as unknown as Uint8Array[];
    dumped.push({ name: info.name, options: { ...info.options, idIndex: info.idIndex }, indexes, documents });
  }
  return dumped;
}

async function restoreDatabase(db: Db, dumped: DumpedCollection[]): Promise<void> {
  for (const collection of dumped) {
    await db.command({ create: collection.name, ...collection.options });
    const secondary = collection.indexes.filter((index) => index.name !== "_id_");
    if (secondary.length > 0) await db.command({ createIndexes: collection.name, indexes: secondary });
    const documents = collection.documents.map((raw) => BSON.deserialize(raw, typed));
    if (documents.length > 0) await db.collection(collection.name).insertMany(documents, { ordered: false });
  }
}

test("dumping and restoring through the driver reproduces options, indexes and every document's bytes", async () => {
  await source.command({ create: "events", capped: true, size: new Int32(1 << 20), max: new Int32(10_000) });
  await source.command({ create: "users", validator: { email: { $exists: true } }, collation: { locale: "en", strength: new Int32(2) } });
  await source.collection<LooseDocument>("users").createIndexes([
    { key: { email: 1 }, unique: true, name: "email_unique", collation: { locale: "en", strength: 2 } },
    { key: { lastSeen: 1 }, expireAfterSeconds: 86_400 },
  ]);
  await source.collection<LooseDocument>("users").insertMany(
    Array.from({ length: 1200 }, (_, i) => ({
      _id: new ObjectId(),
      email: `user${i}@example.com`,
      balance: Decimal128.fromString(`${i}.10`),
      visits: Long.fromNumber(i * 1_000_000_000),
      ratio: new Double(i),
      lastSeen: new Date(Date.UTC(1960, 0, 1) + i * 86_400_000),
      avatar: new Binary(Buffer.from([i % 256, 1, 2]), 0x80),
      version: new Timestamp({ t: i, i: 1 }),
    })),
  );
  await source.collection<LooseDocument>("events").insertOne({ _id: 1, kind: "boot" });
  await source.createCollection("empty");

  const dumped = await dumpDatabase(source);
  await restoreDatabase(target, dumped);
  const restored = await dumpDatabase(target);

  expect(restored.map((collection) => collection.name)).toEqual(dumped.map((collection) => collection.name));
  for (const [i, collection] of restored.entries()) {
    const original = dumped[i]!;
    expect(BSON.serialize(collection.options)).toEqual(BSON.serialize(original.options));
    expect(collection.indexes.map((index) => BSON.serialize(index))).toEqual(original.indexes.map((index) => BSON.serialize(index)));
    expect(collection.documents.map((raw) => Buffer.from(raw).toString("base64"))).toEqual(
      original.documents.map((raw) => Buffer.from(raw).toString("base64")),
    );
  }
  expect(restored.find((collection) => collection.name === "users")!.documents).toHaveLength(1200);
  // The unique index came back working, not just listed.
  const again = await target
    .collection<LooseDocument>("users")
    .insertOne({ email: "user7@example.com" })
    .catch((error) => error);
  expect(again.code).toBe(11000);
});
