// A database's excluded collections (issue 44): both dump engines leave them out of the archive,
// a restore of the backup brings back the rest and creates nothing of them, and the oplog window
// of a point-in-time backup carries none of their writes (replaying those would create the
// collection holding only what was written during the dump).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Readable } from "node:stream";
import { BSON } from "mongodb";
import { generateMasterKey } from "../src/archive/index.ts";
import { readOplogWindow } from "../src/dump/builtin/oplog-window.ts";
import { restoreFromEncrypted } from "../src/dump/index.ts";
import { readOplogStart } from "../src/oplog/read-oplog.ts";
import { findMongoTools } from "../../testkit/mongo-tools.ts";
import { startReplicaSetWithClient, stopWithClient } from "../../testkit/mongo-server/replica-set/test-support.ts";
import { backUpToBuffer } from "./support/back-up.ts";
import { useOwnTestServer } from "./support/own-test-server.ts";

const { tools, missing } = findMongoTools();
const masterKey = generateMasterKey();
const own = useOwnTestServer();

async function seed() {
  await own.client.db("shop").dropDatabase();
  await own.client
    .db("shop")
    .collection("orders")
    .insertMany([{ _id: 1 }, { _id: 2 }] as never[]);
  await own.client
    .db("shop")
    .collection("logs")
    .insertMany([{ _id: 1 }, { _id: 2 }, { _id: 3 }] as never[]);
  await own.client
    .db("shop")
    .collection("audit_logs")
    .insertOne({ _id: 1 } as never);
}

async function backUpAndRestore(tools: Parameters<typeof backUpToBuffer>[0]["tools"]) {
  await seed();
  const { file, result } = await backUpToBuffer({ uri: `${own.server.uri}shop`, masterKey, tools, excludeCollections: ["logs"] });
  await own.client.db("shop").dropDatabase();
  await restoreFromEncrypted({ uri: `${own.server.uri}shop`, masterKey, input: Readable.from([file]), tools });
  const restored = (await own.client.db("shop").listCollections().toArray()).map((entry) => entry.name).sort();
  return { result, restored };
}

describe("excluded collections", () => {
  test("the built-in engine leaves them out of the backup, and a restore creates nothing of them", async () => {
    const { result, restored } = await backUpAndRestore({ mode: "builtin" });
    expect(result.engine).toBe("builtin");
    expect(result.collections).toEqual({ "shop.orders": 2, "shop.audit_logs": 1 });
    expect(restored).toEqual(["audit_logs", "orders"]);
  });

  test.skipIf(missing !== null)(`mongodump --excludeCollection leaves them out as well${missing ? ` [skipped: ${missing}]` : ""}`, async () => {
    const { result, restored } = await backUpAndRestore({ mode: "native", mongodump: tools!.mongodump, mongorestore: tools!.mongorestore });
    expect(result.engine).toBe("native");
    expect(result.collections).toEqual({ "shop.orders": 2, "shop.audit_logs": 1 });
    expect(restored).toEqual(["audit_logs", "orders"]);
  });

  test("excluding from a dump of every database is refused: the names belong to one database", async () => {
    await expect(backUpToBuffer({ uri: own.server.uri, masterKey, tools: { mode: "builtin" }, excludeCollections: ["logs"] })).rejects.toThrow(
      "collections can be excluded only from a dump of one database",
    );
  });
});

describe("the oplog window of a point-in-time backup", () => {
  let rs: Awaited<ReturnType<typeof startReplicaSetWithClient>>;
  beforeAll(async () => {
    rs = await startReplicaSetWithClient();
  });
  afterAll(() => stopWithClient(rs));

  test("carries the writes of the kept collections and none of the excluded ones", async () => {
    const shop = rs.client.db("shop");
    await shop.collection<{ _id: number }>("orders").insertOne({ _id: 0 } as never);
    const start = await readOplogStart(rs.client);
    await shop.createCollection("logs");
    await shop.collection<{ _id: number }>("logs").insertOne({ _id: 1 } as never);
    await shop.collection<{ _id: number }>("logs").updateOne({ _id: 1 }, { $set: { seen: true } });
    await shop.collection<{ _id: number }>("logs").createIndex({ at: 1 });
    await shop.collection<{ _id: number }>("orders").insertOne({ _id: 1 } as never);
    await shop.collection<{ _id: number }>("logs").deleteOne({ _id: 1 });
    await shop.collection<{ _id: number }>("orders").updateOne({ _id: 1 }, { $set: { paid: true } });
    const window: Uint8Array[] = [];
    const entries = readOplogWindow(rs.client, { kind: "replica-set", start }, "shop", rs.server.uri, ["logs"]);
    for (let step = await entries.next(); !step.done; step = await entries.next()) window.push(...step.value);
    const written = window.map((bytes) => BSON.deserialize(bytes)).filter((entry) => entry.op !== "n");
    expect(written.map((entry) => [entry.op, entry.ns])).toEqual([
      ["i", "shop.orders"],
      ["u", "shop.orders"],
    ]);
  });
});
