// Archives written by MongoDB's own mongodump (agent/test-data/mongodump-archives) restore with
// the built-in restorer, document for document; and the built-in dumper writes metadata in the
// same shape as current mongodump, so either side's files restore with the other.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import { gunzipSync } from "node:zlib";
import { Readable } from "node:stream";
import { BSON } from "mongodb";
import { dumpDatabase, restoreDatabase } from "../src/dump/index.ts";
import { readMongodumpArchive, summarizeArchive } from "../src/dump/mongodump-archive/index.ts";
import { type AgentTestEnv, openAgentTestEnv } from "./support/test-env.ts";

const FIXTURES = new URL("../test-data/mongodump-archives/", import.meta.url);
const readFixture = (name: string) => readFile(new URL(name, FIXTURES));

let env: AgentTestEnv;
beforeAll(async () => {
  env = await openAgentTestEnv();
});
afterAll(() => env.close());

/** Documents of each namespace of an archive, as raw bytes in archive order. */
async function readArchiveDocuments(archive: Uint8Array): Promise<Map<string, Buffer[]>> {
  const documents = new Map<string, Buffer[]>();
  for await (const event of readMongodumpArchive([archive])) {
    if (event.kind === "document") {
      const list = documents.get(event.namespace) ?? [];
      list.push(Buffer.from(event.bytes));
      documents.set(event.namespace, list);
    }
  }
  return documents;
}

const TYPED = { promoteValues: false, promoteBuffers: false, bsonRegExp: true } as const;

// A server stores _id as the first field (the archive's test server wrote it last); apart from
// that move, the restored bytes must be the archived ones, so that is all this normalises.
function normalize(bytes: Uint8Array): string {
  const { _id, ...rest } = BSON.deserialize(bytes, TYPED);
  return Buffer.from(BSON.serialize({ _id, ...rest })).toString("hex");
}

async function expectRestoredExactly(archive: Uint8Array, sourceDb: string, targetDb: string): Promise<void> {
  const documents = await readArchiveDocuments(archive);
  const summary = await summarizeArchive([archive]);
  for (const entry of summary.collections.filter((c) => c.db === sourceDb && !c.collection.startsWith("system."))) {
    const restored = (await env.client.db(targetDb).collection(entry.collection).find({}, { raw: true }).toArray()) as unknown as Buffer[];
    const expected = documents.get(entry.namespace) ?? [];
    expect(restored.map(normalize)).toEqual(expected.map(normalize));
    const indexes = await env.client.db(targetDb).collection(entry.collection).listIndexes().toArray();
    expect(indexes.map((i) => i.name).sort()).toEqual(entry.indexes.map((i) => String(i.name)).sort());
  }
}

test("test.bar.archive (mongodump 3.4) restores into a fresh database; admin.system.version is skipped", async () => {
  const archive = await readFixture("test.bar.archive");
  const target = env.uniqueDatabase("bar");
  const result = await restoreDatabase({ uri: env.uriFor(target), input: [archive], tools: { mode: "builtin" } });
  expect(result.collections).toEqual({ [`${target}.bar`]: { restored: 1, failed: 0 } });
  expect(result.skipped).toEqual(["admin.system.version"]);
  await expectRestoredExactly(archive, "test", target);
});

test("dump-w-oplog.archive restores its collection and applies its oplog, whose inserts it already holds", async () => {
  const archive = await readFixture("dump-w-oplog.archive");
  const target = env.uniqueDatabase("oplog");
  const result = await restoreDatabase({ uri: env.uriFor(target), input: Readable.from([archive]), tools: { mode: "builtin" } });
  expect(result.collections).toEqual({ [`${target}.foo`]: { restored: 25, failed: 0 } });
  // 16 inserts into test.foo (the dump read them already) and 2 of config.system.sessions, left out.
  expect(result.oplog).toEqual({ entries: 18, applied: 16, dropped: [] });
  expect(result.skipped).toEqual(["admin.system.version"]);
  await expectRestoredExactly(archive, "test", target);
});

// These two restore into the fixture's own database "shop": only on the private test server.
const onTestServerOnly = test.skipIf(Boolean(process.env.MONGODB_TEST_URI));

onTestServerOnly("modern-5k.archive and its --gzip twin restore shop.orders (5,000 documents, TTL and unique indexes) and shop.empty", async () => {
  for (const [name, archive] of [
    ["modern-5k.archive", await readFixture("modern-5k.archive")],
    ["modern-5k.archive.gz", gunzipSync(await readFixture("modern-5k.archive.gz"))],
  ] as const) {
    const target = env.uniqueDatabase("modern");
    // The archive holds the databases shop and other; naming shop restores only shop.
    const result = await restoreDatabase({ uri: env.uriFor(target), database: "shop", input: [archive], tools: { mode: "builtin" } });
    expect(result.collections, name).toEqual({ "shop.orders": { restored: 5000, failed: 0 }, "shop.empty": { restored: 0, failed: 0 } });
    expect(result.skipped).toEqual(["other.x"]);
    const ttl = (await env.client.db("shop").collection("orders").listIndexes().toArray()).find((i) => i.name === "ttl");
    expect(ttl?.expireAfterSeconds).toBe(3600);
    await expectRestoredExactly(archive, "shop", "shop");
    await env.client.db("shop").dropDatabase();
  }
});

test("an archive holding several databases refuses a target database that is none of them, before writing", async () => {
  const archive = await readFixture("modern-5k.archive");
  const target = env.uniqueDatabase("ambiguous");
  const error = await restoreDatabase({ uri: env.uriFor(target), input: [archive], tools: { mode: "builtin" } }).catch((e: unknown) => e);
  expect((error as { code?: string }).code).toBe("target-mismatch");
  expect((error as Error).message).toBe(`the backup holds the databases other, shop, and the target database ${target} is none of them`);
  const names = (await env.client.db("admin").admin().listDatabases()).databases.map((d) => d.name);
  expect(names).not.toContain(target);
});

onTestServerOnly("the built-in dumper writes metadata shaped like current mongodump's and the same namespaces and counts", async () => {
  const archive = await readFixture("modern-5k.archive");
  const copy = env.uniqueDatabase("redump");
  await restoreDatabase({ uri: env.uriFor(copy), database: "shop", input: [archive], tools: { mode: "builtin" } });
  await env.client.db(copy).dropDatabase();
  const chunks: Buffer[] = [];
  const output = new (await import("node:stream")).Writable({
    write(chunk, _encoding, callback) {
      chunks.push(chunk);
      callback();
    },
  });
  await dumpDatabase({ uri: env.uriFor("shop"), output, tools: { mode: "builtin" } });
  await env.client.db("shop").dropDatabase();
  const ours = await summarizeArchive([Buffer.concat(chunks)]);
  const theirs = await summarizeArchive([archive]);
  const counts = (s: typeof ours) => Object.fromEntries(s.namespaces.filter((n) => n.db === "shop").map((n) => [n.namespace, n.documentCount]));
  expect(counts(ours)).toEqual(counts(theirs));
  const orders = (s: typeof ours) => s.collections.find((c) => c.namespace === "shop.orders")!;
  expect(Object.keys(orders(ours).metadataDocument)).toEqual(Object.keys(orders(theirs).metadataDocument));
  expect(orders(ours).type).toBe("collection");
  expect(orders(ours).indexes.map((i) => i.name)).toEqual(orders(theirs).indexes.map((i) => i.name));
  // mongorestore parses the header's server version, so it must be the server's real one.
  expect(ours.header.serverVersion).toMatch(/^\d+\.\d+\.\d+/);
});
