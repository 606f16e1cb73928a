// A built-in dump of a replica set is one point in time, as `mongodump --oplog` makes it: writes
// that land while the collections are read (after one collection was read whole, so they reach
// the archive only through its oplog) are in the archive's oplog namespace, and the real
// `mongorestore --oplogReplay` of the archive gives the source exactly as it was at the dump's
// end (T1). The writes land mid-dump deterministically: the agent stops itself after its first
// collection (DBVAULT_TEST_PAUSE_AT=dump-collection-done, src/dump/test-pause.ts), the test
// writes (a multi-document transaction included), then lets it go on. mongodump of one database
// (which cannot take --oplog) gets the same window from the agent, added after its archive. A
// standalone server's dump holds no oplog and says it is not point-in-time consistent.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { Writable } from "node:stream";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BSON, type Db, type Document, Int32, MongoClient } from "mongodb";
import { encodeMasterKey, generateMasterKey } from "../src/archive/index.ts";
import { dumpDatabase } from "../src/dump/index.ts";
import { OPLOG_NAMESPACE, readMongodumpArchive } from "../src/dump/mongodump-archive/index.ts";
import { findMongoTools } from "../../testkit/mongo-tools.ts";
import { type MongoTestServer, startMongoTestServer } from "../../testkit/mongo-server/index.ts";
import { CommandError } from "../../testkit/mongo-server/errors.ts";
import { runTool } from "../../testkit/mongo-server/replica-set/test-support.ts";
import type { LooseDocument } from "../../testkit/mongo-server/test-support.ts";
import { waitUntil } from "../../testkit/wait-until.ts";
import { runAgent, SOURCE_COMMAND, REPO_ROOT } from "./support/run-agent.ts";

const { tools, missing } = findMongoTools();
const TYPED = { promoteValues: false, promoteBuffers: false, bsonRegExp: true } as const;
const PAUSED = "dbvault-test-paused-at dump-collection-done";

let source: MongoTestServer;
let standalone: MongoTestServer;
let target: MongoTestServer;
let client: MongoClient;
let dir: string;
const masterKey = encodeMasterKey(generateMasterKey());

beforeAll(async () => {
  source = await startMongoTestServer({ replicaSet: { name: "rs0" } });
  standalone = await startMongoTestServer();
  target = await startMongoTestServer({ replicaSet: { name: "rs1" } });
  client = await new MongoClient(source.uri, { serverSelectionTimeoutMS: 5000 }).connect();
  dir = await mkdtemp(join(tmpdir(), "dbvault-consistent-dump-"));
});
afterAll(async () => {
  await client.close();
  await Promise.all([source.stop(), standalone.stop(), target.stop()]);
  await rm(dir, { recursive: true, force: true });
});

/** A database's contents, comparable exactly whatever order mongorestore wrote them in. */
async function contentsOf(db: Db): Promise<Record<string, { options: string; indexes: string[]; documents: string[] }>> {
  const infos = (await db.listCollections({}, TYPED).toArray()) as Document[];
  const out: Record<string, { options: string; indexes: string[]; documents: string[] }> = {};
  for (const info of infos.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const name = String(info.name);
    const indexes = ((await db.collection(name).listIndexes(TYPED).toArray()) as Document[])
      // mongorestore rebuilds index specs from a Go map: their top-level field order varies.
      .map((spec) => Buffer.from(BSON.serialize(Object.fromEntries(Object.entries(spec).sort(([a], [b]) => (a < b ? -1 : 1))))).toString("hex"))
      .sort();
    const documents = ((await db.collection(name).find({}, { raw: true }).toArray()) as unknown as Uint8Array[])
      .map((bytes) => Buffer.from(bytes).toString("base64"))
      .sort();
    out[name] = { options: Buffer.from(BSON.serialize((info.options as Document) ?? {})).toString("hex"), indexes, documents };
  }
  return out;
}

async function writeConfig(name: string, uri: string): Promise<string> {
  const path = join(dir, `${name}.json`);
  await writeFile(path, JSON.stringify({ version: 1, masterKey, databases: [{ name: "shop", uri }], tools: { mode: "builtin" } }), { mode: 0o600 });
  return path;
}

/** `dbvault-agent dump --db shop` run until it has read its first collection whole, stopped there. */
async function startPausedDump(config: string, file: string): Promise<{ resume(): Promise<{ code: number; stderr: string }> }> {
  const child = Bun.spawn([...SOURCE_COMMAND, "dump", "--db", "shop", "--out", file, "--config", config], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH, HOME: "/nonexistent-home", DBVAULT_TEST_PAUSE_AT: "dump-collection-done" } as Record<string, string>,
    stdout: "pipe",
    stderr: "pipe",
  });
  let stderr = "";
  const reading = (async () => {
    for await (const chunk of child.stderr) stderr += new TextDecoder().decode(chunk);
  })();
  await waitUntil(() => stderr.includes(PAUSED) || child.exitCode !== null, { timeout: 30_000, message: "the dump to finish its first collection" });
  expect(stderr).toContain(PAUSED);
  // The line is written just before the agent stops itself: wait until it has.
  await waitUntil(async () => (await Bun.file(`/proc/${child.pid}/stat`).text()).split(") ")[1]!.startsWith("T"), {
    timeout: 10_000,
    message: "the agent to stop itself",
  });
  return {
    async resume() {
      child.kill("SIGCONT");
      const code = await child.exited;
      await reading;
      return { code, stderr };
    },
  };
}

/** The plain archive of an encrypted backup (decrypted by the agent itself) and its oplog entries. */
async function decryptArchive(config: string, file: string): Promise<{ path: string; oplog: Document[]; namespaces: string[] }> {
  const path = `${file}.archive`;
  const decrypted = await runAgent(["decrypt", "--in", file, "--out", path, "--config", config]);
  expect(decrypted.exitCode).toBe(0);
  return { path, ...(await readArchive(path)) };
}

/** An archive's prelude namespaces and its oplog entries, read (and CRC-checked) by the agent's reader. */
async function readArchive(path: string): Promise<{ oplog: Document[]; namespaces: string[] }> {
  const oplog: Document[] = [];
  const namespaces: string[] = [];
  for await (const event of readMongodumpArchive([await readFile(path)])) {
    if (event.kind === "collection") namespaces.push(event.metadata.namespace);
    if (event.kind === "document" && event.namespace === OPLOG_NAMESPACE) oplog.push(BSON.deserialize(event.bytes, TYPED));
  }
  return { oplog, namespaces };
}

/** The contents of `database` on a fresh replica-set server after the real mongorestore --oplogReplay of `archive`. */
async function restoreWithOplogReplay(archive: string, database: string) {
  const fresh = await startMongoTestServer({ replicaSet: { name: "rs2" } });
  const freshClient = await new MongoClient(fresh.uri, { serverSelectionTimeoutMS: 5000 }).connect();
  try {
    const restore = await runTool(tools!.mongorestore, [`--uri=${fresh.uri}`, "--oplogReplay", `--archive=${archive}`]);
    expect({ code: restore.code, replayed: /applied \d+ oplog entries/.test(restore.stderr) }).toEqual({ code: 0, replayed: true });
    return {
      contents: await contentsOf(freshClient.db(database)),
      others: (await freshClient.db().admin().listDatabases()).databases.map((entry) => entry.name),
    };
  } finally {
    await freshClient.close();
    await fresh.stop();
  }
}

test.skipIf(missing !== null)(
  `a built-in dump of a replica set under writes holds its oplog window, and mongorestore --oplogReplay gives the source as at T1${missing ? ` (skipped: ${missing})` : ""}`,
  async () => {
    const shop = client.db("shop");
    const pad = "p".repeat(200);
    // "lines" is read whole long before "orders" (the larger one) ends: the pause falls between.
    await shop.collection<LooseDocument>("lines").insertMany(Array.from({ length: 20 }, (_, i) => ({ _id: `l${i}`, order: i, qty: new Int32(1) })));
    await shop.collection<LooseDocument>("orders").createIndex({ customer: 1 }, { name: "by_customer" });
    await shop
      .collection<LooseDocument>("orders")
      .insertMany(Array.from({ length: 6000 }, (_, i) => ({ _id: i, customer: `c${i % 13}`, total: new Int32(i), pad })));
    await client.db("other").collection<LooseDocument>("x").insertOne({ _id: 1 });

    const config = await writeConfig("rs", `${source.uri.replace(/\/?(\?|$)/, "/shop$1")}`);
    const file = join(dir, "rs.enc.dbvault");
    const dump = await startPausedDump(config, file);
    // Mid-dump writes: to the collection already read, to the one being read, a new collection,
    // another database, and a transaction over both collections and the other database.
    await shop.collection<LooseDocument>("lines").insertOne({ _id: "late", order: 1, qty: new Int32(7) });
    await shop.collection<LooseDocument>("lines").updateOne({ _id: "l3" }, { $set: { qty: new Int32(3) }, $unset: { order: "" } });
    await shop.collection<LooseDocument>("lines").deleteOne({ _id: "l4" });
    await shop.collection<LooseDocument>("orders").updateMany({ customer: "c1" }, { $inc: { total: 1000 } });
    await shop.collection<LooseDocument>("orders").deleteMany({ customer: "c2" });
    await shop.createCollection("created", { capped: true, size: 4096 });
    await shop.collection<LooseDocument>("created").insertOne({ _id: 1, note: "made mid-dump" });
    await client.db("other").collection<LooseDocument>("x").insertOne({ _id: 2 });
    const session = client.startSession();
    await session.withTransaction(async () => {
      await shop.collection<LooseDocument>("lines").insertOne({ _id: "txn", order: 2, qty: new Int32(2) }, { session });
      await shop.collection<LooseDocument>("orders").updateOne({ _id: 5 }, { $set: { customer: "in-txn" } }, { session });
      await client.db("other").collection<LooseDocument>("x").insertOne({ _id: "txn" }, { session });
    });
    await session.endSession();
    const atT1 = await contentsOf(shop);
    const { code, stderr } = await dump.resume();
    expect({ code, stderr }).toMatchObject({ code: 0 });
    expect(stderr).toMatch(/consistent at \d{4}-\d\d-\d\dT[\d:.]+Z \(oplog timestamp \{t: \d+, i: \d+\}\)/);

    const archive = await decryptArchive(config, file);
    expect(archive.namespaces).toContain(OPLOG_NAMESPACE);
    // The window ends with the no-op at T1 that tells the backup's consistent point.
    expect(archive.oplog.at(-1)).toMatchObject({ op: "n", ns: "", o: { msg: "dbvault consistent point" } });
    const namespaces = archive.oplog.slice(0, -1).map((entry) => String(entry.ns));
    // Only the dumped database's entries, the transaction cut down to its operations on shop.
    expect(namespaces.every((ns) => ns.startsWith("shop.") || ns === "admin.$cmd")).toBe(true);
    const transaction = archive.oplog.find((entry) => entry.ns === "admin.$cmd")!;
    expect((transaction.o.applyOps as Document[]).map((op) => String(op.ns)).sort()).toEqual(["shop.lines", "shop.orders"]);
    expect(namespaces).toContain("shop.lines");
    expect(namespaces).toContain("shop.$cmd");

    const restore = await runTool(tools!.mongorestore, [`--uri=${target.uri}`, "--oplogReplay", `--archive=${archive.path}`]);
    expect({ code: restore.code, replayed: /applied \d+ oplog entries/.test(restore.stderr) }).toEqual({ code: 0, replayed: true });
    const targetClient = await new MongoClient(target.uri, { serverSelectionTimeoutMS: 5000 }).connect();
    try {
      expect(await contentsOf(targetClient.db("shop"))).toEqual(atT1);
      expect(await targetClient.db("other").collection("x").countDocuments()).toBe(0);
    } finally {
      await targetClient.close();
    }
  },
  120_000,
);

test("a collection renamed while the dump runs fails the dump, as mongodump --oplog refuses it: the archive would not replay", async () => {
  const shop = client.db("shop");
  await shop.collection<LooseDocument>("renamed_small").insertOne({ _id: 1 });
  await shop.collection<LooseDocument>("renamed_large").insertMany(Array.from({ length: 3000 }, (_, i) => ({ _id: i })));
  const config = await writeConfig("rename", source.uri.replace(/\/?(\?|$)/, "/shop$1"));
  const dump = await startPausedDump(config, join(dir, "rename.enc.dbvault"));
  await shop.collection("renamed_small").rename("renamed_later");
  const { code, stderr } = await dump.resume();
  expect(code).not.toBe(0);
  expect(stderr).toContain("dbvault-agent: renameCollection ran on the database while it was dumped: a point-in-time backup cannot hold it\n");
  expect(stderr).toContain("hint: back up again: a rename between two backups is fine, only one during a backup stops it");
  await shop.collection("renamed_later").drop();
  await shop.collection("renamed_large").drop();
}, 60_000);

test.skipIf(missing !== null)(
  `mongodump of one database on a replica set gets the oplog window from the agent; mongorestore --oplogReplay gives the source as at T1${missing ? ` (skipped: ${missing})` : ""}`,
  async () => {
    const sales = client.db("sales");
    const pad = "q".repeat(200);
    await sales.collection<LooseDocument>("invoices").insertMany(Array.from({ length: 20000 }, (_, i) => ({ _id: i, amount: new Int32(i), pad })));
    await sales.collection<LooseDocument>("notes").insertMany(Array.from({ length: 10 }, (_, i) => ({ _id: i, text: `n${i}` })));
    // The archive's first bytes are held back until the writes are done: mongodump, its stdout
    // full, waits mid-dump, and the agent reads T1 only after mongodump's archive has passed.
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    let firstChunk: () => void = () => {};
    const started = new Promise<void>((resolve) => (firstChunk = resolve));
    const chunks: Buffer[] = [];
    const output = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        chunks.push(Buffer.from(chunk));
        firstChunk();
        released.then(() => callback());
      },
    });
    const dumped = dumpDatabase({ uri: source.uri.replace(/\/?(\?|$)/, "/sales$1"), output, tools: { mode: "native", mongodump: tools!.mongodump } });
    await started;
    await sales.collection<LooseDocument>("notes").insertOne({ _id: "late", text: "mid-dump" });
    await sales.collection<LooseDocument>("invoices").updateMany({ _id: { $lt: 100 } }, { $inc: { amount: 7 } });
    await sales.collection<LooseDocument>("invoices").deleteMany({ _id: { $gte: 19990 } });
    const session = client.startSession();
    await session.withTransaction(async () => {
      await sales.collection<LooseDocument>("notes").deleteOne({ _id: 0 }, { session });
      await sales.collection<LooseDocument>("invoices").insertOne({ _id: "txn", amount: new Int32(1) }, { session });
    });
    await session.endSession();
    const atT1 = await contentsOf(sales);
    release();
    const result = await dumped;
    expect(result.engine).toBe("native");
    expect(result.consistency?.kind).toBe("point-in-time");

    const path = join(dir, "native.archive");
    await writeFile(path, Buffer.concat(chunks));
    const archive = await readArchive(path);
    expect(archive.namespaces).toContain(OPLOG_NAMESPACE);
    expect(archive.oplog.length).toBeGreaterThan(0);
    expect(archive.oplog.at(-1)).toMatchObject({ op: "n", ns: "", o: { msg: "dbvault consistent point" } });
    expect(archive.oplog.slice(0, -1).every((entry) => String(entry.ns).startsWith("sales.") || entry.ns === "admin.$cmd")).toBe(true);
    const restored = await restoreWithOplogReplay(path, "sales");
    expect(restored.contents).toEqual(atT1);
  },
  120_000,
);

test.skipIf(missing !== null)(
  `mongodump of every database on a replica set takes --oplog, and the backup's consistentAt is its window's last entry${missing ? ` (skipped: ${missing})` : ""}`,
  async () => {
    const chunks: Buffer[] = [];
    const output = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        chunks.push(Buffer.from(chunk));
        callback();
      },
    });
    const result = await dumpDatabase({ uri: source.uri, output, tools: { mode: "native", mongodump: tools!.mongodump } });
    expect(result.engine).toBe("native");
    const path = join(dir, "everything.archive");
    await writeFile(path, Buffer.concat(chunks));
    const { oplog } = await readArchive(path);
    const last = oplog.at(-1)!;
    expect(result.consistency).toEqual({
      kind: "point-in-time",
      at: { time: new Date(last.ts.high * 1000).toISOString(), ts: { t: last.ts.high, i: last.ts.low } },
    });
    const restored = await restoreWithOplogReplay(path, "sales");
    expect(restored.contents).toEqual(await contentsOf(client.db("sales")));
  },
  120_000,
);

test("a database user who may not read the oplog still gets a backup, said not to be point-in-time consistent", async () => {
  // The test server has no roles: the refusal mongod gives a user without the backup role is played.
  source.intercept(({ name, db, body }) => {
    if (name === "find" && db === "local" && body.find === "oplog.rs")
      throw new CommandError(13, 'not authorized on local to execute command { find: "oplog.rs" }');
  });
  try {
    const notices: string[] = [];
    const chunks: Buffer[] = [];
    const output = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        chunks.push(Buffer.from(chunk));
        callback();
      },
    });
    const uri = source.uri.replace(/\/?(\?|$)/, "/sales$1");
    const result = await dumpDatabase({ uri, output, tools: { mode: "builtin" }, onNotice: (notice) => notices.push(notice) });
    expect(result.consistency).toBeUndefined();
    expect(notices).toEqual([
      'the database user may not read the oplog (local.oplog.rs: not authorized on local to execute command { find: "oplog.rs" }), so this backup is not point-in-time consistent; give it the backup role to make backups consistent',
    ]);
    const path = join(dir, "unreadable.archive");
    await writeFile(path, Buffer.concat(chunks));
    expect((await readArchive(path)).namespaces).not.toContain(OPLOG_NAMESPACE);
  } finally {
    source.intercept(undefined);
  }
});

test("a built-in dump of a standalone server holds no oplog and says it is not point-in-time consistent", async () => {
  const standaloneClient = await new MongoClient(standalone.uri, { serverSelectionTimeoutMS: 5000 }).connect();
  await standaloneClient.db("shop").collection<LooseDocument>("orders").insertOne({ _id: 1 });
  await standaloneClient.close();
  const config = await writeConfig("standalone", standalone.uri.replace(/\/?(\?|$)/, "/shop$1"));
  const file = join(dir, "standalone.enc.dbvault");
  const run = await runAgent(["dump", "--db", "shop", "--out", file, "--config", config]);
  expect(run.exitCode).toBe(0);
  expect(run.stderr).toContain("dbvault-agent: not point-in-time consistent (standalone server)\n");
  const archive = await decryptArchive(config, file);
  expect(archive.namespaces).toEqual(["shop.orders"]);
  expect(archive.oplog).toEqual([]);
});
