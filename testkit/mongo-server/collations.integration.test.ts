// Collations as mongod records them, which a dump captures and a restore must reproduce: an index
// created without a collation in a collection that has a default one inherits it (the _id index
// included), and an explicit simple collation is recorded as no collation at all. mongorestore's
// rule for indexes listed without a collation exists because of this.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Int32 } from "bson";
import type { Db, Document } from "mongodb";
import { type TestConnection, createDatabaseName, openTestConnection } from "./test-support";

let connection: TestConnection;
let db: Db;
beforeAll(async () => {
  connection = await openTestConnection();
  db = connection.client.db(createDatabaseName("collations"));
});
afterAll(async () => {
  await db.dropDatabase();
  await connection.close();
});

const typed = { promoteValues: false } as const;
const english = { locale: "en", strength: new Int32(2) };

async function listIndexes(name: string): Promise<Record<string, Document>> {
  const specs = (await db
    .collection(name)
    .listIndexes(typed as never)
    .toArray()) as Document[];
  return Object.fromEntries(specs.map((spec) => [spec.name, spec]));
}

test("in a collection with a default collation, _id and indexes without one inherit it; an explicit simple one is listed as none", async () => {
  await db.command({ create: "people", collation: english });
  await db.collection("people").createIndexes([
    { key: { name: 1 }, name: "by_name" },
    { key: { code: 1 }, name: "by_code", unique: true, collation: { locale: "simple" } },
    { key: { city: 1 }, name: "by_city", collation: { locale: "fr" } },
  ]);
  const [info] = (await db.listCollections({ name: "people" }, typed).toArray()) as Document[];
  expect(info!.options.collation).toMatchObject({ locale: "en" });
  expect(info!.idIndex.collation).toMatchObject({ locale: "en" });
  const indexes = await listIndexes("people");
  expect(indexes._id_!.collation).toMatchObject({ locale: "en" });
  expect(indexes.by_name!.collation).toMatchObject({ locale: "en" });
  expect(indexes.by_code!.collation).toBeUndefined();
  expect(indexes.by_city!.collation).toMatchObject({ locale: "fr" });
});

test("a simple default collation is no collation; indexes then carry none unless given", async () => {
  await db.command({ create: "plain", collation: { locale: "simple" } });
  await db.collection("plain").createIndex({ name: 1 }, { name: "by_name" });
  const [info] = (await db.listCollections({ name: "plain" }, typed).toArray()) as Document[];
  expect(info!.options.collation).toBeUndefined();
  expect((await listIndexes("plain")).by_name!.collation).toBeUndefined();
});

test("create with an idIndex: one without a collation inherits the collection's, another collation is refused", async () => {
  await db.command({ create: "restored", collation: english, idIndex: { v: 2, key: { _id: 1 }, name: "_id_" } });
  expect((await listIndexes("restored"))._id_!.collation).toMatchObject({ locale: "en" });
  const refused = await db
    .command({ create: "mismatch", collation: english, idIndex: { v: 2, key: { _id: 1 }, name: "_id_", collation: { locale: "fr" } } })
    .catch((error: { code: number; message: string }) => error);
  expect(refused).toMatchObject({ code: 2, message: "'idIndex' must have the same collation as the collection." });
  expect(await db.listCollections({ name: "mismatch" }).toArray()).toEqual([]);
});
