// The unique indexes of a backup with an oplog are built after its replay (prepare-collection.ts):
// an entry that renames a collection over another takes the renamed one's indexes along, and the
// replaced one's are never built on it.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { BSON, type Document, type MongoClient, Timestamp } from "mongodb";
import { startReplicaSetWithClient, stopWithClient } from "../../testkit/mongo-server/replica-set/test-support.ts";
import type { MongoTestServer } from "../../testkit/mongo-server/server.ts";
import { restoreDatabase } from "../src/dump/index.ts";
import { writeMongodumpArchive } from "../src/dump/mongodump-archive/index.ts";

let rs: { server: MongoTestServer; client: MongoClient };
beforeAll(async () => {
  rs = await startReplicaSetWithClient();
});
afterAll(async () => {
  await stopWithClient(rs);
});

const ID_INDEX = { v: 2, key: { _id: 1 }, name: "_id_" };
const entry = (i: number, fields: Document) => BSON.serialize({ ts: new Timestamp({ t: 1_800_000_000, i }), t: 1, v: 2, wall: new Date(), ...fields });

test("a rename over a collection during the dump: the target has the renamed collection's unique index, not the replaced one's", async () => {
  const prelude = {
    collections: [
      { db: "keys", collection: "a", type: "collection", indexes: [ID_INDEX, { v: 2, key: { u: 1 }, name: "u_1", unique: true }] },
      { db: "keys", collection: "b", type: "collection", indexes: [ID_INDEX, { v: 2, key: { v: 1 }, name: "v_1", unique: true }] },
      { db: "", collection: "oplog" },
    ],
  };
  const items = [
    { kind: "document" as const, namespace: "keys.a", bytes: BSON.serialize({ _id: 1, u: 1 }) },
    { kind: "document" as const, namespace: "keys.b", bytes: BSON.serialize({ _id: 1, v: 1 }) },
    {
      kind: "document" as const,
      namespace: ".oplog",
      bytes: entry(1, { op: "c", ns: "keys.$cmd", o: { renameCollection: "keys.a", to: "keys.b", stayTemp: false, dropTarget: true } }),
    },
    { kind: "document" as const, namespace: ".oplog", bytes: entry(2, { op: "n", ns: "", o: { msg: "dbvault consistent point" } }) },
  ];
  const chunks: Uint8Array[] = [];
  for await (const chunk of writeMongodumpArchive(prelude, items)) chunks.push(chunk);
  const result = await restoreDatabase({ uri: rs.server.uri, database: "renamed", input: [Buffer.concat(chunks)], tools: { mode: "builtin" } });
  expect(result.oplog?.dropped).toEqual(["renamed.a"]);
  const names = (await rs.client.db("renamed").listCollections().toArray()).map((info) => info.name);
  expect(names).toEqual(["b"]);
  const indexes = await rs.client.db("renamed").collection("b").listIndexes().toArray();
  expect(indexes.map(({ name, unique }) => ({ name, unique }))).toEqual([
    { name: "_id_", unique: undefined },
    { name: "u_1", unique: true },
  ]);
  expect(await rs.client.db("renamed").collection("b").find().toArray()).toEqual([{ _id: 1, u: 1 }] as never);
});
