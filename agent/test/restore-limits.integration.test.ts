// Restores at the server's limits, on every target (testkit/mongo-targets.ts) and with both
// engines: documents adding up to more than one message may carry (48,000,000 bytes), documents
// near 16 MiB, and namespaces of exactly 255 bytes. Each restore must leave the live collection
// holding the backup's data, byte for byte. On FerretDB every swap copies the staging collection
// into the target, which is where 1,000 documents sent in one command passed the message limit
// and FerretDB dropped the connection, leaving the live collection empty.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Readable } from "node:stream";
import { type Document, MongoClient, ObjectId } from "mongodb";
import { generateMasterKey } from "../src/archive/index.ts";
import { restoreFromEncrypted } from "../src/dump/index.ts";
import { createStagingArea } from "../src/dump/builtin/staging.ts";
import type { ToolsConfig } from "../src/dump/types.ts";
import { findMongoTools } from "../../testkit/mongo-tools.ts";
import { listMongoTargets, testOnTarget } from "../../testkit/mongo-targets.ts";
import { CommandError, type MongoTestServer, startMongoTestServer } from "../../testkit/mongo-server/index.ts";
import { backUpToBuffer } from "./support/back-up.ts";
import { type CollectionSnapshot, snapshotDatabase } from "./support/database-snapshot.ts";
import type { AnyIdDocument } from "./support/awkward-database.ts";
import { type AgentTestEnv, openAgentTestEnv } from "./support/test-env.ts";

const masterKey = generateMasterKey();
const { tools, missing: toolsMissing } = findMongoTools();
const ENGINES = ["builtin", "native"] as const;
type Engine = (typeof ENGINES)[number];
const SLOW = 240_000;

/** A document of about `bytes` bytes; compressible, so the backup file stays small. */
function makeDocument(id: number, bytes: number): { _id: number; filler: string } {
  return { _id: id, filler: `${id}:`.padEnd(bytes - 40, "x") };
}

function toolsFor(engine: Engine): ToolsConfig {
  return engine === "builtin" ? { mode: "builtin" } : { mode: "native", mongorestore: tools!.mongorestore };
}

for (const server of listMongoTargets()) {
  describe(`on ${server.name}`, () => {
    let env: AgentTestEnv;
    beforeAll(async () => {
      if (server.unavailable === null) env = await openAgentTestEnv(server);
    });
    afterAll(() => env?.close());

    /** Backs up `database`, puts other data in `collection`, restores; answers what the backup held and what is there now. */
    async function backUpChangeAndRestore(
      database: string,
      collection: string,
      engine: Engine,
    ): Promise<{ backup: CollectionSnapshot[]; now: CollectionSnapshot[] }> {
      const backup = await snapshotDatabase(env.client.db(database));
      const { file } = await backUpToBuffer({ uri: env.uriFor(database), masterKey, tools: { mode: "builtin" } });
      await env.client.db(database).collection(collection).drop();
      await env.client
        .db(database)
        .collection<AnyIdDocument>(collection)
        .insertMany([{ _id: "live 1" }, { _id: "live 2" }]);
      const result = await restoreFromEncrypted({ uri: env.uriFor(database), masterKey, input: Readable.from([file]), tools: toolsFor(engine) });
      expect(result.failed).toBe(0);
      return { backup, now: await snapshotDatabase(env.client.db(database)) };
    }

    const skipNative = (engine: Engine) => (engine === "native" && toolsMissing !== null ? { ...server, unavailable: toolsMissing } : server);

    testOnTarget(
      server,
      [],
      "1,200 documents of 60 KB (72 MB) replace a live collection of 2, built-in engine",
      async () => {
        const database = env.uniqueDatabase("batch");
        await env.client
          .db(database)
          .collection<AnyIdDocument>("docs")
          .insertMany(Array.from({ length: 1200 }, (_, i) => makeDocument(i, 60_000)));
        const { backup, now } = await backUpChangeAndRestore(database, "docs", "builtin");
        expect(now).toEqual(backup);
        expect(now[0]!.documents.length).toBe(1200);
      },
      SLOW,
    );

    testOnTarget(server, [], "a restore removes leftover staging of long names, this agent's and older agents' staging databases", async () => {
      const database = env.uniqueDatabase("lngx");
      const collection = "y".repeat(255 - database.length - 1);
      await env.client.db(database).collection<AnyIdDocument>(collection).insertOne({ _id: 1 });
      const backup = await snapshotDatabase(env.client.db(database));
      const { file } = await backUpToBuffer({ uri: env.uriFor(database), masterKey, tools: { mode: "builtin" } });
      // What killed restores leave: a shortened staging name now, a staging database before.
      const shortened = createStagingArea("k1ll3d").locate(database, collection);
      await env.client.db(database).collection<AnyIdDocument>(shortened.name).insertOne({ _id: "left over" });
      const legacy = "dbvault_restore_0ld4gt";
      await env.client.db(legacy).collection<AnyIdDocument>("orders").insertOne({ _id: "left over" });
      try {
        await restoreFromEncrypted({ uri: env.uriFor(database), masterKey, input: Readable.from([file]), tools: { mode: "builtin" } });
        expect(await snapshotDatabase(env.client.db(database))).toEqual(backup);
        const databases = await env.client.db("admin").admin().listDatabases({ nameOnly: true });
        expect(databases.databases.map((entry) => entry.name)).not.toContain(legacy);
      } finally {
        await env.client.db(legacy).dropDatabase();
      }
    });

    for (const engine of ENGINES) {
      testOnTarget(
        skipNative(engine),
        [],
        `three documents near 16 MiB replace a live collection of 2, ${engine} engine`,
        async () => {
          const database = env.uniqueDatabase("big");
          const near16MiB = 16 * 1024 * 1024 - 1024;
          for (let i = 0; i < 3; i++) await env.client.db(database).collection<AnyIdDocument>("big").insertOne(makeDocument(i, near16MiB));
          const { backup, now } = await backUpChangeAndRestore(database, "big", engine);
          expect(now).toEqual(backup);
          expect(now[0]!.documents.length).toBe(3);
          for (const document of now[0]!.documents) expect(document.length).toBeGreaterThan(near16MiB - 100);
        },
        SLOW,
      );

      testOnTarget(
        skipNative(engine),
        [],
        `a namespace of exactly 255 bytes restores into its own database, ${engine} engine`,
        async () => {
          const database = env.uniqueDatabase("lngx"); // 19 bytes; FerretDB allows 235 for the collection
          const collection = "y".repeat(255 - database.length - 1);
          expect(Buffer.byteLength(`${database}.${collection}`)).toBe(255);
          await env.client
            .db(database)
            .collection<AnyIdDocument>(collection)
            .insertMany(Array.from({ length: 20 }, (_, i) => makeDocument(i, 100)));
          await env.client.db(database).collection<AnyIdDocument>("short").insertOne({ _id: 1 });
          const { backup, now } = await backUpChangeAndRestore(database, collection, engine);
          expect(now).toEqual(backup);
          expect(now.map((entry) => entry.name)).toEqual(["short", collection]);
        },
        SLOW,
      );
    }
  });
}

// Time-series collections as a 7.0 server keeps them: the test server stores a time-series
// collection's buckets in system.buckets.<name> as written (it does not bucket measurements
// itself) and refuses to rename time-series, as 7.0 does, so the swap copies the buckets.
describe("on the test server: time-series collections (copied into place, as before MongoDB 8.0), smaller limits, no hello", () => {
  let server: MongoTestServer;
  let client: MongoClient;
  beforeAll(async () => {
    server = await startMongoTestServer();
    client = await new MongoClient(server.uri).connect();
  });
  afterAll(async () => {
    await client.close();
    await server.stop();
  });

  function makeBucket(i: number, bytes: number): Document {
    const at = new Date(1_700_000_000_000 + i * 60_000);
    return {
      _id: new ObjectId(),
      control: { version: 1, min: { at, value: i }, max: { at, value: i } },
      data: { at: { "0": at }, value: { "0": i }, note: { "0": "n".repeat(bytes) } },
    };
  }

  async function createTimeSeries(database: string, name: string, buckets: Document[]): Promise<void> {
    await client.db(database).createCollection(name, { timeseries: { timeField: "at" } });
    await client.db(database).collection(`system.buckets.${name}`).insertMany(buckets);
  }

  /** Backs up `source`, restores it over `target` (which holds a live `name` of 2 buckets); answers both snapshots. */
  async function restoreOverLive(source: string, target: string, name: string): Promise<{ backup: CollectionSnapshot[]; now: CollectionSnapshot[] }> {
    await createTimeSeries(target, name, [makeBucket(-1, 10), makeBucket(-2, 10)]);
    const { file } = await backUpToBuffer({ uri: `${server.uri}${source}`, masterKey, tools: { mode: "builtin" } });
    const result = await restoreFromEncrypted({ uri: `${server.uri}${target}`, masterKey, input: Readable.from([file]), tools: { mode: "builtin" } });
    expect(result.failed).toBe(0);
    return { backup: await snapshotDatabase(client.db(source)), now: await snapshotDatabase(client.db(target)) };
  }

  test(
    "1,000 buckets of 50 KB (50 MB) replace a live time-series collection of 2",
    async () => {
      await createTimeSeries(
        "tsbig_src",
        "w",
        Array.from({ length: 1000 }, (_, i) => makeBucket(i, 50_000)),
      );
      const { backup, now } = await restoreOverLive("tsbig_src", "tsbig", "w");
      expect(now).toEqual(backup);
      expect(now.find((entry) => entry.name === "system.buckets.w")!.documents.length).toBe(1000);
    },
    SLOW,
  );

  test(
    "a server stating smaller limits (2,000,000-byte messages, 100 writes a batch) gets inserts within them, staged and copied",
    async () => {
      const small = await startMongoTestServer({ limits: { maxMessageSizeBytes: 2_000_000, maxWriteBatchSize: 100 } });
      const smallClient = await new MongoClient(small.uri).connect();
      try {
        const source = smallClient.db("small_src");
        await source.createCollection("w", { timeseries: { timeField: "at" } });
        for (let start = 0; start < 500; start += 100) {
          await source.collection<AnyIdDocument>("docs").insertMany(Array.from({ length: 100 }, (_, i) => makeDocument(start + i, 10_000)));
          await source.collection("system.buckets.w").insertMany(Array.from({ length: 100 }, (_, i) => makeBucket(start + i, 10_000)));
        }
        const { file } = await backUpToBuffer({ uri: `${small.uri}small_src`, masterKey, tools: { mode: "builtin" } });
        const result = await restoreFromEncrypted({ uri: `${small.uri}small_dst`, masterKey, input: Readable.from([file]), tools: { mode: "builtin" } });
        expect(result.restored).toBe(1000);
        expect(await snapshotDatabase(smallClient.db("small_dst"))).toEqual(await snapshotDatabase(source));
      } finally {
        await smallClient.close();
        await small.stop();
      }
    },
    SLOW,
  );

  test("a server without hello (before 4.4.2) is asked its limits with isMaster", async () => {
    const source = client.db("old_src");
    await source.collection<AnyIdDocument>("docs").insertMany(Array.from({ length: 50 }, (_, i) => makeDocument(i, 1000)));
    const { file } = await backUpToBuffer({ uri: `${server.uri}old_src`, masterKey, tools: { mode: "builtin" } });
    const asked: string[] = [];
    // Only commands in a session (the agent's, not the driver's own monitoring) are refused.
    server.intercept(({ name, body }) => {
      if ((name === "hello" || name === "isMaster") && body.lsid !== undefined) asked.push(name);
      if (name === "hello" && body.lsid !== undefined) throw new CommandError(59, "no such command: 'hello'");
    });
    try {
      const result = await restoreFromEncrypted({ uri: `${server.uri}old_dst`, masterKey, input: Readable.from([file]), tools: { mode: "builtin" } });
      expect(result.restored).toBe(50);
    } finally {
      server.intercept(undefined);
    }
    expect(asked).toEqual(["hello", "isMaster"]);
    expect(await snapshotDatabase(client.db("old_dst"))).toEqual(await snapshotDatabase(source));
  });

  test("a time-series collection whose buckets namespace has exactly 255 bytes", async () => {
    const name = "t".repeat(255 - "tslong.system.buckets.".length);
    await createTimeSeries(
      "tslsrc",
      name,
      Array.from({ length: 5 }, (_, i) => makeBucket(i, 100)),
    );
    const { backup, now } = await restoreOverLive("tslsrc", "tslong", name);
    expect(Buffer.byteLength(`tslong.system.buckets.${name}`)).toBe(255);
    expect(now).toEqual(backup);
    expect(now.map((entry) => entry.name)).toEqual([`system.buckets.${name}`, name]);
  });
});
