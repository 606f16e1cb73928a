// Backing up from a secondary, as production deployments do so the primary is not loaded: with
// readPreference=secondary in the connection string, both engines' dumps read the database from
// the secondary of a two-member set of the project's test server (which copies the primary's
// oplog), while the primary takes writes; the oplog shipper tails the secondary's oplog; and a
// restore through the same string still reads and writes only the primary (staging and swaps
// read back what they just wrote, which a lagging secondary may not hold yet).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MongoClient } from "mongodb";
import { encodeMasterKey, generateMasterKey } from "../src/archive/index.ts";
import { runRestoreDrill } from "../src/dump/index.ts";
import { DRILL_DATABASE_SUFFIX } from "../../protocol/verification.ts";
import { type MongoTestServer, startMongoTestServer } from "../../testkit/mongo-server/index.ts";
import { findMongoTools } from "../../testkit/mongo-tools.ts";
import { waitUntil } from "../../testkit/wait-until.ts";
import { readShippedSlices, shipToDirectory } from "../src/oplog/shipping/test-support/slice-sink.ts";
import { snapshotDatabase } from "./support/database-snapshot.ts";
import { runAgent } from "./support/run-agent.ts";

const { tools, missing: toolsMissing } = findMongoTools();
if (toolsMissing) console.warn(`dumps from a secondary with the native engine: skipped (${toolsMissing})`);

let work: string;
let primary: MongoTestServer;
let secondary: MongoTestServer;
let writer: MongoClient;

const secondaryUri = (database: string, mode = "secondary") => `mongodb://${primary.host}/${database}?replicaSet=rs0&readPreference=${mode}`;
const readsOf = (server: MongoTestServer, database: string) => server.readCounts.get(database) ?? 0;
/** The names of the commands `server` runs on `database` from now on (until its interceptor is replaced). */
function recordCommandsOn(server: MongoTestServer, database: string): string[] {
  const names: string[] = [];
  server.intercept((command) => {
    if (command.db === database) names.push(command.name);
  });
  return names;
}
const caughtUp = () => secondary.replicaSet!.oplog.lastOpTime.ts.equals(primary.replicaSet!.oplog.lastOpTime.ts);

const masterKey = generateMasterKey();

function writeConfig(name: string, uri: string, mode: "builtin" | "native"): string {
  const path = join(work, `${name}.json`);
  const toolsConfig = mode === "builtin" ? { mode } : { mode, mongodump: tools!.mongodump, mongorestore: tools!.mongorestore };
  writeFileSync(path, JSON.stringify({ version: 1, masterKey: encodeMasterKey(masterKey), databases: [{ name: "shop", uri }], tools: toolsConfig }), {
    mode: 0o600,
  });
  return path;
}

const agent = (args: string[]) => runAgent(args, { env: { HOME: join(work, "home") } });

/** Inserts into another database of the primary until stopped: the load a secondary backup keeps off it. */
function startTraffic() {
  let running = true;
  let written = 0;
  const done = (async () => {
    while (running) await writer.db("traffic").collection("events").insertOne({ n: written++ });
  })();
  return {
    async stop() {
      running = false;
      await done;
      return written;
    },
  };
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "dbvault-secondary-"));
  primary = await startMongoTestServer({ replicaSet: { name: "rs0" } });
  secondary = await startMongoTestServer({ replicaSet: { name: "rs0" }, secondaryOf: { primary } });
  writer = await new MongoClient(`mongodb://${primary.host}/?replicaSet=rs0`).connect();
});
afterAll(async () => {
  await writer?.close();
  await secondary?.stop();
  await primary?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe("readPreference=secondary", () => {
  for (const mode of ["builtin", "native"] as const) {
    test.skipIf(mode === "native" && toolsMissing !== null)(
      `${mode}: the dump reads the secondary while the primary takes writes; restores and drills go to the primary`,
      async () => {
        const shop = writer.db("shop");
        await shop.dropDatabase();
        await shop.collection("orders").insertMany(Array.from({ length: 300 }, (_, i) => ({ _id: i, total: i * 3 })) as never[]);
        await shop.collection("orders").createIndex({ total: 1 });
        await waitUntil(caughtUp, { message: "the secondary to hold the orders" });
        const before = await snapshotDatabase(shop);
        const config = writeConfig(mode, secondaryUri("shop"), mode);
        const backup = join(work, `shop-${mode}.enc.dbvault`);

        const traffic = startTraffic();
        const served = { primary: recordCommandsOn(primary, "shop"), secondary: recordCommandsOn(secondary, "shop") };
        const dumped = await agent(["dump", "--db", "shop", "--out", backup, "--config", config]);
        const written = await traffic.stop();
        primary.intercept(undefined);
        secondary.intercept(undefined);
        expect(dumped.stderr).toContain(mode === "native" ? "mongodump" : "built-in");
        expect(dumped.exitCode).toBe(0);
        expect(written).toBeGreaterThan(0);
        // The documents (and the oplog window) come from the secondary. mongodump's Go driver
        // sends listCollections and listIndexes to the primary whatever the read preference, as
        // it does against mongod: the collection list, never a document.
        expect(served.secondary).toContain("find");
        expect(served.primary.filter((name) => !(mode === "native" && (name === "listCollections" || name === "listIndexes")))).toEqual([]);

        expect((await agent(["verify", "--in", backup, "--config", config])).exitCode).toBe(0);
        await shop.dropDatabase();
        await waitUntil(caughtUp, { message: "the secondary to drop shop too" });
        const secondaryReadsBeforeRestore = readsOf(secondary, "shop");
        const restored = await agent(["restore", "--db", "shop", "--in", backup, "--config", config, "--quiet"]);
        expect(restored.stderr).toContain("restored 300 documents into 1 collection of shop");
        expect(restored.exitCode).toBe(0);
        expect(readsOf(secondary, "shop")).toBe(secondaryReadsBeforeRestore);
        expect(await snapshotDatabase(shop)).toEqual(before);

        // A restore drill (the daemon's test restore) restores into a scratch database and reads
        // it back: both on the primary too.
        const scratch = `shop_${mode}${DRILL_DATABASE_SUFFIX}`;
        const drill = await runRestoreDrill({
          uri: secondaryUri("shop"),
          sourceDatabase: "shop",
          database: scratch,
          masterKey,
          input: Bun.file(backup).stream(),
          reopen: () => Bun.file(backup).stream(),
          tools: mode === "builtin" ? { mode } : { mode, mongodump: tools!.mongodump, mongorestore: tools!.mongorestore },
        });
        expect(drill.report.documents).toEqual({ expected: 300, restored: 300 });
        expect(readsOf(secondary, scratch)).toBe(0);
      },
      120_000,
    );
  }

  test("the oplog shipper tails the secondary's oplog and ships the primary's writes", async () => {
    const reader = await new MongoClient(secondaryUri("shop", "secondaryPreferred")).connect();
    const directory = join(work, "shipping");
    const key = Buffer.alloc(32, 5);
    let tailing = false;
    secondary.intercept((command) => {
      if (command.db === "local" && command.name === "find" && command.body.tailable === true) tailing = true;
    });
    const shipping = shipToDirectory(reader, "shop", key, directory);
    try {
      await waitUntil(() => tailing, { message: "the shipper to tail the secondary's oplog" });
      const oplogReads = readsOf(secondary, "local");
      await writer
        .db("shop")
        .collection("shipped")
        .insertMany([{ _id: "a" }, { _id: "b" }] as never[]);
      await waitUntil(
        async () => {
          const slices = await readShippedSlices(join(directory, "server"), key);
          const ids = slices.flatMap((slice) => slice.entries.filter((entry) => entry.ns === "shop.shipped").map((entry) => (entry.o as { _id: string })._id));
          return ids.includes("a") && ids.includes("b");
        },
        { message: "slices holding both inserts", timeout: 20_000 },
      );
      expect(readsOf(secondary, "local")).toBeGreaterThan(oplogReads);
    } finally {
      secondary.intercept(undefined);
      await shipping.stop();
      await reader.close();
    }
  }, 60_000);
});
