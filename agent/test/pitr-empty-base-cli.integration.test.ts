// The offline point-in-time restore (dbvault-agent restore --oplog DIR --until TIME, the compiled
// binary) from a base backup taken before the database had any collection: the archive names no
// database, so the configured database's is taken as the backup's, here restored as a copy.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createWriteStream } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import type { MongoClient } from "mongodb";
import { compareOplogTimes } from "../../protocol/oplog-position.ts";
import { startReplicaSetWithClient, stopWithClient } from "../../testkit/mongo-server/replica-set/test-support.ts";
import type { MongoTestServer } from "../../testkit/mongo-server/server.ts";
import { waitUntil } from "../../testkit/wait-until.ts";
import { encodeMasterKey } from "../src/archive/index.ts";
import { createBackupStream } from "../src/dump/encrypted.ts";
import { snapshotDatabase } from "../src/oplog/chain/test-support/recorded-history.ts";
import { readNewestOplogTimestamp, toOplogTimestamp } from "../src/oplog/read-oplog.ts";
import { shipToDirectory } from "../src/oplog/shipping/test-support/slice-sink.ts";
import { BINARY_PATH, runAgent } from "./support/run-agent.ts";

const KEY = Buffer.alloc(32, 6);
let rs: { server: MongoTestServer; client: MongoClient };
let dir: string;

beforeAll(async () => {
  rs = await startReplicaSetWithClient();
  dir = await mkdtemp(join(tmpdir(), "dbvault-pitr-empty-cli-"));
});
afterAll(async () => {
  await stopWithClient(rs);
  await rm(dir, { recursive: true, force: true });
});

const tick = () => rs.client.db("other").collection("ticks").insertOne({});

test("restores a moment after a base of a database with no collection yet, into another database", async () => {
  const shipper = shipToDirectory(rs.client, "fresh", KEY, join(dir, "slices"));
  await waitUntil(
    async () => {
      await tick();
      return shipper.sealed.length > 0;
    },
    { timeout: 20_000, message: "the shipper sealed no first slice" },
  );
  const base = join(dir, "base.enc.dbvault");
  const backup = createBackupStream({ uri: rs.server.uri, database: "fresh", masterKey: KEY, tools: { mode: "builtin" }, compressionThreads: 0 });
  await Promise.all([pipeline(backup.stream, createWriteStream(base)), backup.result]);
  const items = rs.client.db("fresh").collection<{ _id: number; sku: string }>("items");
  await items.insertMany([
    { _id: 1, sku: "a" },
    { _id: 2, sku: "b" },
  ]);
  await items.createIndex({ sku: 1 }, { unique: true, name: "sku_1" });
  const until = toOplogTimestamp(await readNewestOplogTimestamp(rs.client));
  const contents = await snapshotDatabase(rs.client, "fresh");
  await waitUntil(
    async () => {
      await tick();
      return shipper.sealed.some((slice) => compareOplogTimes(slice.end, until) >= 0);
    },
    { timeout: 30_000, message: "a slice reaching the moment" },
  );
  await shipper.stop();

  const config = join(dir, "agent.json");
  const databases = [{ name: "fresh", uri: `${rs.server.uri}fresh` }];
  await writeFile(config, JSON.stringify({ version: 1, masterKey: encodeMasterKey(KEY), databases, tools: { mode: "builtin" } }), { mode: 0o600 });
  const args = ["restore", "--db", "fresh", "--in", base, "--config", config, "--quiet", "--to-db", "fresh_cli"];
  const run = await runAgent([...args, "--oplog", join(dir, "slices", "server"), "--until", `${until.t},${until.i}`], { command: [BINARY_PATH] });
  expect({ exitCode: run.exitCode, stderr: run.stderr }).toMatchObject({ exitCode: 0 });
  expect(await snapshotDatabase(rs.client, "fresh_cli")).toBe(contents);
}, 120_000);
