// Point-in-time restores from the two bases issue 47 found unusable, each to every recorded moment
// after it, with the slices the real shipper shipped from the replica-set test server:
// - a base backup of a database with no collection yet (point-in-time recovery switched on before
//   the application's first write): the archive names no database, the restore takes the
//   backup's own (the agent's configured database);
// - a base read while the application moved a unique key (delete A{x}, insert B{x}, change B to z,
//   insert C{x}): its documents hold x twice until its oplog is replayed.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { BSON, type Document, type MongoClient } from "mongodb";
import { compareOplogTimes, type OplogTime } from "../../../../protocol/oplog-position.ts";
import { startReplicaSetWithClient, stopWithClient } from "../../../../testkit/mongo-server/replica-set/test-support.ts";
import type { MongoTestServer } from "../../../../testkit/mongo-server/server.ts";
import { waitUntil } from "../../../../testkit/wait-until.ts";
import { encodeMasterKey } from "../../archive/index.ts";
import { loadConfig } from "../../config.ts";
import { createDaemonRuntime } from "../../daemon/runtime.ts";
import { readOplogWindow } from "../../dump/builtin/oplog-window.ts";
import { createBackupStream, restoreFromEncrypted } from "../../dump/encrypted.ts";
import { restoreDatabase } from "../../dump/index.ts";
import { writeMongodumpArchive } from "../../dump/mongodump-archive/index.ts";
import { pointInTimeReplay } from "../../dump/point-in-time-replay.ts";
import { readNewestOplogTimestamp, readOplogStart, toOplogTimestamp } from "../read-oplog.ts";
import { shipToDirectory } from "../shipping/test-support/slice-sink.ts";
import type { SliceFile } from "./index.ts";
import { type Moment, readSliceFiles, snapshotDatabase } from "./test-support/recorded-history.ts";

const KEY = Buffer.alloc(32, 9);
type Loose = { _id: string | number; [field: string]: unknown };
let rs: { server: MongoTestServer; client: MongoClient };
let dir: string;

beforeAll(async () => {
  rs = await startReplicaSetWithClient();
  dir = await mkdtemp(join(tmpdir(), "dbvault-pitr-bases-"));
});
afterAll(async () => {
  await stopWithClient(rs);
  await rm(dir, { recursive: true, force: true });
});

// An idle database's slice is sealed once the oplog moves on: writes elsewhere move it.
const tick = (client: MongoClient) => client.db("other").collection("ticks").insertOne({});

/** Ships `database` into its own directory; resolves once the first slice is sealed. */
async function startShipping(database: string) {
  const shipper = shipToDirectory(rs.client, database, KEY, join(dir, database));
  await waitUntil(
    async () => {
      await tick(rs.client);
      return shipper.sealed.length > 0;
    },
    { timeout: 20_000, message: "the shipper sealed no first slice" },
  );
  return shipper;
}

/** Records `database` now, and waits for a slice reaching it. */
async function record(database: string, moments: Moment[], label: string, sealed: { end: OplogTime }[]): Promise<void> {
  const until = toOplogTimestamp(await readNewestOplogTimestamp(rs.client));
  moments.push({ label, until, contents: await snapshotDatabase(rs.client, database) });
  await waitUntil(
    async () => {
      await tick(rs.client);
      return sealed.some((slice) => compareOplogTimes(slice.end, until) >= 0);
    },
    { timeout: 30_000, message: `a slice reaching ${label}` },
  );
}

/** The target's contents after restoring each moment, beside the recorded ones. */
async function restoreEach(moments: Moment[], restore: (target: string, until: OplogTime) => Promise<unknown>) {
  const restored: { moment: string; contents: string }[] = [];
  for (const [index, moment] of moments.entries()) {
    const target = `${moment.label.replace(/\W+/g, "_")}_${index}`;
    await restore(target, moment.until);
    restored.push({ moment: moment.label, contents: await snapshotDatabase(rs.client, target) });
  }
  return restored;
}

describe("a base backup of a database with no collection yet", () => {
  let base: string;
  let moments: Moment[];
  let slices: SliceFile[];
  beforeAll(async () => {
    const shipper = await startShipping("fresh");
    base = join(dir, "fresh-base.enc.dbvault");
    const backup = createBackupStream({ uri: rs.server.uri, database: "fresh", masterKey: KEY, tools: { mode: "builtin" }, compressionThreads: 0 });
    const [, result] = await Promise.all([pipeline(backup.stream, createWriteStream(base)), backup.result]);
    expect(result.consistency?.kind).toBe("point-in-time");
    moments = [];
    await record("fresh", moments, "empty base", shipper.sealed);
    const items = rs.client.db("fresh").collection<Loose>("items");
    await items.insertMany([
      { _id: 1, sku: "a" },
      { _id: 2, sku: "b" },
    ]);
    await record("fresh", moments, "first writes", shipper.sealed);
    await items.createIndex({ sku: 1 }, { unique: true, name: "sku_1" });
    await items.updateOne({ _id: 1 }, { $set: { sku: "c" } });
    await rs.client.db("fresh").collection<Loose>("orders").insertOne({ _id: "o1", item: 2 });
    await record("fresh", moments, "an index and a second collection", shipper.sealed);
    await shipper.stop();
    slices = await readSliceFiles(join(dir, "fresh", "server"));
  }, 120_000);

  test("restores every moment after it, as a copy of the agent's database", async () => {
    const restored = await restoreEach(moments, (target, until) =>
      restoreFromEncrypted({
        uri: rs.server.uri,
        masterKey: KEY,
        input: createReadStream(base),
        reopen: () => createReadStream(base),
        database: target,
        sourceDatabase: "fresh",
        tools: { mode: "builtin" },
        pointInTime: pointInTimeReplay({ files: slices, keys: { masterKey: KEY }, until }),
      }),
    );
    expect(restored).toEqual(moments.map(({ label, contents }) => ({ moment: label, contents })));
    expect(moments.at(-1)!.contents).toContain("sku_1");
  }, 120_000);

  test("restores through the daemon's runtime as a copy: the configured database is the backup's", async () => {
    const configPath = join(dir, "agent.json");
    const databases = [{ name: "fresh", uri: `${rs.server.uri}fresh` }];
    await writeFile(configPath, JSON.stringify({ version: 1, masterKey: encodeMasterKey(KEY), databases, tools: { mode: "builtin" } }), { mode: 0o600 });
    const runtime = createDaemonRuntime({ configPath, config: await loadConfig(configPath), hello: { hostname: "test", platform: "linux" }, log: () => {} });
    const moment = moments.at(-1)!;
    const encrypted = new Response(Bun.file(base)).body!;
    await runtime.restore("fresh", encrypted, {
      onProgress: () => {},
      signal: new AbortController().signal,
      targetDatabase: "fresh_daemon",
      pointInTime: { until: moment.until, files: slices },
    });
    expect(await snapshotDatabase(rs.client, "fresh_daemon")).toBe(moment.contents);
  }, 60_000);
});

describe("a base read while the application moved a unique key", () => {
  let archive: Uint8Array;
  let indexes: Document[];
  /** The window's last entry: the consistent point's no-op. */
  let marker: Uint8Array;
  let moments: Moment[];
  let slices: SliceFile[];
  beforeAll(async () => {
    const people = rs.client.db("keys").collection<Loose>("people");
    await people.createIndex({ email: 1 }, { unique: true, name: "email_1" });
    await people.insertMany([
      { _id: "a", email: "x" },
      { _id: "m", email: "m" },
    ]);
    const shipper = await startShipping("keys");
    // A dump reads a collection while the application writes: the agent's own dump cannot be
    // paused between two documents from here, so the read is taken as it interleaves, in _id
    // order: a and m before the writes, then on past m (y, which is C; b was inserted behind the
    // cursor), around the window's real entries.
    const start = await readOplogStart(rs.client);
    const readBefore = await people.find({}, { sort: { _id: 1 } }).toArray();
    await people.deleteOne({ _id: "a" });
    await people.insertOne({ _id: "b", email: "x" });
    await people.updateOne({ _id: "b" }, { $set: { email: "z" } });
    await people.insertOne({ _id: "y", email: "x" });
    const readAfter = await people.find({ _id: { $gt: "m" } }, { sort: { _id: 1 } }).toArray();
    const window: Uint8Array[] = [];
    const entries = readOplogWindow(rs.client, { kind: "replica-set", start }, "keys", rs.server.uri);
    for (let step = await entries.next(); !step.done; step = await entries.next()) window.push(...step.value);
    const documents = [...readBefore, ...readAfter];
    // The read holds x twice (A and C): only the oplog's replay resolves it.
    expect(documents.filter((document) => document.email === "x").map((document) => document._id)).toEqual(["a", "y"]);
    indexes = await people.listIndexes().toArray();
    marker = window.at(-1)!;
    archive = await writeArchive(documents, indexes, window);
    moments = [];
    await record("keys", moments, "base", shipper.sealed);
    await people.updateOne({ _id: "y" }, { $set: { email: "w" } });
    await people.insertOne({ _id: "d", email: "x" });
    await record("keys", moments, "the key moved again", shipper.sealed);
    await people.deleteOne({ _id: "b" });
    await people.insertOne({ _id: "e", email: "z" });
    await record("keys", moments, "a freed key taken", shipper.sealed);
    await shipper.stop();
    slices = await readSliceFiles(join(dir, "keys", "server"));
  }, 120_000);

  test("restores as it was at its consistent point", async () => {
    await restoreDatabase({ uri: rs.server.uri, database: "keys_base", input: [archive], tools: { mode: "builtin" } });
    expect(await snapshotDatabase(rs.client, "keys_base")).toBe(moments[0]!.contents);
  });

  test("a key its oplog does not resolve fails the unique index's build, after the replay: the target untouched", async () => {
    const target = rs.client.db("keys_kept").collection<Loose>("people");
    await target.insertOne({ _id: "mine", email: "x" });
    const before = await snapshotDatabase(rs.client, "keys_kept");
    const twice = await writeArchive(
      [
        { _id: "a", email: "x" },
        { _id: "y", email: "x" },
      ],
      indexes,
      [marker],
    );
    const error = await restoreDatabase({ uri: rs.server.uri, database: "keys_kept", input: [twice], tools: { mode: "builtin" } }).then(
      () => undefined,
      (failure: Error) => failure,
    );
    expect(error?.message).toMatch(
      /^building the index email_1 of keys_kept\.people after replaying the backup's oplog failed, so nothing was replaced: .*E11000/,
    );
    expect(await snapshotDatabase(rs.client, "keys_kept")).toBe(before);
    expect((await rs.client.db("keys_kept").listCollections().toArray()).map((entry) => entry.name)).toEqual(["people"]);
  });

  test("restores every moment after it", async () => {
    const restored = await restoreEach(moments, (target, until) =>
      restoreDatabase({
        uri: rs.server.uri,
        database: target,
        sourceDatabase: "keys",
        input: [archive],
        tools: { mode: "builtin" },
        pointInTime: pointInTimeReplay({ files: slices, keys: { masterKey: KEY }, until }),
      }),
    );
    expect(restored).toEqual(moments.map(({ label, contents }) => ({ moment: label, contents })));
  }, 120_000);
});

/** The archive a dump of keys.people writes: its documents as read, its indexes, the window's entries (ending with the consistent point). */
async function writeArchive(documents: Document[], indexes: Document[], window: Uint8Array[]): Promise<Uint8Array> {
  const prelude = {
    header: { serverVersion: "7.0.14", toolVersion: "dbvault", concurrentCollections: 1 },
    collections: [
      { db: "keys", collection: "people", type: "collection", options: {}, indexes },
      { db: "", collection: "oplog" },
    ],
  };
  const items = [
    ...documents.map((document) => ({ kind: "document" as const, namespace: "keys.people", bytes: BSON.serialize(document) })),
    ...window.map((bytes) => ({ kind: "document" as const, namespace: ".oplog", bytes })),
  ];
  const chunks: Uint8Array[] = [];
  for await (const chunk of writeMongodumpArchive(prelude, items)) chunks.push(chunk);
  return Buffer.concat(chunks);
}
