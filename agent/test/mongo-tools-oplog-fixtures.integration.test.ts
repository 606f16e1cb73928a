// mongo-tools' own oplog test sets (testkit/fixtures/mongo-tools-oplog, README there) restored
// through the agent: each dump directory is written as the mongodump archive a backup holds, its
// oplog in the archive's oplog namespace, and restored with the built-in engine (and with the real
// mongorestore as the agent's native engine, when built). What each must give is what
// `mongorestore --oplogReplay --dir` gives: pinned below as mongo-tools' tests assert it, and
// compared whole with the real mongorestore run on the same directory when it is built.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { MongoClient } from "mongodb";
import { runTool, splitBsonFile, startReplicaSetWithClient, stopWithClient } from "../../testkit/mongo-server/replica-set/test-support.ts";
import type { MongoTestServer } from "../../testkit/mongo-server/server.ts";
import { findMongoTools } from "../../testkit/mongo-tools.ts";
import { restoreDatabase } from "../src/dump/index.ts";
import { type ArchiveWriteItem, type CollectionSpec, writeMongodumpArchive } from "../src/dump/mongodump-archive/index.ts";
import { snapshotDatabase } from "../src/oplog/chain/test-support/recorded-history.ts";

const FIXTURES = join(import.meta.dir, "../../testkit/fixtures/mongo-tools-oplog");
const { tools, missing } = findMongoTools();

type Expected = Record<string, Record<string, { documents: number; indexes: string[] }>>;

// What `mongorestore --oplogReplay --dir=<set>` leaves (mongo-tools' tests assert the counts; the
// real mongorestore 100.18.0 against the test server gave the rest). The README says why each.
const SETS: { name: string; expected: Expected }[] = [
  { name: "tools-2002", expected: { foo: { bar: { documents: 0, indexes: ["_id_", "a_1_b_1"] } } } },
  { name: "dump_oplog_conflict", expected: { test: { data: { documents: 5, indexes: ["_id_"] } } } },
  { name: "dump_local_oplog", expected: { test: { op: { documents: 100, indexes: ["_id_"] } } } },
  { name: "duplicate_index_key_with_oplog", expected: { test: { foo: { documents: 1, indexes: ["_id_", "a_1"] } } } },
  { name: "oplog_ignore_index", expected: {} },
  { name: "oplogdump", expected: { db1: { c1: { documents: 10, indexes: ["_id_"] } } } },
];

/** The set's dump directory as one mongodump archive; the oplog is oplog.bson, else local/oplog.rs.bson, as mongorestore picks it. */
async function archiveOf(name: string): Promise<Uint8Array> {
  const dir = join(FIXTURES, name);
  const collections: CollectionSpec[] = [];
  const items: ArchiveWriteItem[] = [];
  for (const db of readdirSync(dir, { withFileTypes: true }).filter((entry) => entry.isDirectory() && entry.name !== "local")) {
    for (const file of readdirSync(join(dir, db.name)).filter((file) => file.endsWith(".metadata.json"))) {
      const collection = file.slice(0, -".metadata.json".length);
      collections.push({ db: db.name, collection, type: "collection", metadataJson: readFileSync(join(dir, db.name, file), "utf8") });
      const data = join(dir, db.name, `${collection}.bson`);
      if (existsSync(data))
        for (const bytes of splitBsonFile(readFileSync(data))) items.push({ kind: "document", namespace: `${db.name}.${collection}`, bytes });
    }
  }
  const oplog = [join(dir, "oplog.bson"), join(dir, "local/oplog.rs.bson")].find((path) => existsSync(path))!;
  collections.push({ db: "", collection: "oplog" });
  for (const bytes of splitBsonFile(readFileSync(oplog))) items.push({ kind: "document", namespace: ".oplog", bytes });
  const chunks: Uint8Array[] = [];
  const header = { serverVersion: "7.0.14", toolVersion: "100.18.0", concurrentCollections: 1 };
  for await (const chunk of writeMongodumpArchive({ header, collections }, items)) chunks.push(chunk);
  return Buffer.concat(chunks);
}

const USER_DATABASES = (client: MongoClient) =>
  client
    .db("admin")
    .command({ listDatabases: 1, nameOnly: true })
    .then((answer) => (answer.databases as { name: string }[]).map((entry) => entry.name).filter((db) => !["admin", "local", "config"].includes(db)));

async function dropUserDatabases(client: MongoClient): Promise<void> {
  for (const db of await USER_DATABASES(client)) await client.db(db).dropDatabase();
}

/** Every user database with each collection's documents and index names. */
async function summarize(client: MongoClient): Promise<Expected> {
  const summary: Expected = {};
  for (const db of (await USER_DATABASES(client)).sort()) {
    const names = (await client.db(db).listCollections({}, { nameOnly: true }).toArray())
      .map((entry) => entry.name)
      .filter((name) => !name.startsWith("system."));
    if (names.length === 0) continue;
    summary[db] = {};
    for (const name of names.sort()) {
      const collection = client.db(db).collection(name);
      const indexes = (await collection.listIndexes().toArray()).map((index) => String(index.name)).sort();
      summary[db][name] = { documents: await collection.countDocuments(), indexes };
    }
  }
  return summary;
}

/** Every user database, whole (documents, options, index options), as comparable text. */
async function snapshotAll(client: MongoClient): Promise<Record<string, string>> {
  const all: Record<string, string> = {};
  for (const db of (await USER_DATABASES(client)).sort()) all[db] = await snapshotDatabase(client, db);
  return all;
}

let rs: { server: MongoTestServer; client: MongoClient };
beforeAll(async () => {
  rs = await startReplicaSetWithClient();
});
afterAll(async () => {
  await stopWithClient(rs);
});

async function restoreSet(name: string, engine: "builtin" | "native") {
  await dropUserDatabases(rs.client);
  const input = [await archiveOf(name)];
  return restoreDatabase({ uri: rs.server.uri, input, tools: engine === "builtin" ? { mode: "builtin" } : { mode: "native", ...tools } });
}

describe("mongo-tools' oplog sets restored through the agent, built-in engine", () => {
  for (const set of SETS) {
    test(`${set.name}: as mongorestore --oplogReplay restores it`, async () => {
      const result = await restoreSet(set.name, "builtin");
      expect(result.skipped).not.toContain(".oplog");
      expect(await summarize(rs.client)).toEqual(set.expected);
    });
  }
});

describe.skipIf(missing !== null)(`the same with the real mongorestore as the agent's native engine${missing ? ` (skipped: ${missing})` : ""}`, () => {
  for (const set of SETS) {
    test(set.name, async () => {
      const result = await restoreSet(set.name, "native");
      expect(result.engine).toBe("native");
      expect(await summarize(rs.client)).toEqual(set.expected);
    });
  }
});

describe.skipIf(missing !== null)(`the same, compared whole with the real mongorestore --oplogReplay${missing ? ` (skipped: ${missing})` : ""}`, () => {
  for (const set of SETS) {
    test(set.name, async () => {
      await restoreSet(set.name, "builtin");
      const agent = await snapshotAll(rs.client);
      await dropUserDatabases(rs.client);
      const run = await runTool(tools!.mongorestore, [`--uri=${rs.server.uri}`, "--oplogReplay", `--dir=${join(FIXTURES, set.name)}`]);
      expect(run.code).toBe(0);
      expect(await summarize(rs.client)).toEqual(set.expected);
      expect(agent).toEqual(await snapshotAll(rs.client));
    });
  }
});
