// Restore to a time (issue 25 §6): a base backup plus the oplog written after it, restored by the
// compiled agent (`dbvault-agent restore --in BASE --oplog SLICES --until T`: the whole chain
// verified, the base staged, the entries replayed, then swapped in) against the real
// `mongorestore --oplogReplay` of the same base and the same entries, into the same server.
//
//   bun bench/pitr-restore.ts [--size 1GB] [--entries 1000000] [--rounds 1] [--rate 20000]
//
// The source is the replica-set test server: a database of `--size` (generate-database.ts) and a
// live collection the write load runs on (bench/support/oplog-workload.ts: ~1 KB inserts,
// updates, deletes in equal shares) until `--entries` oplog entries of the database are written.
// The base is taken while nothing writes, twice: `dbvault-agent dump` (consistent, sealed) and
// `mongodump --out` (directory). The agent's shipping code (agent/src/oplog/shipping, run here
// from source) seals the entries into slices in a directory, as the daemon would upload them;
// mongorestore gets the same entries, decrypted from those slices, as the dump's oplog.bson
// (the slices' own no-op preambles included, which it skips). Both restore into a second test
// server, up to the last entry written, dropping the database between runs; each result is
// compared with the source.
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync, writeSync, closeSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { EJSON } from "bson";
import { MongoClient } from "mongodb";
import { decryptBuffer, encodeMasterKey, generateMasterKey } from "../agent/src/archive/index.ts";
import { readNewestOplogTimestamp } from "../agent/src/oplog/read-oplog.ts";
import { ShippingStore, type SpooledSlice } from "../agent/src/oplog/shipping/shipping-store.ts";
import { shipOplog } from "../agent/src/oplog/shipping/ship-oplog.ts";
import { compareOplogTimes, type OplogTime } from "../protocol/oplog-position.ts";
import { findMongoTools } from "../testkit/mongo-tools.ts";
import { poll } from "./support/agent-daemon.ts";
import { startDatabaseServer } from "./support/database-servers.ts";
import { generateDatabase, layoutManyAndOneLarge } from "./support/generate-database.ts";
import { buildAgent, createVerdicts, readFlag } from "./support/bench-run.ts";
import { describeLoad, type Measurement, measureProcess, median, readCpuModel } from "./support/measure-process.ts";
import { runWorkload, seedWindow } from "./support/oplog-workload.ts";
import { readCpuSeconds } from "./support/server-process.ts";

const size = parseSize(readFlag("--size") ?? "100MB");
const entries = Number(readFlag("--entries") ?? 100_000);
const rounds = Number(readFlag("--rounds") ?? 1);
const rate = Number(readFlag("--rate") ?? 20_000);
const WINDOW = 10_000;
const target = { database: "bench", collection: "load", windowSize: WINDOW };
let written = 0;

const found = findMongoTools();
if (!found.tools) {
  console.error(`pitr-restore: ${found.missing}`);
  process.exit(2);
}
const tools = found.tools;
const agent = buildAgent();

console.log(`machine: ${readCpuModel()}, ${availableParallelism()} cores; ${describeLoad()} at the start`);
console.log(
  `base: ${(size / 1e6).toFixed(0)} MB (4 collections with 40 %, one with the rest) + a ${WINDOW.toLocaleString("en-US")}-document live collection; oplog: ${entries.toLocaleString("en-US")} entries`,
);
const dir = mkdtempSync(join(tmpdir(), "dbvault-pitr-restore-"));
const masterKey = generateMasterKey();
// Room for every entry (~1 KB inserts, small updates and deletes), so none rolls over.
const oplogSizeMB = Math.max(256, Math.ceil((entries * 700) / 2 ** 20) + 128);
const source = await startDatabaseServer("test-server", { replSet: "rs0", oplogSizeMB });
const destination = await startDatabaseServer("test-server", { replSet: "rs0", oplogSizeMB: 256 });
const sourceClient = await new MongoClient(source.uri).connect();
const destinationClient = await new MongoClient(destination.uri).connect();
const verdicts = createVerdicts();
try {
  const started = performance.now();
  await generateDatabase(sourceClient, "bench", layoutManyAndOneLarge(size, 4));
  await seedWindow(sourceClient, target, WINDOW);
  console.log(`generated in ${((performance.now() - started) / 1000).toFixed(0)} s`);

  // Shipping from before the base, as a database with point-in-time recovery on.
  const slices = join(dir, "slices");
  mkdirSync(slices);
  const abort = new AbortController();
  const sealed: SpooledSlice[] = [];
  const shipping = shipOplog({
    client: sourceClient,
    database: "bench",
    sealing: { masterKey },
    store: new ShippingStore(join(dir, "shipping-state")),
    upload: async (slice, body) => {
      const name = `${slice.chain}-${String(slice.sequence).padStart(10, "0")}`;
      writeFileSync(join(slices, `${name}.json`), JSON.stringify(slice));
      writeFileSync(join(slices, `${name}.enc.dbvault`), new Uint8Array(await body.arrayBuffer()));
    },
    signal: abort.signal,
    log: () => {},
    idleSealMs: 500,
    onSealed: (slice) => sealed.push(slice),
  });
  const tick = () => sourceClient.db("other").collection("ticks").insertOne({ at: new Date() });
  await poll("the first slice", 60_000, 200, async () => {
    await tick();
    return sealed.length > 0 ? true : undefined;
  });

  const config = join(dir, "agent.json");
  const writeConfig = (uri: string) =>
    writeFileSync(
      config,
      JSON.stringify({ version: 1, masterKey: encodeMasterKey(masterKey), databases: [{ name: "bench", uri: `${uri}bench` }], tools: { mode: "builtin" } }),
      { mode: 0o600 },
    );
  writeConfig(source.uri);
  const base = join(dir, "base.enc.dbvault");
  const dumpDir = join(dir, "mongodump");
  measureProcess([agent, "dump", "--db", "bench", "--out", base, "--config", config, "--quiet"]);
  measureProcess([tools.mongodump, `--uri=${source.uri}`, "--db=bench", `--out=${dumpDir}`, "--quiet"]);
  writeConfig(destination.uri);

  const loadStarted = performance.now();
  let lastReport = loadStarted;
  const counts = await runWorkload(sourceClient, target, rate, () => written >= entries, {
    onTick: (sofar) => {
      written = sofar.acknowledged;
      if (performance.now() - lastReport < 30_000) return;
      lastReport = performance.now();
      console.log(`  ${sofar.acknowledged.toLocaleString("en-US")} writes, ${Math.round(sofar.acknowledged / ((lastReport - loadStarted) / 1000))}/s`);
    },
  });
  if (counts.stoppedBy) throw new Error(`a write failed: ${counts.stoppedBy}`);
  const until = toTime(await readNewestOplogTimestamp(sourceClient));
  console.log(
    `${counts.acknowledged.toLocaleString("en-US")} writes in ${((performance.now() - loadStarted) / 1000).toFixed(0)} s, up to ${until.t},${until.i}`,
  );
  await poll("the last write sealed", 600_000, 200, async () => {
    await tick();
    return sealed.some((slice) => compareOplogTimes(slice.end, until) >= 0) ? true : undefined;
  });
  abort.abort();
  await shipping;

  // The same entries for mongorestore: the slices decrypted, in chain order, as the dump's oplog.bson.
  const names = readdirSync(slices)
    .filter((name) => name.endsWith(".enc.dbvault"))
    .sort();
  const oplogFile = openSync(join(dumpDir, "oplog.bson"), "w");
  let shipped = 0;
  for (const name of names) {
    const { plaintext } = await decryptBuffer(readFileSync(join(slices, name)), { masterKey });
    writeSync(oplogFile, plaintext);
    shipped += JSON.parse(readFileSync(join(slices, name.replace(/\.enc\.dbvault$/, ".json")), "utf8")).entries;
  }
  closeSync(oplogFile);
  console.log(`slices: ${names.length}, ${shipped.toLocaleString("en-US")} entries of bench`);
  const expected = await fingerprint(sourceClient);

  const ours: Measurement[] = [];
  const theirs: Measurement[] = [];
  const serverCpu = { ours: [] as number[], theirs: [] as number[] };
  const untilText = `${until.t},${until.i}`;
  const runOurs = async () => {
    const before = readCpuSeconds(destination.pid);
    ours.push(measureProcess([agent, "restore", "--db", "bench", "--in", base, "--oplog", slices, "--until", untilText, "--config", config, "--quiet"]));
    serverCpu.ours.push(readCpuSeconds(destination.pid) - before);
    await check("dbvault-agent restore --until");
  };
  const runTheirs = async () => {
    const before = readCpuSeconds(destination.pid);
    theirs.push(
      measureProcess([
        tools.mongorestore,
        `--uri=${destination.uri}`,
        `--dir=${dumpDir}`,
        "--oplogReplay",
        // Exclusive: every entry up to and including `until`.
        `--oplogLimit=${until.t}:${until.i + 1}`,
        "--drop",
        "--quiet",
      ]),
    );
    serverCpu.theirs.push(readCpuSeconds(destination.pid) - before);
    await check("mongorestore --oplogReplay");
  };
  const check = async (who: string) => {
    const restored = await fingerprint(destinationClient);
    if (restored !== expected) throw new Error(`${who} restored a database that differs from the source`);
    await destinationClient.db("bench").dropDatabase();
  };
  for (let round = 0; round < rounds; round++) {
    for (const run of round % 2 === 0 ? [runOurs, runTheirs] : [runTheirs, runOurs]) await run();
  }
  const describe = (label: string, runs: Measurement[], cpu: number[]) =>
    `  ${label.padEnd(44)} ${median(runs.map((run) => run.seconds)).toFixed(1)} s, CPU ${median(runs.map((run) => run.cpuSeconds)).toFixed(1)} s, ` +
    `server CPU ${median(cpu).toFixed(1)} s, peak ${Math.max(...runs.map((run) => run.peakMb ?? 0)).toFixed(0)} MB   runs: ${runs.map((run) => run.seconds.toFixed(1)).join(" ")}`;
  console.log("\nrestore up to the last entry (both checked equal to the source):");
  console.log(describe("dbvault-agent restore --oplog --until", ours, serverCpu.ours));
  console.log(describe("mongorestore --dir --oplogReplay --oplogLimit", theirs, serverCpu.theirs));
  const ratio = median(theirs.map((run) => run.seconds)) / median(ours.map((run) => run.seconds));
  verdicts.check(ratio >= 1, `restore to a time: dbvault-agent ${ratio.toFixed(2)}× the speed of mongorestore --oplogReplay (target ≥ 1)`);
} finally {
  await sourceClient.close();
  await destinationClient.close();
  await source.stop();
  await destination.stop();
  rmSync(dir, { recursive: true, force: true });
}
verdicts.finish();

function toTime(ts: { high: number; low: number }): OplogTime {
  return { t: ts.high >>> 0, i: ts.low >>> 0 };
}

/** Each collection of bench: its count, and a digest of the live collection's documents in `_id` order. */
async function fingerprint(client: MongoClient): Promise<string> {
  const database = client.db("bench");
  const names = (await database.listCollections({}, { nameOnly: true }).toArray()).map((entry) => entry.name).sort();
  const counts = await Promise.all(names.map(async (name) => `${name}:${await database.collection(name).countDocuments()}`));
  const digest = createHash("sha256");
  for await (const document of database.collection("load").find({}, { sort: { _id: 1 } })) digest.update(EJSON.stringify(document, { relaxed: false }));
  return `${counts.join(" ")} load:${digest.digest("hex")}`;
}

function parseSize(text: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(MB|GB)$/i.exec(text.trim());
  if (!match) throw new Error(`--size: expected e.g. 200MB or 1GB, got ${text}`);
  return Number(match[1]) * (match[2]!.toUpperCase() === "GB" ? 1e9 : 1e6);
}
