// The replica-set mode as clients meet it: hello and replSetGetStatus describe a one-member set,
// a tailable awaitData cursor on the oplog waits up to maxAwaitTimeMS and returns entries as
// they are written, and a step-down ends open cursors with the error an election gives
// (InterruptedDueToReplStateChange, 11602) while the driver carries on with the new primary.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Long, Timestamp } from "bson";
import { type Document, MongoClient, MongoServerError } from "mongodb";
import { startMongoTestServer, type MongoTestServer } from "../server";
import { waitUntil } from "../../wait-until";
import type { LooseDocument } from "../test-support";
import { startReplicaSetWithClient, stopWithClient } from "./test-support";

let server: MongoTestServer;
let client: MongoClient;
beforeAll(async () => ({ server, client } = await startReplicaSetWithClient()));
afterAll(() => stopWithClient({ server, client }));

const local = () => client.db("local");
const lastTimestamp = async (): Promise<Timestamp> => {
  const [last] = await local()
    .collection<LooseDocument>("oplog.rs")
    .find({}, { sort: { $natural: -1 }, limit: 1 })
    .toArray();
  return last!.ts as Timestamp;
};

/** Opens a tailable awaitData cursor on the oplog after `after`; returns its id. */
async function tailAfter(after: Timestamp): Promise<Long> {
  const reply = await local().command({ find: "oplog.rs", filter: { ts: { $gt: after } }, tailable: true, awaitData: true });
  expect(reply.cursor.firstBatch).toEqual([]);
  return reply.cursor.id as Long;
}

const getMore = (id: Long, maxTimeMS: number) => local().command({ getMore: id, collection: "oplog.rs", maxTimeMS });

describe("a one-member replica set", () => {
  test("hello names the set, its only host as primary, and a topology version; the driver sees a primary", async () => {
    const hello = await client.db("admin").command({ hello: 1 });
    const host = `127.0.0.1:${server.port}`;
    expect(hello).toMatchObject({ setName: "rs0", isWritablePrimary: true, secondary: false, hosts: [host], primary: host, me: host, setVersion: 1 });
    expect(Object.keys(hello.topologyVersion)).toEqual(["processId", "counter"]);
    expect(Object.keys(hello).slice(0, 5)).toEqual(["topologyVersion", "hosts", "setName", "setVersion", "isWritablePrimary"]);
    const description = client.options.hosts.map(String);
    expect(description).toEqual([`127.0.0.1:${server.port}`]);
    // Discovered as a replica set, so retryable writes (txnNumber) are sent and must succeed.
    await client.db("rs").collection<LooseDocument>("c").insertOne({ _id: "retryable" });
    expect(
      await client
        .db("rs")
        .collection<LooseDocument>("c")
        .countDocuments({}, { readConcern: { level: "majority" } }),
    ).toBe(1);
  });

  test("replSetGetStatus reports this member as PRIMARY with the oplog's last optime", async () => {
    const status = await client.db("admin").command({ replSetGetStatus: 1 });
    expect(status).toMatchObject({ set: "rs0", myState: 1, members: [{ _id: 0, stateStr: "PRIMARY", self: true, health: 1 }] });
    expect(status.optimes.appliedOpTime.ts).toEqual(await lastTimestamp());
  });
});

describe("tailing the oplog", () => {
  test("a getMore with nothing new waits about maxAwaitTimeMS, then answers an empty batch and keeps the cursor", async () => {
    const id = await tailAfter(await lastTimestamp());
    const started = Date.now();
    const reply = await getMore(id, 300);
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
    expect(reply.cursor.nextBatch).toEqual([]);
    expect(String(reply.cursor.id)).toBe(String(id));
    await local().command({ killCursors: "oplog.rs", cursors: [id] });
  });

  test("a waiting getMore returns the entries written while it waits, before its time is up", async () => {
    const id = await tailAfter(await lastTimestamp());
    const started = Date.now();
    const waiting = getMore(id, 10_000);
    await client.db("tail").collection<LooseDocument>("c").insertOne({ _id: 1, during: "wait" });
    const reply = await waiting;
    expect(Date.now() - started).toBeLessThan(5000);
    const entries = reply.cursor.nextBatch as Document[];
    expect(entries.map((entry) => [entry.op, entry.ns])).toEqual([
      ["c", "tail.$cmd"],
      ["i", "tail.c"],
    ]);
    expect(entries[1]!.o).toEqual({ _id: 1, during: "wait" });

    // Entries written between getMores arrive with the next one, at once.
    await client
      .db("tail")
      .collection<LooseDocument>("c")
      .updateOne({ _id: 1 }, { $set: { during: "between" } });
    const next = await getMore(id, 10_000);
    expect((next.cursor.nextBatch as Document[]).map((entry) => entry.op)).toEqual(["u"]);
    await local().command({ killCursors: "oplog.rs", cursors: [id] });
  });

  test("the driver's own tailable awaitData cursor follows writes", async () => {
    const cursor = local()
      .collection<LooseDocument>("oplog.rs")
      .find({ ts: { $gt: await lastTimestamp() }, ns: "tail.d" }, { tailable: true, awaitData: true, maxAwaitTimeMS: 200 });
    const seen: unknown[] = [];
    const reading = (async () => {
      for await (const entry of cursor) {
        seen.push(entry.o._id);
        if (seen.length === 3) break;
      }
    })();
    for (const id of [1, 2, 3]) await client.db("tail").collection<LooseDocument>("d").insertOne({ _id: id });
    await reading;
    expect(seen).toEqual([1, 2, 3]);
  });

  test("a step-down ends a waiting getMore and an idle cursor with InterruptedDueToReplStateChange; writes then go on under the next term", async () => {
    const waitingId = await tailAfter(await lastTimestamp());
    const idleId = await tailAfter(await lastTimestamp());
    const termBefore = (await client.db("admin").command({ replSetGetStatus: 1 })).term as Long;
    const waiting = getMore(waitingId, 30_000).catch((error: unknown) => error);
    await waitUntil(() => server.cursors.openCount === 2, { timeout: 5000, message: "both cursors open" });
    await client.db("admin").command({ replSetStepDown: 60, force: true });

    const failure = await waiting;
    expect(failure).toBeInstanceOf(MongoServerError);
    expect((failure as MongoServerError).code).toBe(11602);
    expect((failure as MongoServerError).codeName).toBe("InterruptedDueToReplStateChange");
    const idle = await getMore(idleId, 100).catch((error: unknown) => error);
    expect((idle as MongoServerError).code).toBe(11602);
    expect(server.cursors.openCount).toBe(0);

    // The driver rediscovers the primary (a new topology version, a higher election id).
    await client.db("tail").collection<LooseDocument>("after").insertOne({ _id: "after step-down" });
    const [entry] = await local().collection<LooseDocument>("oplog.rs").find({ ns: "tail.after", op: "i" }).toArray();
    expect(Number(entry!.t)).toBe(Number(termBefore) + 1);
    const [noop] = await local().collection<LooseDocument>("oplog.rs").find({ op: "n", "o.msg": "new primary" }).toArray();
    expect(Number(noop!.t)).toBe(Number(termBefore) + 1);
  });
});

test("a server started without a replica set still answers as a standalone", async () => {
  const standalone = await startMongoTestServer();
  const direct = await new MongoClient(standalone.uri, { serverSelectionTimeoutMS: 5000 }).connect();
  try {
    const hello = await direct.db("admin").command({ hello: 1 });
    expect(hello.setName).toBeUndefined();
    expect(hello.topologyVersion).toBeUndefined();
    const status = await direct
      .db("admin")
      .command({ replSetGetStatus: 1 })
      .catch((error: unknown) => error);
    expect((status as MongoServerError).code).toBe(76);
    expect(await direct.db("local").listCollections({ name: "oplog.rs" }).toArray()).toEqual([]);
  } finally {
    await direct.close();
    await standalone.stop();
  }
});

test("a small oplog drops its oldest entries, and a tailing cursor left behind fails with CappedPositionLost", async () => {
  const small = await startMongoTestServer({ replicaSet: { name: "small", oplogSizeBytes: 4096 } });
  const direct = await new MongoClient(small.uri, { serverSelectionTimeoutMS: 5000 }).connect();
  try {
    const oplog = direct.db("local").collection<LooseDocument>("oplog.rs");
    const reply = await direct.db("local").command({ find: "oplog.rs", filter: {}, tailable: true, awaitData: true, batchSize: 0 });
    const [first] = await oplog.find({}, { sort: { $natural: 1 }, limit: 1 }).toArray();
    expect(first!.o).toEqual({ msg: "initiating set" });
    for (let i = 0; i < 100; i++)
      await direct
        .db("big")
        .collection<LooseDocument>("c")
        .insertOne({ _id: i, pad: "p".repeat(100) });
    const [oldest] = await oplog.find({}, { sort: { $natural: 1 }, limit: 1 }).toArray();
    expect(oldest!.op).toBe("i");
    expect(small.replicaSet!.oplog.collection.dataBytes).toBeLessThanOrEqual(4096);
    // The cursor returned nothing yet; what it had not read is gone.
    const lost = await direct
      .db("local")
      .command({ getMore: reply.cursor.id, collection: "oplog.rs" })
      .catch((error: unknown) => error);
    expect((lost as MongoServerError).code).toBe(136);
    // A cursor opened now starts at the oldest entry kept.
    const fresh = await direct.db("local").command({ find: "oplog.rs", filter: {}, tailable: true, awaitData: true });
    expect(fresh.cursor.firstBatch[0].ts).toEqual(oldest!.ts);
  } finally {
    await direct.close();
    await small.stop();
  }
});
