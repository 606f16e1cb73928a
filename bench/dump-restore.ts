// The part of a backup that dominates it: reading the database and writing it back. The agent's
// built-in dump (`dbvault-agent dump`, zstd and encryption included, as users run it) against
// the real `mongodump --archive`, and the agent's safe restore (`dbvault-agent restore`: the
// whole file verified first, every collection staged, then swapped in) against the real
// `mongorestore --archive --drop` with its default workers, on the same database and server, in
// the same run. Each pair runs alternately and the medians are compared; the server's CPU time
// is shown beside each side's (on 2 cores, client and server compete for them).
//
//   bun bench/dump-restore.ts [--size 1GB] [--servers test-server,ferretdb] [--rounds 3]
//                             [--collections 20] [--keep DIR] [--dump-only] [--before AGENT]
//
// The database: `--collections` small collections holding 40 % of `--size`, one large collection
// the rest, ~1 KB documents (bench/support/generate-database.ts). The real tools are the ones the
// test suite builds (scripts/ensure-mongo-tools.sh); FerretDB is skipped when not built.
// --keep DIR leaves the last mongodump archive there (for bench/seal-cli.ts --archive).
// --dump-only skips the restores; --before AGENT also runs another build of the agent (e.g. the
// one before a change) in the same rounds, for its figures beside the current ones.
//
// Issue 32's targets, each a PASS/FAIL line: the dump (zstd, sealed) at least as fast as
// `mongodump --archive | zstd -3 | age -r` (the same work; needs age and zstd: apt-get install -y
// age zstd) and with no more CPU than that pipeline's three processes; `dump --compression none`
// with at most 1.5× mongodump's CPU; the dump's peak RSS under 150 MB. CPU time (user + system,
// children included) is much less disturbed than wall time by a loaded machine: on a shared
// machine, trust the CPU lines and rerun the time lines on a quiet one.
import { copyFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { MongoClient } from "mongodb";
import { encodeMasterKey, generateMasterKey } from "../agent/src/archive/index.ts";
import { findMongoTools } from "../testkit/mongo-tools.ts";
import { type DatabaseServer, findMissingServer, type ServerKind, startDatabaseServer } from "./support/database-servers.ts";
import { generateDatabase, layoutManyAndOneLarge } from "./support/generate-database.ts";
import { describeLoad, type Measurement, measureProcess, median, readCpuModel } from "./support/measure-process.ts";
import { readCpuSeconds } from "./support/server-process.ts";

const root = resolve(import.meta.dir, "..");
const args = process.argv.slice(2);
const readFlag = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const size = parseSize(readFlag("--size") ?? "1GB");
const servers = (readFlag("--servers") ?? "test-server,ferretdb").split(",") as ServerKind[];
const rounds = Number(readFlag("--rounds") ?? 3);
const smallCollections = Number(readFlag("--collections") ?? 20);
const keep = readFlag("--keep");
const dumpOnly = args.includes("--dump-only");
const before = readFlag("--before");
const LIMIT_MB = 150;
const MAX_CPU_RATIO_UNCOMPRESSED = 1.5;

const found = findMongoTools();
if (!found.tools) {
  console.error(`dump-restore: ${found.missing}`);
  process.exit(2);
}
const tools = found.tools;
const agent = join(root, "dist/dbvault-agent");
if (Bun.spawnSync([process.execPath, join(root, "scripts/build-agent.ts")], { stdout: "ignore", stderr: "inherit" }).exitCode !== 0) process.exit(1);

interface Side {
  runs: Measurement[];
  serverCpu: number[];
}
const verdicts: string[] = [];
let allPass = true;

console.log(`machine: ${readCpuModel()}, ${availableParallelism()} cores; ${describeLoad()} at the start`);
const missingTools = ["age", "age-keygen", "zstd", "bash"].filter((tool) => !Bun.which(tool));
if (missingTools.length > 0) {
  const line = `SKIP  dump vs mongodump | zstd -3 | age -r: ${missingTools.join(", ")} not found (apt-get install -y age zstd)`;
  console.log(line);
  verdicts.push(line);
}
console.log(`database: ${smallCollections} collections with 40 % of ${(size / 1e6).toFixed(0)} MB, one large collection with the rest, ~1 KB documents`);
for (const kind of servers) {
  const missing = findMissingServer(kind);
  if (missing) {
    console.log(`\n== ${kind}: SKIPPED, ${missing}`);
    verdicts.push(`SKIP  ${kind}: ${missing}`);
    continue;
  }
  await benchServer(kind);
}
console.log(`\n${describeLoad()} at the end`);
for (const verdict of verdicts) console.log(verdict);
process.exitCode = allPass ? 0 : 1;

async function benchServer(kind: ServerKind) {
  const dir = mkdtempSync(join(tmpdir(), "dbvault-dump-restore-"));
  const server = await startDatabaseServer(kind);
  const client = await new MongoClient(server.uri).connect();
  try {
    console.log(`\n== ${kind}`);
    const started = performance.now();
    const counts = await generateDatabase(
      client,
      "bench",
      layoutManyAndOneLarge(size, smallCollections),
      (done, total) => {
        if (done % 100_000 < 1_000) process.stderr.write(`  generating: ${done.toLocaleString("en-US")} / ${total.toLocaleString("en-US")} documents\r`);
      },
      kind !== "ferretdb",
    );
    const documents = Object.values(counts).reduce((sum, n) => sum + n, 0);
    const stats = await client.db("bench").command({ dbStats: 1 });
    console.log(
      `  ${documents.toLocaleString("en-US")} documents, ${(Number(stats.dataSize) / 1e6).toFixed(0)} MB of data, generated in ${((performance.now() - started) / 1000).toFixed(0)} s`,
    );

    const config = join(dir, "agent.json");
    writeFileSync(
      config,
      JSON.stringify({
        version: 1,
        masterKey: encodeMasterKey(generateMasterKey()),
        databases: [
          { name: "bench", uri: `${server.uri}bench` },
          { name: "restored", uri: `${server.uri}restored` },
        ],
        tools: { mode: "builtin" },
      }),
      { mode: 0o600 },
    );
    const archive = join(dir, "mongodump.archive");
    const sealed = join(dir, "agent.enc.dbvault");
    const withServerCpu = (run: () => Measurement, side: Side) => () => {
      const before = readCpuSeconds(server.pid);
      const measured = run();
      side.serverCpu.push(readCpuSeconds(server.pid) - before);
      side.runs.push(measured);
      return measured;
    };

    const ourDump: Side = { runs: [], serverCpu: [] };
    const ourPlainDump: Side = { runs: [], serverCpu: [] };
    const beforeDump: Side = { runs: [], serverCpu: [] };
    const beforePlainDump: Side = { runs: [], serverCpu: [] };
    const theirDump: Side = { runs: [], serverCpu: [] };
    const pipelineDump: Side = { runs: [], serverCpu: [] };
    const pipeline = sameWorkPipeline(dir, server.uri);
    const agentDump = (binary: string, side: Side, ...extra: string[]) =>
      withServerCpu(() => measureProcess([binary, "dump", "--db", "bench", "--out", sealed, "--config", config, "--quiet", "--force", ...extra]), side);
    const sides = [
      agentDump(agent, ourDump),
      withServerCpu(() => measureProcess([tools.mongodump, `--uri=${server.uri}`, "--db=bench", `--archive=${archive}`, "--quiet"]), theirDump),
      agentDump(agent, ourPlainDump, "--compression", "none"),
      ...(pipeline ? [withServerCpu(() => measureProcess(["bash", "-c", pipeline]), pipelineDump)] : []),
      ...(before ? [agentDump(before, beforeDump), agentDump(before, beforePlainDump, "--compression", "none")] : []),
    ];
    for (let round = 0; round < rounds; round++) {
      // Each side goes first as often as the others (a rotation per round).
      for (let i = 0; i < sides.length; i++) sides[(i + round) % sides.length]!();
    }
    const dumpMb = statSync(archive).size / 1e6;
    report(kind, "dump", "dbvault-agent dump (built-in, zstd + encrypt)", ourDump, `mongodump --archive (${dumpMb.toFixed(0)} MB archive)`, theirDump, dumpMb);
    console.log(describeSide("dbvault-agent dump --compression none", ourPlainDump, dumpMb));
    if (before) {
      console.log(describeSide("before: dump (zstd + encrypt)", beforeDump, dumpMb));
      console.log(describeSide("before: dump --compression none", beforePlainDump, dumpMb));
    }
    const cpu = (side: Side) => median(side.runs.map((run) => run.cpuSeconds));
    const peak = (side: Side) => Math.max(...side.runs.map((run) => run.peakMb ?? Number.NaN));
    if (pipeline) {
      console.log(describeSide("mongodump --archive | zstd -3 | age -r", pipelineDump, dumpMb));
      const ratio = median(pipelineDump.runs.map((run) => run.seconds)) / median(ourDump.runs.map((run) => run.seconds));
      verdict(
        ratio >= 1,
        `dump on ${kind}: ${ratio.toFixed(2)}× the speed of mongodump | zstd -3 | age -r (target ≥ 1; wall time, trust it on a quiet machine only)`,
      );
      const cpuRatio = cpu(ourDump) / cpu(pipelineDump);
      verdict(
        cpuRatio <= 1,
        `dump on ${kind}: ${cpu(ourDump).toFixed(2)} s CPU vs ${cpu(pipelineDump).toFixed(2)} s for mongodump | zstd -3 | age -r: ${cpuRatio.toFixed(2)}× (target ≤ 1)`,
      );
    }
    const plainRatio = cpu(ourPlainDump) / cpu(theirDump);
    verdict(
      plainRatio <= MAX_CPU_RATIO_UNCOMPRESSED,
      `dump --compression none on ${kind}: ${cpu(ourPlainDump).toFixed(2)} s CPU vs mongodump's ${cpu(theirDump).toFixed(2)} s: ${plainRatio.toFixed(2)}× (target ≤ ${MAX_CPU_RATIO_UNCOMPRESSED})`,
    );
    const peakMb = Math.max(peak(ourDump), peak(ourPlainDump));
    verdict(
      peakMb < LIMIT_MB,
      `dump on ${kind}: peak RSS ${Number.isNaN(peakMb) ? "unknown (apt-get install -y time)" : `${peakMb.toFixed(0)} MB`} (target < ${LIMIT_MB})`,
    );
    if (dumpOnly) {
      if (keep) copyFileSync(archive, join(resolve(keep), `${kind}-mongodump.archive`));
      return;
    }

    const ourRestore: Side = { runs: [], serverCpu: [] };
    const theirRestore: Side = { runs: [], serverCpu: [] };
    const check = async (who: string) => {
      const restored = await countDocuments(client, "restored");
      if (restored !== documents) throw new Error(`${who} restored ${restored} documents, expected ${documents}`);
      await client.db("restored").dropDatabase();
    };
    const restoreOurs = async () => {
      withServerCpu(() => measureProcess([agent, "restore", "--db", "restored", "--in", sealed, "--config", config, "--quiet"]), ourRestore)();
      await check("dbvault-agent restore");
    };
    const restoreTheirs = async () => {
      withServerCpu(
        () => measureProcess([tools.mongorestore, `--uri=${server.uri}`, `--archive=${archive}`, "--nsFrom=bench.*", "--nsTo=restored.*", "--drop", "--quiet"]),
        theirRestore,
      )();
      await check("mongorestore");
    };
    try {
      for (let round = 0; round < rounds; round++) {
        for (const run of round % 2 === 0 ? [restoreOurs, restoreTheirs] : [restoreTheirs, restoreOurs]) await run();
      }
      report(kind, "restore", "dbvault-agent restore (verify, stage, swap)", ourRestore, "mongorestore --archive --drop", theirRestore, dumpMb);
    } catch (error) {
      // A server may lack what the safe restore needs (FerretDB 1.x: renameCollection with dropTarget).
      const reason =
        (error as Error).message
          .split("\n")
          .filter((line) => line.includes("dbvault-agent:") || line.includes("restored"))
          .slice(-1)[0] ?? (error as Error).message;
      const verdict = `FAIL  restore on ${kind}: did not complete: ${reason.trim()}`;
      console.log(`  ${verdict}`);
      verdicts.push(verdict);
      allPass = false;
    }
    if (keep) copyFileSync(archive, join(resolve(keep), `${kind}-mongodump.archive`));
  } finally {
    await client.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function countDocuments(client: MongoClient, database: string): Promise<number> {
  let total = 0;
  for (const { name } of await client.db(database).listCollections({}, { nameOnly: true }).toArray()) {
    total += await client.db(database).collection(name).countDocuments();
  }
  return total;
}

/** The shell pipeline that does a dump's whole work with the usual tools, or undefined without age/zstd. */
function sameWorkPipeline(dir: string, uri: string): string | undefined {
  if (!Bun.which("age") || !Bun.which("age-keygen") || !Bun.which("zstd") || !Bun.which("bash")) return undefined;
  const identity = join(dir, "age.key");
  Bun.spawnSync(["age-keygen", "-o", identity], { stdout: "ignore", stderr: "ignore" });
  const recipient = /public key: (age1\w+)/.exec(readFileSync(identity, "utf8"))?.[1];
  if (!recipient) return undefined;
  const quote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;
  return (
    `set -o pipefail; ${quote(tools.mongodump)} --uri=${quote(uri)} --db=bench --archive --quiet` +
    ` | zstd -3 -q | age -r ${recipient} -o ${quote(join(dir, "pipeline.zst.age"))}`
  );
}

function describeSide(label: string, side: Side, megabytes: number): string {
  const wall = median(side.runs.map((run) => run.seconds));
  const cpu = median(side.runs.map((run) => run.cpuSeconds));
  const peak = Math.max(...side.runs.map((run) => run.peakMb ?? 0));
  return (
    `  ${label.padEnd(46)} ${wall.toFixed(1).padStart(6)} s ${(megabytes / wall).toFixed(0).padStart(5)} MB/s  ` +
    `client CPU ${cpu.toFixed(1)} s, server CPU ${median(side.serverCpu).toFixed(1)} s, peak ${peak.toFixed(0)} MB   runs: ${side.runs.map((run) => run.seconds.toFixed(1)).join(" ")}`
  );
}

function report(kind: string, what: string, oursLabel: string, ours: Side, theirsLabel: string, theirs: Side, megabytes: number) {
  console.log(describeSide(oursLabel, ours, megabytes));
  console.log(describeSide(theirsLabel, theirs, megabytes));
  const ratio = median(theirs.runs.map((run) => run.seconds)) / median(ours.runs.map((run) => run.seconds));
  const pass = ratio >= 1;
  verdict(pass, `${what} on ${kind}: dbvault-agent ${ratio.toFixed(2)}× the speed of ${what === "dump" ? "mongodump" : "mongorestore"} (target ≥ 1)`);
}

function verdict(pass: boolean, text: string) {
  allPass &&= pass;
  const line = `${pass ? "PASS" : "FAIL"}  ${text}`;
  console.log(`  ${line}`);
  verdicts.push(line);
}

function parseSize(text: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(MB|GB)$/i.exec(text.trim());
  if (!match) throw new Error(`--size: expected e.g. 200MB or 1GB, got ${text}`);
  return Number(match[1]) * (match[2]!.toUpperCase() === "GB" ? 1e9 : 1e6);
}
