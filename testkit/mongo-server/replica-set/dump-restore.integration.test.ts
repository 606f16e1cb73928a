// The real tools on the replica-set test server: `mongodump --oplog` while writes run, then
// `mongorestore --oplogReplay` into a fresh test server, must give the source exactly as it was
// at the dump's last oplog entry: every document's bytes, every index, every option (how that
// moment is caught: dump-under-writes.ts).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MongoClient } from "mongodb";
import { findMongoTools } from "../../mongo-tools";
import { startMongoTestServer, type MongoTestServer } from "../server";
import { seedShop, snapshotState, startWrites, watchWindowEnd } from "./dump-under-writes";
import { parseTyped, runTool, splitBsonFile } from "./test-support";

const { tools, missing } = findMongoTools();
const DATABASE = "shop";

let source: MongoTestServer;
let target: MongoTestServer;
let client: MongoClient;
let dir: string;
beforeAll(async () => {
  source = await startMongoTestServer({ replicaSet: { name: "rs0" } });
  target = await startMongoTestServer({ replicaSet: { name: "rs1" } });
  client = await new MongoClient(source.uri, { serverSelectionTimeoutMS: 5000 }).connect();
  dir = mkdtempSync(join(tmpdir(), "dbvault-oplog-dump-"));
});
afterAll(async () => {
  await client.close();
  await source.stop();
  await target.stop();
  rmSync(dir, { recursive: true, force: true });
});

test.skipIf(missing !== null)(
  `mongodump --oplog under writes, then mongorestore --oplogReplay, gives the source as of the dump's last entry${missing ? ` (skipped: ${missing})` : ""}`,
  async () => {
    const db = client.db(DATABASE);
    await seedShop(db);
    const windowEnd = watchWindowEnd(source, DATABASE);
    const writes = startWrites(db, 25);

    const dump = await runTool(tools!.mongodump, [`--uri=${source.uri}`, "--oplog", `--out=${dir}`]);
    await writes.stop();
    windowEnd.stop();
    const atWindowEnd = windowEnd.snapshot();
    expect(dump.code).toBe(0);
    const entries = splitBsonFile(readFileSync(join(dir, "oplog.bson"))).map(parseTyped);
    const ours = entries.filter((entry) => String(entry.ns).startsWith(`${DATABASE}.`));
    // Without writes inside the window this test would prove nothing.
    expect(ours.length).toBeGreaterThan(0);
    expect(atWindowEnd).toBeDefined();

    const restore = await runTool(tools!.mongorestore, [`--uri=${target.uri}`, "--oplogReplay", `--dir=${dir}`]);
    expect({ code: restore.code, oplog: /applied \d+ oplog entries/.test(restore.stderr) }).toEqual({ code: 0, oplog: true });
    const restored = snapshotState(target.state, DATABASE);
    expect(Object.keys(restored)).toEqual(Object.keys(atWindowEnd!));
    for (const name of Object.keys(restored)) {
      expect(restored[name]!.options).toBe(atWindowEnd![name]!.options);
      expect(restored[name]!.indexes).toEqual(atWindowEnd![name]!.indexes);
      expect(restored[name]!.documents.length).toBe(atWindowEnd![name]!.documents.length);
      expect(restored[name]!.documents).toEqual(atWindowEnd![name]!.documents);
    }
  },
  120_000,
);
