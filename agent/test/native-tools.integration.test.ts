// The native path: mongodump/mongorestore found on PATH or configured. The real tools cannot be
// installed on the machines that run this suite (STACK-NOTES.md), so fake-tools/ holds small
// stand-ins that record how they were called and emit a real mongodump archive or read stdin.
// What matters here is the agent's side: the connection string travels in a 0600 config file
// in a private directory that is gone afterwards, never in argv; progress and stats come from
// the tools' output; a failure's message is redacted; a wrong key never starts mongorestore.
import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Readable, Writable } from "node:stream";
import { encryptBuffer, generateMasterKey, WrongKeyError } from "../src/archive/index.ts";
import { BSON, MongoClient } from "mongodb";
import { chooseEngine, DumpError, dumpDatabase, type Progress, restoreFromEncrypted } from "../src/dump/index.ts";
import { type MongoTestServer, startMongoTestServer } from "../../testkit/mongo-server/index.ts";
import { snapshotDatabase } from "./support/database-snapshot.ts";

const FAKE_TOOLS = new URL("./fake-tools/", import.meta.url).pathname;
const ARCHIVE = new URL("../test-data/mongodump-archives/modern-5k.archive", import.meta.url).pathname;
const SECRET_URI = "mongodb://backup-user:s3cr%40t-pa55@db1.example.net:27017,db2.example.net/shop?replicaSet=rs0";
const tools = { mongodump: join(FAKE_TOOLS, "mongodump"), mongorestore: join(FAKE_TOOLS, "mongorestore") };

let log: string;
let server: MongoTestServer;
let mongo: MongoClient;
// A restore connects to MongoDB itself (staging and swap), so it needs a server on loopback; the
// user and password are there to prove they never reach mongorestore's argv.
const restoreUri = (db: string) => `mongodb://backup-user:s3cr%40t-pa55@127.0.0.1:${server.port}/${db}?authSource=admin`;

beforeAll(async () => {
  log = await mkdtemp(join(tmpdir(), "dbvault-fake-tools-"));
  server = await startMongoTestServer({ users: [{ username: "backup-user", password: "s3cr@t-pa55" }] });
  mongo = await new MongoClient(restoreUri("admin")).connect();
});
afterAll(async () => {
  await mongo.close();
  await server.stop();
  await rm(log, { recursive: true, force: true });
});
beforeEach(async () => {
  // The fake tools read these from the environment they inherit.
  for (const key of ["FAKE_FAIL", "FAKE_TOOL_VERSION", "FAKE_RESTORE_STDERR", "FAKE_EXIT_CODE"]) delete process.env[key];
  process.env.FAKE_TOOL_LOG = log;
  process.env.FAKE_DUMP_ARCHIVE = ARCHIVE;
  await rm(log, { recursive: true, force: true });
  await import("node:fs/promises").then((fs) => fs.mkdir(log, { recursive: true }));
  server?.intercept(undefined);
});
afterAll(() => {
  for (const key of ["FAKE_FAIL", "FAKE_TOOL_VERSION", "FAKE_RESTORE_STDERR", "FAKE_EXIT_CODE", "FAKE_TOOL_LOG", "FAKE_DUMP_ARCHIVE"]) delete process.env[key];
});

function collect(): { stream: Writable; bytes(): Buffer } {
  const chunks: Buffer[] = [];
  return {
    stream: new Writable({
      write(chunk, _encoding, callback) {
        chunks.push(chunk);
        callback();
      },
    }),
    bytes: () => Buffer.concat(chunks),
  };
}

async function readLog(name: string): Promise<string> {
  return readFile(join(log, name), "utf8");
}

test("mongodump gets the connection string in a 0600 file, not in argv, and its archive is streamed out unchanged", async () => {
  const output = collect();
  const progress: Progress[] = [];
  const result = await dumpDatabase({ uri: SECRET_URI, output: output.stream, tools, progressIntervalMs: 0, onProgress: (p) => progress.push(p) });

  expect(output.bytes().equals(await readFile(ARCHIVE))).toBe(true);
  expect(result).toMatchObject({ engine: "native", documents: 5000, collections: { "shop.orders": 5000, "shop.empty": 0 } });
  const argv = (await readLog("mongodump.argv")).trim().split("\n");
  expect(argv[0]).toMatch(/^--config=.*tool-config\.yaml$/);
  expect(argv.slice(1)).toEqual(["--archive", "--db=shop"]);
  for (const arg of argv) {
    expect(arg).not.toContain("s3cr");
    expect(arg).not.toContain("backup-user");
    expect(arg).not.toContain("example.net");
  }
  // The database moved out of the path into authSource, where it also names the auth database.
  expect(await readLog("mongodump.config")).toBe(
    'uri: "mongodb://backup-user:s3cr%40t-pa55@db1.example.net:27017,db2.example.net/?replicaSet=rs0&authSource=shop"\n',
  );
  expect((await readLog("mongodump.config-mode")).trim()).toBe("600");
  expect((await readLog("mongodump.config-dir-mode")).trim()).toBe("700");
  expect(existsSync(dirname(argv[0]!.slice("--config=".length)))).toBe(false);

  expect(progress).toContainEqual({ current: 2000, total: 5000, percentage: 40, collection: "shop.orders" });
  expect(progress.at(-1)).toEqual({ current: 5000, total: 5000, percentage: 100, collection: "shop.empty" });
});

test("a failing mongodump is reported with its own reason, without the password, and its config file is removed", async () => {
  process.env.FAKE_FAIL = `error connecting to db server: auth failed for ${SECRET_URI}`;
  const output = collect();
  const error = await dumpDatabase({ uri: SECRET_URI, output: output.stream, tools }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(DumpError);
  expect((error as DumpError).code).toBe("tool-failed");
  expect((error as Error).message).toBe(
    "mongodump exited with code 1: error connecting to db server: auth failed for mongodb://db1.example.net:27017,db2.example.net",
  );
  const argv = (await readLog("mongodump.argv")).trim().split("\n");
  expect(existsSync(argv[0]!.slice("--config=".length))).toBe(false);
});

// The fake mongorestore cannot write to MongoDB. The test server's interceptor stands in for what
// the real one writes: the staging collection named by each --nsTo, created when the agent asks to
// rename it (documents marked with the staging name they arrived under).
function actAsMongorestoreWrites(server: MongoTestServer): string[] {
  const renamed: string[] = [];
  server.intercept(({ name, body }) => {
    if (name !== "renameCollection") return;
    const from = String(body.renameCollection);
    const [db, ...rest] = from.split(".");
    const collection = server.state.ensureCollection(db!, rest.join(".")).collection;
    if (collection.documents.size === 0) collection.insertDocument(Buffer.from(BSON.serialize({ _id: 1, stagedAs: rest.join(".") })));
    renamed.push(`${from} -> ${String(body.to)}`);
  });
  return renamed;
}

test("mongorestore restores into staging names (--nsFrom/--nsTo), then each is swapped in; its counts become the stats", async () => {
  const masterKey = generateMasterKey();
  const archive = await readFile(ARCHIVE);
  const file = await encryptBuffer(archive, { masterKey, chunkSize: 4096 });
  await mongo
    .db("shop")
    .collection("orders")
    .insertOne({ _id: "old" } as never);
  const renamed = actAsMongorestoreWrites(server);
  const stderrFile = join(log, "..", `restore-stderr-${Date.now()}.txt`);
  await writeFile(
    stderrFile,
    [
      "2024-05-01T10:00:00.000+0000\trestoring shop.orders from archive on stdin",
      "2024-05-01T10:00:01.000+0000\tfinished restoring shop.orders (5000 documents, 0 failures)",
      "2024-05-01T10:00:01.000+0000\tfinished restoring shop.empty (0 documents, 0 failures)",
      "2024-05-01T10:00:01.000+0000\t5000 document(s) restored successfully. 0 document(s) failed to restore.",
    ].join("\n"),
  );
  process.env.FAKE_RESTORE_STDERR = stderrFile;
  const progress: Progress[] = [];
  const result = await restoreFromEncrypted({
    uri: restoreUri("shop"),
    masterKey,
    input: Readable.from([file]),
    inputBytes: file.length,
    tools,
    progressIntervalMs: 0,
    onProgress: (p) => progress.push(p),
  });
  await rm(stderrFile, { force: true });

  expect((await readFile(join(log, "mongorestore.stdin"))).equals(archive)).toBe(true);
  const argv = (await readLog("mongorestore.argv")).trim().split("\n");
  expect(argv.slice(1, 3)).toEqual(["--archive", "--drop"]);
  const staging = /^--nsTo=shop\.orders\.dbvault-restore-([0-9a-z]{6})$/.exec(argv[5]!)?.[1];
  expect(staging).toBeString();
  expect(argv.slice(3)).toEqual([
    "--nsInclude=shop.orders",
    "--nsFrom=shop.orders",
    `--nsTo=shop.orders.dbvault-restore-${staging}`,
    "--nsInclude=shop.empty",
    "--nsFrom=shop.empty",
    `--nsTo=shop.empty.dbvault-restore-${staging}`,
  ]);
  expect(argv.join(" ")).not.toContain("s3cr");
  expect((await readLog("mongorestore.config-mode")).trim()).toBe("600");
  expect(renamed).toEqual([`shop.orders.dbvault-restore-${staging} -> shop.orders`, `shop.empty.dbvault-restore-${staging} -> shop.empty`]);
  expect((await mongo.db("shop").collection("orders").find().toArray()) as unknown[]).toEqual([{ _id: 1, stagedAs: `orders.dbvault-restore-${staging}` }]);
  expect(result).toEqual({
    engine: "native",
    collections: { "shop.orders": { restored: 5000, failed: 0 }, "shop.empty": { restored: 0, failed: 0 } },
    restored: 5000,
    failed: 0,
    skipped: ["other.x"],
  });
  expect(progress[0]).toEqual({ current: 0, total: 0, percentage: 0, collection: "Verifying backup…" });
  expect(progress.find((p) => p.collection === "shop.orders")).toMatchObject({ total: 5000 });
  expect(progress.at(-1)).toMatchObject({ current: 5000, total: 5000, percentage: 100 });
});

test("restoring into another database stages under that database's name", async () => {
  const masterKey = generateMasterKey();
  const file = await encryptBuffer(await readFile(new URL("../test-data/mongodump-archives/test.bar.archive", import.meta.url)), { masterKey });
  actAsMongorestoreWrites(server);
  await restoreFromEncrypted({ uri: restoreUri("copy"), masterKey, input: [file], tools });
  const argv = (await readLog("mongorestore.argv")).trim().split("\n");
  expect(argv.slice(3, 5)).toEqual(["--nsInclude=test.bar", "--nsFrom=test.bar"]);
  expect(argv[5]).toMatch(/^--nsTo=copy\.bar\.dbvault-restore-[0-9a-z]{6}$/);
  expect(await mongo.db("copy").collection("bar").countDocuments()).toBe(1);
});

test("a wrong key fails before mongorestore is started", async () => {
  const file = await encryptBuffer(await readFile(ARCHIVE), { masterKey: generateMasterKey() });
  const error = await restoreFromEncrypted({ uri: restoreUri("shop"), masterKey: generateMasterKey(), input: [file], tools }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(WrongKeyError);
  expect(existsSync(join(log, "mongorestore.argv"))).toBe(false);
});

test("tools older than 100.3 are not used: auto mode falls back to built-in with a notice, a configured path is an error", async () => {
  process.env.FAKE_TOOL_VERSION = "100.2.1";
  const originalPath = process.env.PATH;
  process.env.PATH = `${FAKE_TOOLS}:${originalPath}`;
  try {
    const notices: string[] = [];
    expect(await chooseEngine("mongodump", undefined, (m) => notices.push(m))).toEqual({ engine: "builtin" });
    expect(notices).toEqual([
      `mongodump 100.2.1 at ${tools.mongodump} is older than 100.3 and cannot read the connection string from a file; using the built-in engine`,
    ]);
    const error = await chooseEngine("mongodump", { mongodump: tools.mongodump }, undefined).catch((e: unknown) => e);
    expect((error as DumpError).code).toBe("tool-unavailable");
    delete process.env.FAKE_TOOL_VERSION;
    expect(await chooseEngine("mongorestore", undefined, undefined)).toEqual({ engine: "native", path: tools.mongorestore, version: "100.9.4" });
    expect(await chooseEngine("mongorestore", { mode: "builtin" }, undefined)).toEqual({ engine: "builtin" });
  } finally {
    process.env.PATH = originalPath;
  }
});

test("mode native without the tools on PATH is an error naming what to install", async () => {
  const originalPath = process.env.PATH;
  process.env.PATH = "/nonexistent";
  try {
    const error = await chooseEngine("mongorestore", { mode: "native" }, undefined).catch((e: unknown) => e);
    expect((error as DumpError).code).toBe("tool-unavailable");
    expect((error as Error).message).toBe("mongorestore was not found on PATH");
    expect(await chooseEngine("mongorestore", undefined, undefined)).toEqual({ engine: "builtin" });
  } finally {
    process.env.PATH = originalPath;
  }
});

test("with mongo-tools 100.16+ output (names in backticks), counts are exact; refused documents or a failing mongorestore change nothing", async () => {
  const masterKey = generateMasterKey();
  const file = await encryptBuffer(await readFile(ARCHIVE), { masterKey, chunkSize: 4096 });
  const stderrFile = join(log, "..", `restore-stderr-ticks-${Date.now()}.txt`);
  const lines = (failures: number) =>
    [
      "2026-11-24T03:16:42.107+0000\trestoring `shop.orders` from `archive on stdin`",
      `2026-11-24T03:16:42.118+0000\tfinished restoring \`shop.orders\` (${5000 - failures} documents, ${failures} failures)`,
      "2026-11-24T03:16:42.119+0000\trestoring `shop.empty` from `archive on stdin`",
      "2026-11-24T03:16:42.120+0000\tfinished restoring `shop.empty` (0 documents, 0 failures)",
      "2026-11-24T03:16:42.121+0000\tno indexes to restore for collection `shop.empty`",
      `2026-11-24T03:16:42.200+0000\t${5000 - failures} document(s) restored successfully. ${failures} document(s) failed to restore.`,
    ].join("\n");
  process.env.FAKE_RESTORE_STDERR = stderrFile;
  actAsMongorestoreWrites(server);
  const restore = () =>
    restoreFromEncrypted({ uri: restoreUri("shop"), masterKey, input: Readable.from([file]), inputBytes: file.length, tools, progressIntervalMs: 0 });
  try {
    await writeFile(stderrFile, lines(0));
    const result = await restore();
    expect(result.collections).toEqual({ "shop.orders": { restored: 5000, failed: 0 }, "shop.empty": { restored: 0, failed: 0 } });
    expect(result.restored).toBe(5000);

    await mongo.db("shop").collection("orders").deleteMany({});
    await mongo
      .db("shop")
      .collection("orders")
      .insertOne({ _id: "before" } as never);
    const before = await snapshotDatabase(mongo.db("shop"));
    await writeFile(stderrFile, lines(2));
    const refused = await restore().catch((error) => error);
    expect(refused.code).toBe("database-error");
    expect(refused.message).toBe("mongorestore could not restore 2 document(s), so nothing was replaced");
    expect(await snapshotDatabase(mongo.db("shop"))).toEqual(before);

    process.env.FAKE_FAIL = "shop.types: error restoring from archive on stdin: write exception";
    const failure = await restore().catch((error) => error);
    expect(failure).toBeInstanceOf(DumpError);
    expect(failure.code).toBe("tool-failed");
    expect(await snapshotDatabase(mongo.db("shop"))).toEqual(before);
  } finally {
    await rm(stderrFile, { force: true });
  }
});

// What real mongorestore 100.15.0 and 100.18.0 printed when they failed part-way (a document it
// could not write, an archive cut short): the agent reports mongorestore's own reason, and since
// mongorestore only ever wrote staging collections, nothing of the user's was replaced.
test.each(["100.15.0-partial-failure", "100.18.0-partial-failure", "100.15.0-truncated-input", "100.18.0-truncated-input"])(
  "mongorestore %s: its reason is reported and the database is unchanged",
  async (log) => {
    const masterKey = generateMasterKey();
    const file = await encryptBuffer(await readFile(ARCHIVE), { masterKey });
    const stderrFile = new URL(`../test-data/mongo-tools-logs/mongorestore-${log}.log`, import.meta.url).pathname;
    const reason = /\tFailed: (.+)$/m.exec(await readFile(stderrFile, "utf8"))![1]!;
    process.env.FAKE_RESTORE_STDERR = stderrFile;
    process.env.FAKE_EXIT_CODE = "1";
    await mongo.db("shop").collection("orders").deleteMany({});
    await mongo
      .db("shop")
      .collection("orders")
      .insertOne({ _id: `before ${log}` } as never);
    const before = await snapshotDatabase(mongo.db("shop"));
    const error = await restoreFromEncrypted({ uri: restoreUri("shop"), masterKey, input: [file], tools }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DumpError);
    expect((error as DumpError).code).toBe("tool-failed");
    expect((error as Error).message).toBe(`mongorestore exited with code 1: ${reason}`);
    expect(await snapshotDatabase(mongo.db("shop"))).toEqual(before);
  },
);

test("mongodump cannot leave users and roles out of a dump of every database: auto mode uses the built-in engine, native mode refuses", async () => {
  const notices: string[] = [];
  const output = collect();
  const everything = restoreUri("");
  const result = await dumpDatabase({
    uri: everything,
    output: output.stream,
    tools: { mode: "auto", ...tools },
    usersAndRoles: false,
    onNotice: (m) => notices.push(m),
  });
  expect(result.engine).toBe("builtin");
  expect(notices).toEqual(["mongodump cannot leave users and roles out of a dump of every database; using the built-in engine"]);
  expect(existsSync(join(log, "mongodump.argv"))).toBe(false);
  const destroyed = collect().stream.on("error", () => undefined); // the output is destroyed with the error
  const refused = await dumpDatabase({ uri: everything, output: destroyed, tools: { mode: "native", ...tools }, usersAndRoles: false }).catch(
    (e: unknown) => e,
  );
  expect(refused).toBeInstanceOf(DumpError);
  expect((refused as DumpError).code).toBe("unsupported");
  // With users and roles, or for one database, mongodump runs as usual.
  expect((await dumpDatabase({ uri: restoreUri("shop"), output: collect().stream, tools: { mode: "native", ...tools }, usersAndRoles: false })).engine).toBe(
    "native",
  );
});
