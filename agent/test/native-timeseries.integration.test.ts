// Native restores (the real mongorestore 100.18.0) of time-series collections, on the project's
// MongoDB test server standing in for a 7.0 mongod: the collection's data travels as its buckets,
// `<db>.system.buckets.<name>`, which mongorestore names apart from the collection itself. Each
// restore must write those buckets into the staging area like everything else, and must leave the
// original database alone when it restores into a copy. (FerretDB 1.24 has no time-series
// collections: `create` with `timeseries` is refused there, so these tests run on the test server.)
import { beforeEach, describe, expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import { Readable } from "node:stream";
import { BSON, type Db, Int32 } from "mongodb";
import { encryptBuffer, generateMasterKey } from "../src/archive/index.ts";
import { DumpError, restoreFromEncrypted, type RestoreResult, type ToolsConfig } from "../src/dump/index.ts";
import { writeMongodumpArchive } from "../src/dump/mongodump-archive/index.ts";
import { findMongoTools } from "../../testkit/mongo-tools.ts";
import { type CollectionSnapshot, snapshotDatabase } from "./support/database-snapshot.ts";
import { useOwnTestServer } from "./support/own-test-server.ts";
import { runTool } from "./support/real-tools.ts";

const { tools, missing } = findMongoTools();
const masterKey = generateMasterKey();
// mongo-tools' own timeseries_tests/dump.archive (mongodump 100.3.1 from MongoDB 5.0.0-rc0).
const MONGO_TOOLS_ARCHIVE = new URL("../test-data/mongodump-archives/timeseries.archive", import.meta.url).pathname;

const own = useOwnTestServer();
const uriFor = (database: string) => `${own.server.uri}${database}`;

/** `count` buckets of `measurements` each, in the shape a 7.0 mongod stores them. */
function buckets(count: number, tag: string, measurements = 5): Array<Record<string, unknown>> {
  const start = Date.UTC(2026, 0, 1);
  return Array.from({ length: count }, (_, i) => {
    const times = Array.from({ length: measurements }, (_, j) => new Date(start + i * 3_600_000 + j * 60_000));
    const column = <T>(values: T[]) => Object.fromEntries(values.map((value, j) => [String(j), value]));
    return {
      control: { version: 1, min: { at: times[0], temp: i }, max: { at: times.at(-1), temp: i + measurements } },
      meta: { station: `${tag}-${i % 3}` },
      data: { at: column(times), temp: column(times.map((_, j) => i + j)) },
    };
  });
}

/** Makes `db.weather` a time-series collection holding `count` buckets, beside a plain collection. */
async function seedWeather(db: Db, count: number, tag: string): Promise<void> {
  await db.dropDatabase();
  await db.createCollection("weather", { timeseries: { timeField: "at", metaField: "meta", granularity: "hours" } });
  // The test server keeps no buckets of its own: they are written as mongod keeps them.
  await db.collection("system.buckets.weather").insertMany(buckets(count, tag));
  await db.collection("stations").insertMany([{ _id: `${tag}-0` }, { _id: `${tag}-1` }] as never[]);
}

async function sealedDumpOf(database: string): Promise<Buffer> {
  const { stdout } = await runTool(tools!.mongodump, [`--uri=${own.server.uri}`, `--db=${database}`, "--archive"]);
  return encryptBuffer(stdout, { masterKey });
}

function restoreNative(sealed: Buffer, database: string, mode: ToolsConfig["mode"] = "native", notices: string[] = []): Promise<RestoreResult> {
  return restoreFromEncrypted({
    uri: uriFor(database),
    masterKey,
    input: Readable.from([sealed]),
    tools: { mode, mongorestore: tools!.mongorestore },
    onNotice: (notice) => notices.push(notice),
  });
}

/** A backup describing `tsx.system.buckets.weather` as a collection of its own, beside `tsx.weather`. */
async function sealedBucketsApart(): Promise<Buffer> {
  const idIndex = [{ v: new Int32(2), key: { _id: new Int32(1) }, name: "_id_" }];
  const chunks: Uint8Array[] = [];
  const archive = writeMongodumpArchive(
    {
      header: { serverVersion: "7.0.0" },
      collections: [
        { db: "tsx", collection: "weather", type: "collection", indexes: idIndex },
        { db: "tsx", collection: "system.buckets.weather", type: "collection", indexes: idIndex },
      ],
    },
    [
      { kind: "document", namespace: "tsx.weather", bytes: BSON.serialize({ _id: "backup" }) },
      { kind: "document", namespace: "tsx.system.buckets.weather", bytes: BSON.serialize({ _id: "bucket" }) },
    ],
  );
  for await (const chunk of archive) chunks.push(chunk);
  return encryptBuffer(Buffer.concat(chunks), { masterKey });
}

const snapshot = (database: string): Promise<CollectionSnapshot[]> => snapshotDatabase(own.client.db(database));
const names = (snapshots: CollectionSnapshot[]) => snapshots.map((entry) => entry.name);

describe.skipIf(missing !== null)(`native restore of time-series collections with the real mongorestore${missing ? ` [skipped: ${missing}]` : ""}`, () => {
  beforeEach(async () => {
    for (const name of await own.client
      .db("admin")
      .admin()
      .listDatabases({ nameOnly: true })
      .then((list) => list.databases.map((db) => db.name))) {
      if (!["admin", "local", "config"].includes(name)) await own.client.db(name).dropDatabase();
    }
  });

  test("--to-db restores the buckets into the copy and leaves the original database untouched", async () => {
    await seedWeather(own.client.db("tsx"), 50, "old");
    const sealed = await sealedDumpOf("tsx");
    const before = await snapshot("tsx");

    const result = await restoreNative(sealed, "tsx_copy");

    expect(result).toMatchObject({ engine: "native", failed: 0, restored: 52 });
    expect(result.collections).toEqual({ "tsx_copy.weather": { restored: 50, failed: 0 }, "tsx_copy.stations": { restored: 2, failed: 0 } });
    expect(await snapshot("tsx")).toEqual(before);
    const copy = await snapshot("tsx_copy");
    expect(names(copy)).toEqual(["stations", "system.buckets.weather", "weather"]);
    const bucketsOf = (snapshots: CollectionSnapshot[]) => snapshots.find((entry) => entry.name === "system.buckets.weather")!.documents;
    expect(bucketsOf(copy)).toEqual(bucketsOf(before));
    expect(copy.find((entry) => entry.name === "weather")!.options).toBe(before.find((entry) => entry.name === "weather")!.options);
  });

  test("a restore into the database itself replaces the collection with the backup's buckets and leaves no staging behind", async () => {
    const db = own.client.db("tsx");
    await seedWeather(db, 50, "backup");
    const sealed = await sealedDumpOf("tsx");
    const backup = await snapshot("tsx");
    await seedWeather(db, 7, "live");

    const result = await restoreNative(sealed, "tsx");

    expect(result.collections).toEqual({ "tsx.weather": { restored: 50, failed: 0 }, "tsx.stations": { restored: 2, failed: 0 } });
    expect(await snapshot("tsx")).toEqual(backup);
  });

  test("mongo-tools' own time-series archive restored --to-db a copy leaves the live timeseries_test alone", async () => {
    const live = own.client.db("timeseries_test");
    await live.createCollection("foo_ts", { timeseries: { timeField: "ts", metaField: "meta" } });
    await live.collection("system.buckets.foo_ts").insertMany(buckets(3, "live"));
    const before = await snapshot("timeseries_test");
    const sealed = await encryptBuffer(await readFile(MONGO_TOOLS_ARCHIVE), { masterKey });

    const result = await restoreNative(sealed, "tscopy");

    expect(result.collections).toEqual({ "tscopy.foo_ts": { restored: 10, failed: 0 } });
    expect(await snapshot("timeseries_test")).toEqual(before);
    const copy = await snapshot("tscopy");
    expect(names(copy)).toEqual(["foo_ts", "system.buckets.foo_ts"]);
    expect(copy.find((entry) => entry.name === "system.buckets.foo_ts")!.documents).toHaveLength(10);
  });

  // mongorestore folds <db>.system.buckets.<name> into <db>.<name> whatever the staging names say
  // (100.18.0 panics part-way on this backup), so it is never given one.
  test("a backup describing a collection's buckets apart is refused in native mode and restored by the built-in engine in auto", async () => {
    const live = own.client.db("tsx");
    await live.collection("weather").insertOne({ _id: "live" } as never);
    const before = await snapshot("tsx");
    const sealed = await sealedBucketsApart();

    const refused = await restoreNative(sealed, "tsx").catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DumpError);
    expect(refused).toMatchObject({
      code: "unsupported",
      message: "the backup describes tsx.system.buckets.weather as a collection of its own, which mongorestore would restore over the collection of that name",
    });
    expect(await snapshot("tsx")).toEqual(before);

    const notices: string[] = [];
    const result = await restoreNative(sealed, "tsx", "auto", notices);
    expect(notices).toContain(
      "the backup describes tsx.system.buckets.weather as a collection of its own, which mongorestore would restore over the collection of that name; using the built-in engine",
    );
    expect(result).toMatchObject({ engine: "builtin", collections: { "tsx.weather": { restored: 1, failed: 0 } }, skipped: ["tsx.system.buckets.weather"] });
    expect(await live.collection("weather").find().toArray()).toEqual([{ _id: "backup" } as never]);
  });
});
