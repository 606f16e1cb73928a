// The built-in restore of a consistent backup: the archive's oplog (what `mongodump --oplog`
// writes while it reads) is applied to the staging collections before the swap, so the target
// becomes the source as it was at the dump's last entry, as one moment. Checked with an archive
// the real mongodump writes of the replica-set test server taking writes; with entries that
// create, rename and drop collections; and with an entry that cannot be applied, which must leave
// the target exactly as it was.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BSON, type Document, MongoClient, Timestamp } from "mongodb";
import { type DatabaseSnapshot, seedShop, snapshotState, startWrites, watchWindowEnd } from "../../testkit/mongo-server/replica-set/dump-under-writes.ts";
import { runTool } from "../../testkit/mongo-server/replica-set/test-support.ts";
import { startMongoTestServer, type MongoTestServer } from "../../testkit/mongo-server/server.ts";
import type { LooseDocument } from "../../testkit/mongo-server/test-support.ts";
import { findMongoTools } from "../../testkit/mongo-tools.ts";
import { isDumpError, restoreDatabase } from "../src/dump/index.ts";
import { writeMongodumpArchive } from "../src/dump/mongodump-archive/index.ts";

const { tools, missing } = findMongoTools();
const DATABASE = "shop";

let source: MongoTestServer;
let target: MongoTestServer;
let sourceClient: MongoClient;
let targetClient: MongoClient;
let dir: string;
beforeAll(async () => {
  source = await startMongoTestServer({ replicaSet: { name: "rs0" } });
  target = await startMongoTestServer({ replicaSet: { name: "rs1" } });
  sourceClient = await new MongoClient(source.uri, { serverSelectionTimeoutMS: 5000 }).connect();
  targetClient = await new MongoClient(target.uri, { serverSelectionTimeoutMS: 5000 }).connect();
  dir = mkdtempSync(join(tmpdir(), "dbvault-oplog-restore-"));
});
afterAll(async () => {
  await sourceClient?.close();
  await targetClient?.close();
  await source?.stop();
  await target?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Gives the target's shop old contents a restore must replace. */
async function fillTargetWithOldData(): Promise<void> {
  await targetClient.db(DATABASE).dropDatabase();
  await targetClient
    .db(DATABASE)
    .collection<LooseDocument>("orders")
    .insertMany([{ _id: 0, old: true }, { _id: "only-old" }]);
  await targetClient.db(DATABASE).collection<LooseDocument>("drafts").insertOne({ _id: "old draft" });
}

async function targetNames(): Promise<string[]> {
  return (await targetClient.db(DATABASE).listCollections({}, { nameOnly: true }).toArray()).map((info) => info.name).sort();
}

const restore = (archive: Uint8Array, engine: "builtin" | "native" = "builtin") =>
  restoreDatabase({ uri: target.uri, database: DATABASE, input: [archive], tools: engine === "builtin" ? { mode: "builtin" } : { mode: "native", ...tools } });

/** The real mongodump's archive and the source at its last entry, once the first test made them. */
let dumped: { archive: Uint8Array; atWindowEnd: DatabaseSnapshot } | undefined;

/** Restores `dumped` with `engine` over old contents and checks it gives the source at the window's end. */
async function expectRestoredAtWindowEnd(engine: "builtin" | "native"): Promise<void> {
  const { archive, atWindowEnd } = dumped!;
  await fillTargetWithOldData();
  const result = await restore(archive, engine);
  expect(result.engine).toBe(engine);
  // Without writes inside the window this test would prove nothing.
  expect(result.oplog!.applied).toBeGreaterThan(0);
  expect(result.oplog!.dropped).toEqual([]);
  expect(result.skipped).not.toContain(".oplog");
  const restored = snapshotState(target.state, DATABASE);
  // drafts is not in the backup: a restore leaves such collections alone.
  delete restored.drafts;
  expect(Object.keys(restored)).toEqual(Object.keys(atWindowEnd));
  for (const name of Object.keys(restored)) {
    expect(restored[name]!.options).toBe(atWindowEnd[name]!.options);
    expect(restored[name]!.indexes).toEqual(atWindowEnd[name]!.indexes);
    expect(restored[name]!.documents.length).toBe(atWindowEnd[name]!.documents.length);
    expect(restored[name]!.documents).toEqual(atWindowEnd[name]!.documents);
  }
}

describe("restoring a backup that carries an oplog", () => {
  test.skipIf(missing !== null)(
    `an archive of the real mongodump --oplog taken under writes restores as the source at the dump's last entry${missing ? ` (skipped: ${missing})` : ""}`,
    async () => {
      const db = sourceClient.db(DATABASE);
      await seedShop(db);
      const windowEnd = watchWindowEnd(source, DATABASE);
      const writes = startWrites(db, 7);
      const archivePath = join(dir, "shop.archive");
      const dump = await runTool(tools!.mongodump, [`--uri=${source.uri}`, "--oplog", `--archive=${archivePath}`]);
      await writes.stop();
      windowEnd.stop();
      expect(dump.code).toBe(0);
      const atWindowEnd = windowEnd.snapshot();
      expect(atWindowEnd).toBeDefined();

      dumped = { archive: readFileSync(archivePath), atWindowEnd: atWindowEnd! };
      await expectRestoredAtWindowEnd("builtin");
    },
    120_000,
  );

  // mongorestore refuses --oplogReplay with the namespace renames that give the staging names,
  // so it stages the collections and the agent applies the oplog to them before the swap.
  test.skipIf(missing !== null)(
    `the same archive restored with the real mongorestore (native) gives the same${missing ? ` (skipped: ${missing})` : ""}`,
    async () => {
      await expectRestoredAtWindowEnd("native");
    },
  );

  const header = { serverVersion: "7.0.14", toolVersion: "100.18.0", concurrentCollections: 1 };
  const ID_INDEX = { v: 2, key: { _id: 1 }, name: "_id_" };
  const prelude = {
    header,
    collections: [
      { db: DATABASE, collection: "orders", type: "collection", indexes: [ID_INDEX] },
      { db: DATABASE, collection: "drafts", type: "collection", indexes: [ID_INDEX] },
      { db: "", collection: "oplog" },
    ],
  };
  const entry = (i: number, fields: Document) => BSON.serialize({ ts: new Timestamp({ t: 1_800_000_000, i }), t: 1, v: 2, wall: new Date(), ...fields });

  async function archiveWith(oplog: Uint8Array[]): Promise<Uint8Array> {
    const items = [
      { kind: "document" as const, namespace: `${DATABASE}.orders`, bytes: BSON.serialize({ _id: 1, total: 10 }) },
      { kind: "document" as const, namespace: `${DATABASE}.drafts`, bytes: BSON.serialize({ _id: "d1", text: "draft" }) },
      ...oplog.map((bytes) => ({ kind: "document" as const, namespace: ".oplog", bytes })),
    ];
    const chunks: Uint8Array[] = [];
    for await (const chunk of writeMongodumpArchive(prelude, items)) chunks.push(chunk);
    return Buffer.concat(chunks);
  }

  test("entries that create, rename and drop collections: the target gets the collections the source had at the end", async () => {
    await fillTargetWithOldData();
    const archive = await archiveWith([
      entry(1, { op: "c", ns: `${DATABASE}.$cmd`, o: { create: "fresh" } }),
      entry(2, { op: "i", ns: `${DATABASE}.fresh`, o: { _id: 1, made: "during the dump" } }),
      entry(3, { op: "c", ns: `${DATABASE}.$cmd`, o: { createIndexes: "fresh", v: 2, key: { made: 1 }, name: "made_1" } }),
      entry(4, { op: "u", ns: `${DATABASE}.drafts`, o: { $v: 2, diff: { u: { text: "final" } } }, o2: { _id: "d1" } }),
      entry(5, { op: "c", ns: `${DATABASE}.$cmd`, o: { renameCollection: `${DATABASE}.drafts`, to: `${DATABASE}.published`, stayTemp: false } }),
      entry(6, { op: "c", ns: `${DATABASE}.$cmd`, o: { drop: "orders" } }),
    ]);
    const result = await restore(archive);
    expect(result.oplog).toEqual({ entries: 6, applied: 6, dropped: [`${DATABASE}.drafts`, `${DATABASE}.orders`] });
    expect(Object.keys(result.collections).sort()).toEqual([`${DATABASE}.fresh`, `${DATABASE}.published`]);
    // drafts is gone as on the source (renamed away), and so is orders (dropped).
    expect(await targetNames()).toEqual(["fresh", "published"]);
    const shop = targetClient.db(DATABASE);
    expect(await shop.collection("published").find().toArray()).toEqual([{ _id: "d1", text: "final" }] as never);
    expect(await shop.collection("fresh").find().toArray()).toEqual([{ _id: 1, made: "during the dump" }] as never);
    expect((await shop.collection("fresh").listIndexes().toArray()).map((index) => index.name)).toEqual(["_id_", "made_1"]);
  });

  test("into another database: the entries follow the collections there", async () => {
    const archive = await archiveWith([
      entry(1, { op: "i", ns: `${DATABASE}.orders`, o: { _id: 2, total: 20 } }),
      entry(2, { op: "c", ns: `${DATABASE}.$cmd`, o: { renameCollection: `${DATABASE}.drafts`, to: `${DATABASE}.published`, stayTemp: false } }),
    ]);
    await targetClient.db("copy").dropDatabase();
    const result = await restoreDatabase({ uri: target.uri, database: "copy", input: [archive], tools: { mode: "builtin" } });
    expect(Object.keys(result.collections).sort()).toEqual(["copy.orders", "copy.published"]);
    const copy = targetClient.db("copy");
    expect((await copy.listCollections({}, { nameOnly: true }).toArray()).map((info) => info.name).sort()).toEqual(["orders", "published"]);
    expect(await copy.collection("orders").find().toArray()).toEqual([
      { _id: 1, total: 10 },
      { _id: 2, total: 20 },
    ] as never);
  });

  test("an entry that cannot be applied fails the restore before the swap: the target is untouched, no staging is left", async () => {
    await fillTargetWithOldData();
    const before = snapshotState(target.state, DATABASE);
    const archive = await archiveWith([
      entry(1, { op: "i", ns: `${DATABASE}.orders`, o: { _id: 2, total: 20 } }),
      entry(2, { op: "c", ns: `${DATABASE}.$cmd`, o: { create: "recent", viewOn: "orders", pipeline: [] } }),
    ]);
    const failure = await restore(archive).catch((error: unknown) => error);
    expect(isDumpError(failure, "database-error")).toBe(true);
    expect((failure as Error).message).toBe(
      "replaying the backup's oplog into shop failed, so nothing was replaced: oplog entry 1800000000,2: the view recent was created while the backup ran, and views cannot be replayed",
    );
    expect(snapshotState(target.state, DATABASE)).toEqual(before);
    expect(await targetNames()).toEqual(["drafts", "orders"]);
  });

  // mongod checks applyOps per entry (the applyOps action on the cluster, then the entry's own
  // write), so a restore user with readWrite alone would fail at the first entry; the restore
  // asks connectionStatus first and stops naming the role. The test server reports the roles'
  // privileges as mongod does; it does not enforce them, so the check alone must stop the replay.
  test("a user who cannot apply entries fails before the swap, naming the role to grant: the target is untouched", async () => {
    const guarded = await startMongoTestServer({
      replicaSet: { name: "rs2" },
      users: [
        { username: "writer", password: "pw", roles: [{ role: "readWrite", db: DATABASE }] },
        {
          username: "restorer",
          password: "pw",
          roles: [
            { role: "restore", db: "admin" },
            { role: "readWrite", db: DATABASE },
          ],
        },
      ],
    });
    const uriOf = (user: string) => `mongodb://${user}:pw@127.0.0.1:${guarded.port}/?authSource=admin`;
    try {
      const client = await new MongoClient(uriOf("restorer"), { serverSelectionTimeoutMS: 5000 }).connect();
      await client.db(DATABASE).collection<LooseDocument>("orders").insertOne({ _id: 0, old: true });
      await client.close();
      const before = snapshotState(guarded.state, DATABASE);
      const archive = await archiveWith([entry(1, { op: "u", ns: `${DATABASE}.orders`, o: { $v: 2, diff: { u: { total: 11 } } }, o2: { _id: 1 } })]);
      const failure = await restoreDatabase({ uri: uriOf("writer"), database: DATABASE, input: [archive], tools: { mode: "builtin" } }).catch(
        (error: unknown) => error,
      );
      expect(isDumpError(failure, "database-error")).toBe(true);
      expect((failure as Error).message).toBe(
        'the backup holds oplog entries and the user "writer" cannot apply oplog entries (missing: restore), so nothing was replaced',
      );
      expect((failure as { hint?: string }).hint).toBe(
        'the target database is unchanged; grant the roles in mongosh as an administrator: db.getSiblingDB("admin").grantRolesToUser("writer", [{ role: "restore", db: "admin" }]), then restore again',
      );
      expect(snapshotState(guarded.state, DATABASE)).toEqual(before);
      // With restore and readWrite the same backup restores, entries applied.
      const result = await restoreDatabase({ uri: uriOf("restorer"), database: DATABASE, input: [archive], tools: { mode: "builtin" } });
      expect(result.oplog).toMatchObject({ entries: 1, applied: 1 });
      const after = await new MongoClient(uriOf("restorer"), { serverSelectionTimeoutMS: 5000 }).connect();
      expect(await after.db(DATABASE).collection("orders").find().toArray()).toEqual([{ _id: 1, total: 11 }] as never);
      await after.close();
    } finally {
      await guarded.stop();
    }
  });
});
