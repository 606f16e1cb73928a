// The restore promise under fault injection: whatever goes wrong (a cut or damaged file, the
// wrong key, MongoDB going away mid-insert, a refused document, the agent killed mid-swap),
// every collection of the target is either entirely its old self or entirely the backup's, and
// any failure before the swap phase leaves the whole database as it was. Runs on this project's
// MongoDB test server only: faults are injected through its command interceptor, which a real
// mongod does not have.
import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Readable } from "node:stream";
import { MongoClient } from "mongodb";
import { CorruptChunkError, encodeMasterKey, encryptBuffer, generateMasterKey, TruncatedArchiveError, WrongKeyError } from "../src/archive/index.ts";
import { DumpError, removeLeftoverStaging, restoreFromEncrypted, type ToolsConfig } from "../src/dump/index.ts";
import { findMongoTools } from "../../testkit/mongo-tools.ts";
import { CommandError, type MongoTestServer, startMongoTestServer } from "../../testkit/mongo-server/index.ts";
import { waitUntil } from "../../testkit/wait-until.ts";
import { backUpToBuffer } from "./support/back-up.ts";
import { type CollectionSnapshot, snapshotDatabase } from "./support/database-snapshot.ts";
import { SOURCE_COMMAND } from "./support/run-agent.ts";
import { type AgentTestEnv, openAgentTestEnv } from "./support/test-env.ts";

const CHUNK_SIZE = 4096;
const masterKey = generateMasterKey();

let server: MongoTestServer;
let client: MongoClient;
let env: AgentTestEnv;
let file: Buffer;
let uri: string;
let original: CollectionSnapshot[];
let backupData: CollectionSnapshot[];

// Incompressible text, so the file has many chunks and damage can sit well past the first ones.
const rows = (n: number, tag: string) => Array.from({ length: n }, (_, i) => ({ _id: i, tag, text: `${tag}-${i}-${randomBytes(45).toString("base64")}` }));

beforeAll(async () => {
  server = await startMongoTestServer();
  client = await new MongoClient(server.uri).connect();
  env = await openAgentTestEnv();
  uri = `${server.uri}target`;
  const source = client.db("source");
  await source.createCollection("orders", { collation: { locale: "en", strength: 2 } });
  await source.collection("orders").createIndex({ text: 1 }, { unique: true });
  await source.collection("orders").insertMany(rows(3000, "new-order") as never[]);
  await source.collection("customers").insertMany(rows(800, "new-customer") as never[]);
  await source.createCollection("log", { capped: true, size: 1 << 20 });
  await source.collection("log").insertMany(rows(50, "new-log") as never[]);
  await source.createCollection("metrics", { timeseries: { timeField: "at" } });
  // A 7.0 server keeps a time-series collection's data in system.buckets.<name>, which a dump reads
  // and a restore writes back. The test server does not bucket measurements itself, so the
  // buckets are written directly, in their real shape.
  await source.collection("system.buckets.metrics").insertMany(
    Array.from({ length: 30 }, (_, i) => ({
      control: { version: 1, min: { at: new Date(1_700_000_000_000 + i * 60_000), value: i }, max: { at: new Date(1_700_000_059_000 + i * 60_000), value: i } },
      data: { at: { "0": new Date(1_700_000_000_000 + i * 60_000) }, value: { "0": i } },
    })),
  );
  await source.createCollection("recent_orders", { viewOn: "orders", pipeline: [{ $sort: { _id: -1 } }, { $limit: 5 }] });
  backupData = await snapshotDatabase(source);

  ({ file } = await backUpToBuffer({ uri: `${server.uri}source`, masterKey, chunkSize: CHUNK_SIZE, tools: { mode: "builtin" } }));
  expect(file.length).toBeGreaterThan(CHUNK_SIZE * 40);
});
afterAll(async () => {
  await client.close();
  await server.stop();
  await env.close();
});

// Before each test the target holds other data in some of the backup's collections, and a
// collection the backup does not have.
beforeEach(async () => {
  server.intercept(undefined);
  const target = client.db("target");
  await target.dropDatabase();
  await target.collection("orders").insertMany(rows(10, "old-order") as never[]);
  await target.collection("orders").createIndex({ tag: 1 });
  await target.collection("customers").insertMany(rows(5, "old-customer") as never[]);
  await target.collection("unrelated").insertOne({ _id: "mine" } as never);
  original = await snapshotDatabase(target);
});

function* slices(bytes: Buffer, size = 16 * 1024): Generator<Buffer> {
  for (let offset = 0; offset < bytes.length; offset += size) yield bytes.subarray(offset, offset + size);
}

function restore(bytes: Buffer, key = masterKey, tools: ToolsConfig = { mode: "builtin" }, collections?: string[]): Promise<unknown> {
  return restoreFromEncrypted({ uri, masterKey: key, input: Readable.from(slices(bytes)), tools, ...(collections ? { collections } : {}) }).then(
    () => undefined,
    (error: unknown) => error,
  );
}

const targetSnapshot = () => snapshotDatabase(client.db("target"));

/** Each collection of the target is wholly as before or wholly the backup's; returns which were replaced. */
function classify(now: CollectionSnapshot[]): string[] {
  const replaced: string[] = [];
  for (const collection of now) {
    const before = original.find((entry) => entry.name === collection.name);
    const fromBackup = backupData.find((entry) => entry.name === collection.name);
    if (before && JSON.stringify(before) === JSON.stringify(collection)) continue;
    expect(JSON.stringify(collection)).toBe(JSON.stringify(fromBackup));
    replaced.push(collection.name);
  }
  for (const before of original) if (!now.some((entry) => entry.name === before.name)) throw new Error(`${before.name} disappeared`);
  return replaced;
}

test("a complete restore replaces exactly the backup's collections (views, capped, time-series, collation included)", async () => {
  expect(await restore(file)).toBeUndefined();
  const now = await targetSnapshot();
  expect(now.filter((entry) => entry.name !== "unrelated")).toEqual(backupData);
  expect(now.find((entry) => entry.name === "unrelated")).toEqual(original.find((entry) => entry.name === "unrelated"));
});

test("a file cut short changes nothing", async () => {
  expect(await restore(file.subarray(0, file.length - CHUNK_SIZE * 2))).toBeInstanceOf(TruncatedArchiveError);
  expect(await targetSnapshot()).toEqual(original);
});

test("one corrupted chunk in the middle changes nothing", async () => {
  const damaged = Buffer.from(file);
  damaged[Math.floor(file.length / 2)]! ^= 0x01;
  expect(await restore(damaged)).toBeInstanceOf(CorruptChunkError);
  expect(await targetSnapshot()).toEqual(original);
});

test("the wrong key changes nothing", async () => {
  expect(await restore(file, generateMasterKey())).toBeInstanceOf(WrongKeyError);
  expect(await targetSnapshot()).toEqual(original);
});

test("MongoDB going away mid-insert changes nothing; the staging it left is removed at the next start", async () => {
  let inserts = 0;
  server.intercept(({ name }) => {
    if (name === "insert") inserts++;
    if (inserts >= 3 && name !== "hello" && name !== "isMaster") throw new CommandError(11600, "interrupted at shutdown");
  });
  const error = await restore(file);
  expect(error).toBeInstanceOf(DumpError);
  expect((error as DumpError).code).toBe("database-error");
  server.intercept(undefined); // MongoDB is back
  const now = await targetSnapshot();
  const staging = now.filter((entry) => entry.name.includes(".dbvault-restore-"));
  expect(staging.length).toBeGreaterThan(0);
  expect(now.filter((entry) => !staging.includes(entry))).toEqual(original);
  expect((await removeLeftoverStaging(uri)).length).toBe(staging.length);
  expect(await targetSnapshot()).toEqual(original);
});

test("a document MongoDB refuses changes nothing and leaves no staging", async () => {
  let inserts = 0;
  server.intercept(({ name, body }) => {
    if (name === "insert" && String(body.insert).startsWith("customers.") && ++inserts === 1) throw new CommandError(121, "Document failed validation");
  });
  const error = await restore(file);
  expect((error as DumpError).code).toBe("database-error");
  expect((error as Error).message).toContain("Document failed validation");
  expect(await targetSnapshot()).toEqual(original);
});

test("the agent killed mid-swap leaves each collection wholly old or wholly new; the next start cleans up and a new restore completes", async () => {
  const dir = await env.makeTempDir();
  const configPath = join(dir, "agent.json");
  await writeFile(
    configPath,
    JSON.stringify({ version: 1, masterKey: encodeMasterKey(masterKey), databases: [{ name: "target", uri }], tools: { mode: "builtin" } }),
    { mode: 0o600 },
  );
  const backupPath = join(dir, "backup.enc.dbvault");
  await writeFile(backupPath, file);
  const child = Bun.spawn([...SOURCE_COMMAND, "restore", "--db", "target", "--in", backupPath, "--config", configPath], { stdout: "ignore", stderr: "pipe" });
  let renames = 0;
  server.intercept(({ name }) => {
    // The second swap: the first collection is in place, the others still staged.
    if (name === "renameCollection" && ++renames === 2) {
      child.kill("SIGKILL");
      throw new CommandError(11600, "interrupted at shutdown");
    }
  });
  expect(await child.exited).not.toBe(0);
  server.intercept(undefined);
  const now = await targetSnapshot();
  const staging = now.filter((entry) => entry.name.includes(".dbvault-restore-"));
  expect(staging.length).toBeGreaterThan(0);
  expect(classify(now.filter((entry) => !staging.includes(entry)))).toHaveLength(1);

  await removeLeftoverStaging(uri);
  const cleaned = await targetSnapshot();
  expect(cleaned.some((entry) => entry.name.includes(".dbvault-restore-"))).toBe(false);
  expect(await restore(file)).toBeUndefined();
  expect((await targetSnapshot()).filter((entry) => entry.name !== "unrelated")).toEqual(backupData);
});

const realTools = findMongoTools();

async function expectSwapFailureNamed(tools: ToolsConfig, collections?: string[]): Promise<void> {
  let renames = 0;
  server.intercept(({ name }) => {
    if (name === "renameCollection" && ++renames === 2) throw new CommandError(11600, "interrupted at shutdown");
  });
  const error = (await restore(file, masterKey, tools, collections)) as DumpError;
  expect(error.code).toBe("restore-incomplete");
  const replaced = classify(await targetSnapshot());
  expect(replaced).toHaveLength(1);
  expect(error.message).toContain(`the restore stopped after swapping in 1 of ${collections?.length ?? 5} collection(s): replaced target.${replaced[0]}; `);
  expect(Object.keys(error.stats!.collections)).toEqual([`target.${replaced[0]}`]);
  // The staging of the others was dropped on the way out.
  await waitUntil(async () => !(await targetSnapshot()).some((entry) => entry.name.includes(".dbvault-restore-")), { message: "no staging left" });
}

test("a swap that fails part-way says which collections were replaced and which are unchanged", () => expectSwapFailureNamed({ mode: "builtin" }));

// mongorestore only ever writes staging collections; the swap after it is the agent's. The test
// server keeps no time-series buckets for mongorestore to write into, so metrics is left out.
test.skipIf(realTools.missing !== null)(
  `with the real mongorestore, a swap that fails part-way says the same${realTools.missing ? ` [skipped: ${realTools.missing}]` : ""}`,
  () => expectSwapFailureNamed({ mode: "native", mongorestore: realTools.tools!.mongorestore }, ["orders", "customers", "log", "recent_orders"]),
);
