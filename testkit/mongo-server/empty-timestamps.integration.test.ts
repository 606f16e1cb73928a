// Empty timestamps as mongod treats them: an insert replaces every top-level Timestamp(0, 0) but
// _id's with the current cluster time, unless it says bypassEmptyTsReplacement, which only 8.0+
// and the 7.0.13, 6.0.17 and 5.0.29 patch releases know (older ones refuse the field as unknown).
// mongorestore's way around it on those older servers, an insert then a pipeline-style update
// that puts the document back as a literal, must work here too.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { BSON, Timestamp } from "bson";
import { type Db, MongoClient } from "mongodb";
import { startMongoTestServer, type MongoTestServer } from "./server";
import { acceptsBypassEmptyTsReplacement } from "../../protocol/mongodb-features";
import { type TestConnection, createDatabaseName, openTestConnection } from "./test-support";

const EMPTY = new Timestamp({ t: 0, i: 0 });
const document = () => ({ _id: 1, first: EMPTY, nested: { ts: EMPTY }, list: [EMPTY], last: EMPTY });

test("the versions that accept bypassEmptyTsReplacement are those of SERVER-88750", () => {
  const accepted = ["8.0.0", "8.2.1", "9.0.0", "7.0.13", "7.0.14", "6.0.17", "5.0.29"];
  const refused = ["7.0.12", "7.0.0", "7.1.0", "6.0.16", "6.1.0", "5.0.28", "4.4.30", "7.3.1"];
  expect(accepted.filter((version) => !acceptsBypassEmptyTsReplacement(version))).toEqual([]);
  expect(refused.filter((version) => acceptsBypassEmptyTsReplacement(version))).toEqual([]);
});

describe("on a server that knows bypassEmptyTsReplacement", () => {
  let connection: TestConnection;
  let db: Db;
  beforeAll(async () => {
    connection = await openTestConnection();
    db = connection.client.db(createDatabaseName("timestamps"));
  });
  afterAll(async () => {
    await db.dropDatabase();
    await connection.close();
  });

  test("an insert replaces top-level empty timestamps, each with a distinct current one, and leaves _id and nested ones", async () => {
    const before = Math.floor(Date.now() / 1000);
    await db.collection("replaced").insertOne(document() as never);
    await db.collection("replaced").insertOne({ _id: EMPTY, other: 1 } as never);
    const [stored, byTimestamp] = (await db.collection("replaced").find().toArray()) as any[];
    expect(stored.first.high).toBeGreaterThanOrEqual(before);
    expect(stored.last.high).toBeGreaterThanOrEqual(before);
    expect(stored.first.equals(stored.last)).toBe(false);
    expect(stored.nested.ts.equals(EMPTY)).toBe(true);
    expect(stored.list[0].equals(EMPTY)).toBe(true);
    expect(byTimestamp._id.equals(EMPTY)).toBe(true);
  });

  test("with bypassEmptyTsReplacement the inserted bytes are kept exactly", async () => {
    const bytes = BSON.serialize(document());
    await db.command({ insert: "kept", documents: [document()], bypassEmptyTsReplacement: true });
    const [stored] = (await db.collection("kept").find({}, { raw: true }).toArray()) as unknown as Uint8Array[];
    expect(Buffer.from(stored!).equals(Buffer.from(bytes))).toBe(true);
  });
});

describe("on a 7.0.0 server, which predates bypassEmptyTsReplacement", () => {
  let server: MongoTestServer;
  let client: MongoClient;
  beforeAll(async () => {
    server = await startMongoTestServer({ version: "7.0.0" });
    client = await new MongoClient(server.uri).connect();
  });
  afterAll(async () => {
    await client.close();
    await server.stop();
  });

  test("buildInfo reports it and the field is refused as unknown, as mongod's parser does", async () => {
    const info = await client.db("admin").command({ buildInfo: 1 });
    expect(info.version).toBe("7.0.0");
    expect(info.versionArray).toEqual([7, 0, 0, 0]);
    const refused = await client
      .db("t")
      .command({ insert: "c", documents: [document()], bypassEmptyTsReplacement: true })
      .catch((error: { code: number; message: string }) => error);
    expect(refused).toMatchObject({ code: 40415, message: "BSON field 'insert.bypassEmptyTsReplacement' is an unknown field." });
    expect(await client.db("t").collection("c").countDocuments()).toBe(0);
  });

  test("mongorestore's repair (insert, then replace the document with itself as a literal) keeps the empty timestamps", async () => {
    const collection = client.db("t").collection("repaired");
    await collection.insertOne(document() as never);
    const result = await collection.updateOne({ _id: 1 } as never, [{ $replaceRoot: { newRoot: { $literal: document() } } }]);
    expect(result.modifiedCount).toBe(1);
    const [stored] = (await collection.find({}, { raw: true }).toArray()) as unknown as Uint8Array[];
    expect(Buffer.from(stored!).equals(Buffer.from(BSON.serialize(document())))).toBe(true);
    const other = await collection.updateOne({ _id: 1 } as never, [{ $set: { x: 1 } }]).catch((error: Error) => error);
    expect((other as Error).message).toContain("not supported by the DBVault test server");
  });
});
