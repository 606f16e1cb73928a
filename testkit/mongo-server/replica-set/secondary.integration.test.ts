// A two-member replica set of the test server: a secondary that copies its primary's oplog over
// the wire, applies it, keeps the primary's entries byte for byte, refuses writes as a secondary
// does, and serves the reads of clients whose read preference allows a secondary.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { MongoClient, MongoServerError } from "mongodb";
import { startMongoTestServer, type MongoTestServer } from "../server";
import { waitUntil } from "../../wait-until";
import type { LooseDocument } from "../test-support";

let primary: MongoTestServer;
let secondary: MongoTestServer;
const clients: MongoClient[] = [];

beforeAll(async () => {
  primary = await startMongoTestServer({ replicaSet: { name: "rs0" } });
  secondary = await startMongoTestServer({ replicaSet: { name: "rs0" }, secondaryOf: { primary } });
});
afterAll(async () => {
  for (const client of clients) await client.close();
  await secondary.stop();
  await primary.stop();
});

async function connect(options: string, direct?: MongoTestServer): Promise<MongoClient> {
  const uri = direct ? `mongodb://${direct.host}/?directConnection=true` : `mongodb://${primary.host}/?replicaSet=rs0&${options}`;
  const client = await new MongoClient(uri, { serverSelectionTimeoutMS: 5_000 }).connect();
  clients.push(client);
  return client;
}

describe("a secondary member", () => {
  test("hello: both members list each other, the secondary names the primary", async () => {
    const direct = await connect("", secondary);
    const hello = await direct.db("admin").command({ hello: 1 });
    expect(hello).toMatchObject({
      setName: "rs0",
      isWritablePrimary: false,
      secondary: true,
      hosts: [primary.host, secondary.host],
      primary: primary.host,
      me: secondary.host,
    });
    const fromPrimary = await (await connect("", primary)).db("admin").command({ hello: 1 });
    expect(fromPrimary.hosts).toEqual([primary.host, secondary.host]);
  });

  test("applies the primary's writes and keeps its oplog entries unchanged", async () => {
    const client = await connect("");
    await client
      .db("shop")
      .collection<LooseDocument>("orders")
      .insertMany([
        { _id: 1, n: 1 },
        { _id: 2, n: 2 },
      ]);
    await client
      .db("shop")
      .collection<LooseDocument>("orders")
      .updateOne({ _id: 1 }, { $set: { n: 10 } });
    await client.db("shop").collection<LooseDocument>("orders").deleteOne({ _id: 2 });
    await client.db("shop").collection<LooseDocument>("orders").createIndex({ n: 1 });
    await waitUntil(
      () =>
        secondary.replicaSet!.oplog.lastPosition >= primary.replicaSet!.oplog.lastPosition &&
        secondary.replicaSet!.oplog.lastOpTime.ts.equals(primary.replicaSet!.oplog.lastOpTime.ts),
      {
        message: "the secondary to catch up",
      },
    );
    const own = (server: MongoTestServer) => server.replicaSet!.oplog.readAll().map((entry) => entry.raw.toString("hex"));
    expect(own(secondary)).toEqual(own(primary));
    const copy = secondary.state.findCollection("shop", "orders")!;
    expect([...copy.documents.values()].map((stored) => stored.raw.toString("hex"))).toEqual(
      [...primary.state.findCollection("shop", "orders")!.documents.values()].map((stored) => stored.raw.toString("hex")),
    );
    expect(copy.indexes.map((index) => index.name)).toEqual(["_id_", "n_1"]);
  });

  test("refuses writes with NotWritablePrimary", async () => {
    const direct = await connect("", secondary);
    const error = await direct
      .db("shop")
      .collection<LooseDocument>("orders")
      .insertOne({ _id: 3 })
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(MongoServerError);
    expect((error as MongoServerError).code).toBe(10107);
  });

  test("serves reads to readPreference=secondary while the primary takes the writes", async () => {
    const before = { primary: primary.readCounts.get("reads") ?? 0, secondary: secondary.readCounts.get("reads") ?? 0 };
    const writer = await connect("");
    await writer.db("reads").collection<LooseDocument>("c").insertOne({ _id: 1 });
    await waitUntil(() => secondary.state.findCollection("reads", "c")?.documents.size === 1, { message: "the insert to replicate" });
    const reader = await connect("readPreference=secondary");
    expect(await reader.db("reads").collection<LooseDocument>("c").find().toArray()).toEqual([{ _id: 1 }]);
    expect(secondary.readCounts.get("reads") ?? 0).toBeGreaterThan(before.secondary);
    expect(primary.readCounts.get("reads") ?? 0).toBe(before.primary);
  });
});
