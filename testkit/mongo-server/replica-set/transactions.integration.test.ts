// Multi-document transactions on the replica-set test server, as the oplog records them: one
// applyOps entry at commit, with the session's lsid and txnNumber and a null prevOpTime; a large
// one split into partialTxn entries linked by prevOpTime, the last carrying `count`; nothing for
// an abort, whose writes are undone. The shapes are those of the real fixture
// (common/txn/testdata/oplog_entries.json), and the real mongorestore --oplogReplay must apply
// the entries to the same documents.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Long, Timestamp } from "bson";
import { type Document, MongoClient, type MongoServerError } from "mongodb";
import { findMongoTools } from "../../mongo-tools";
import { startMongoTestServer, type MongoTestServer } from "../server";
import type { LooseDocument } from "../test-support";
import { FIXTURES_MISSING, OPLOG_FIXTURES, parseTyped, runTool } from "./test-support";

const { tools, missing } = findMongoTools();
const replaySkipped = missing ?? (OPLOG_FIXTURES === undefined ? FIXTURES_MISSING : null);

let server: MongoTestServer;
let client: MongoClient;
beforeAll(async () => {
  // A small split size, so a transaction of a few documents already spans several entries.
  server = await startMongoTestServer({ replicaSet: { name: "rs0", maxTransactionEntryBytes: 500 } });
  client = await new MongoClient(server.uri, { serverSelectionTimeoutMS: 5000 }).connect();
});
afterAll(async () => {
  await client.close();
  await server.stop();
});

async function entriesOf(work: () => Promise<unknown>): Promise<Document[]> {
  const before = server.replicaSet!.oplog.lastPosition;
  await work();
  return server.replicaSet!.oplog.readAfter(before).map((entry) => parseTyped(entry.raw));
}

const contents = async (db: string, collection: string): Promise<unknown[]> =>
  client
    .db(db)
    .collection(collection)
    .find({}, { sort: { _id: 1 } })
    .toArray();

describe("transactions", () => {
  test("a committed transaction is one applyOps entry on admin.$cmd with the session, shaped like the real one", async () => {
    const orders = client.db("txn").collection<LooseDocument>("small");
    await orders.insertMany([{ _id: 1, x: 0 }]);
    const session = client.startSession();
    const entries = await entriesOf(() =>
      session.withTransaction(async () => {
        await orders.insertOne({ _id: 2, x: 0 }, { session });
        await orders.updateOne({ _id: 2 }, { $set: { x: 1 } }, { session });
        await orders.deleteOne({ _id: 1 }, { session });
        // The session reads its own writes.
        expect(await orders.countDocuments({}, { session })).toBe(1);
      }),
    );
    await session.endSession();
    expect(entries).toHaveLength(1);
    const [entry] = entries;
    expect(Object.keys(entry!)).toEqual(["lsid", "txnNumber", "op", "ns", "o", "ts", "t", "v", "wall", "prevOpTime"]);
    expect(entry).toMatchObject({ op: "c", ns: "admin.$cmd", prevOpTime: { ts: new Timestamp({ t: 0, i: 0 }), t: Long.fromNumber(-1) } });
    const operations = (entry!.o as Document).applyOps as Document[];
    expect(Object.keys(entry!.o as Document)).toEqual(["applyOps"]);
    expect(operations.map((operation) => [operation.op, operation.ns])).toEqual([
      ["i", "txn.small"],
      ["u", "txn.small"],
      ["d", "txn.small"],
    ]);
    expect(operations.map((operation) => Object.keys(operation))).toEqual([
      ["op", "ns", "ui", "o", "o2"],
      ["op", "ns", "ui", "o", "o2"],
      ["op", "ns", "ui", "o"],
    ]);
    expect(await contents("txn", "small")).toEqual([{ _id: 2, x: 1 }]);
  });

  test("an aborted transaction writes nothing and its writes are undone", async () => {
    const items = client.db("txn").collection<LooseDocument>("aborted");
    await items.insertMany([
      { _id: 1, x: 0 },
      { _id: 2, x: 0 },
    ]);
    const session = client.startSession();
    const entries = await entriesOf(async () => {
      session.startTransaction();
      await items.insertOne({ _id: 3 }, { session });
      await items.updateOne({ _id: 1 }, { $set: { x: 9 } }, { session });
      await items.deleteOne({ _id: 2 }, { session });
      await session.abortTransaction();
    });
    await session.endSession();
    expect(entries).toEqual([]);
    expect(await contents("txn", "aborted")).toEqual([
      { _id: 1, x: 0 },
      { _id: 2, x: 0 },
    ]);
  });

  test("a command other transactions cannot run is refused and aborts the transaction", async () => {
    const session = client.startSession();
    session.startTransaction();
    await client.db("txn").collection<LooseDocument>("refused").insertOne({ _id: 1 }, { session });
    const failure = await client
      .db("txn")
      .command({ listCollections: 1 }, { session })
      .catch((error: unknown) => error);
    expect((failure as MongoServerError).code).toBe(263);
    await session.abortTransaction().catch(() => {});
    await session.endSession();
    expect(await contents("txn", "refused")).toEqual([]);
  });

  test("a large transaction is a partialTxn chain linked by prevOpTime, the last entry carrying count", async () => {
    const session = client.startSession();
    const entries = await entriesOf(() =>
      session.withTransaction(async () => {
        for (let i = 0; i < 6; i++)
          await client
            .db("txn")
            .collection<LooseDocument>("large")
            .insertOne({ _id: i, x: i, pad: "p".repeat(100) }, { session });
      }),
    );
    await session.endSession();
    expect(entries.length).toBeGreaterThan(1);
    for (const [index, entry] of entries.entries()) {
      const o = entry.o as Document;
      const last = index === entries.length - 1;
      expect(Object.keys(o)).toEqual(last ? ["applyOps", "count"] : ["applyOps", "partialTxn"]);
      if (last) expect(Number(o.count)).toBe(7); // the implicit create, then six inserts
      const previous = entry.prevOpTime as Document;
      expect(previous.ts).toEqual(index === 0 ? new Timestamp({ t: 0, i: 0 }) : entries[index - 1]!.ts);
    }
  });

  test.skipIf(replaySkipped !== null)(
    `the real mongorestore --oplogReplay applies this server's transaction entries, shaped like the real fixture's${replaySkipped ? ` (skipped: ${replaySkipped})` : ""}`,
    async () => {
      const fixture = JSON.parse(readFileSync(join(OPLOG_FIXTURES!, "common/txn/testdata/oplog_entries.json"), "utf8"));
      // The real chain's shape: applyOps + partialTxn, then applyOps + count.
      const realLarge = fixture["large, unprepared"].ops as Document[];
      expect(realLarge.map((entry) => Object.keys(entry.o))).toEqual([
        ["applyOps", "partialTxn"],
        ["applyOps", "partialTxn"],
        ["applyOps", "count"],
      ]);

      const raw = server.replicaSet!.oplog.readAfter(0).map((entry) => entry.raw);
      const dir = mkdtempSync(join(tmpdir(), "dbvault-txn-replay-"));
      const target = await startMongoTestServer({ replicaSet: { name: "rs1" } });
      const check = await new MongoClient(target.uri, { serverSelectionTimeoutMS: 5000 }).connect();
      try {
        writeFileSync(join(dir, "oplog.bson"), Buffer.concat(raw));
        const run = await runTool(tools!.mongorestore, [`--uri=${target.uri}`, "--oplogReplay", `--dir=${dir}`]);
        expect(run.code).toBe(0);
        for (const name of ["small", "aborted", "refused", "large"]) {
          const replayed: unknown[] = await check
            .db("txn")
            .collection(name)
            .find({}, { sort: { _id: 1 } })
            .toArray();
          expect(replayed).toEqual(await contents("txn", name));
        }
      } finally {
        await check.close();
        await target.stop();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
