// Peak memory of the agent's built-in dump and restore, through the real pipeline (dump →
// zstd → encrypt → file, and file → decrypt → unzstd → restore), for a small and a large
// database. The agent runs as its own process (the compiled binary unless --agent source) and is
// measured from outside: /proc/PID/status sampled every 20 ms (VmHWM, the kernel's own
// high-water mark of its resident set, and VmRSS for the curve). The MongoDB test server runs in
// another process, so its memory (it holds the whole database) is not counted.
//
// The daemon's path is measured too (bench/support/agent-daemon.ts): for each size a real DBVault
// server (its own process, embedded defaults) and a Business-plan user, `dbvault-agent setup`,
// `dbvault-agent run` as its own process, and one manual backup (POST /api/backups) that the
// daemon dumps, compresses, encrypts and uploads in 8 MiB parts (two in flight, one filling). Its
// peak is the daemon's VmHWM, reset through /proc/PID/clear_refs just before the backup is
// triggered, so the connected idle daemon is the baseline; the time runs until the server reports
// the backup completed. Then the daemon's verification (it reads the stored backup back through the
// server, decrypts and parses it) is measured the same way, from the completion until the server
// records it. The server's own memory is not counted.
//
//   bun bench/dump-memory.ts [--sizes 20MB,2GB] [--agent binary|source] [--limit-mb 150]
//
// Generating 2 GB into the test server takes a few minutes; so do the dump and the restore.
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { MongoClient } from "mongodb";
import { encodeMasterKey, generateMasterKey } from "../agent/src/archive/index.ts";
import { measureDaemonBackup } from "./support/agent-daemon.ts";
import { generateDatabase } from "./support/generate-database.ts";

const root = resolve(import.meta.dir, "..");
const MB = 1_000_000;

interface Options {
  sizes: number[];
  agent: "binary" | "source";
  limitMb: number;
}

function readOptions(argv: string[]): Options {
  const options: Options = { sizes: [20 * MB, 2000 * MB], agent: "binary", limitMb: 150 };
  for (let i = 0; i < argv.length; i += 2) {
    const [name, value] = [argv[i], argv[i + 1]];
    if (name === "--sizes" && value) options.sizes = value.split(",").map(parseSize);
    else if (name === "--agent" && (value === "binary" || value === "source")) options.agent = value;
    else if (name === "--limit-mb" && value && Number(value) > 0) options.limitMb = Number(value);
    else {
      console.error(`dump-memory: unknown argument ${name}\nusage: bun bench/dump-memory.ts [--sizes 20MB,2GB] [--agent binary|source] [--limit-mb 150]`);
      process.exit(2);
    }
  }
  return options;
}

function parseSize(text: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(MB|GB)$/i.exec(text.trim());
  if (!match) throw new Error(`not a size: ${text} (use e.g. 20MB or 2GB)`);
  return Number(match[1]) * (match[2]!.toUpperCase() === "GB" ? 1000 * MB : MB);
}

/** Starts the MongoDB test server in its own process; resolves with its URI. */
async function startServer(): Promise<{ uri: string; stop(): Promise<void> }> {
  const child = Bun.spawn([process.execPath, join(root, "testkit/mongo-server/main.ts")], { stdout: "pipe", stderr: "inherit" });
  const reader = child.stdout.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the test server exited before printing its URI");
    text += new TextDecoder().decode(value);
  }
  return {
    uri: text.split("\n")[0]!.trim(),
    async stop() {
      child.kill("SIGTERM");
      await child.exited;
    },
  };
}

async function generate(client: MongoClient, database: string, bytes: number): Promise<number> {
  const started = performance.now();
  const layout = ["orders", "customers", "events", "audit"].map((name) => ({ name, bytes: bytes / 4 }));
  const counts = await generateDatabase(client, database, layout, (inserted) => {
    if (inserted % 200_000 < 1_000) process.stderr.write(`  generated ${inserted.toLocaleString()} documents\r`);
  });
  const inserted = Object.values(counts).reduce((sum, n) => sum + n, 0);
  process.stderr.write(`  generated ${inserted.toLocaleString()} documents in ${((performance.now() - started) / 1000).toFixed(0)} s\n`);
  return inserted;
}

interface Measured {
  peakMb: number;
  seconds: number;
  samplesMb: number[];
}

/** Runs the agent with the arguments and measures its memory from outside; throws if it fails. */
async function runMeasured(command: string[], args: string[]): Promise<Measured> {
  const started = performance.now();
  const child = Bun.spawn([...command, ...args], { stdout: "pipe", stderr: "pipe" });
  let peakKb = 0;
  const samplesKb: number[] = [];
  const sample = async () => {
    try {
      const status = await Bun.file(`/proc/${child.pid}/status`).text();
      const hwm = /VmHWM:\s+(\d+) kB/.exec(status);
      const rss = /VmRSS:\s+(\d+) kB/.exec(status);
      if (hwm) peakKb = Math.max(peakKb, Number(hwm[1]));
      if (rss) samplesKb.push(Number(rss[1]));
    } catch {
      // The process has just exited.
    }
  };
  const timer = setInterval(sample, 20);
  const [stderr, code] = await Promise.all([new Response(child.stderr).text(), child.exited]);
  clearInterval(timer);
  if (code !== 0) throw new Error(`agent ${args[0]} failed (exit ${code}):\n${stderr}`);
  return {
    peakMb: (peakKb * 1024) / MB,
    seconds: (performance.now() - started) / 1000,
    samplesMb: samplesKb.map((kb) => (kb * 1024) / MB),
  };
}

function describeCurve(samples: number[]): string {
  if (samples.length < 4) return "(short run)";
  const at = (share: number) => samples[Math.min(samples.length - 1, Math.floor(samples.length * share))]!.toFixed(0);
  return `RSS at 25/50/75/100%: ${at(0.25)}/${at(0.5)}/${at(0.75)}/${at(0.999)} MB`;
}

const options = readOptions(process.argv.slice(2));
const binary = join(root, "dist/dbvault-agent");
if (options.agent === "binary" && !existsSync(binary)) {
  const build = Bun.spawnSync([process.execPath, join(root, "scripts/build-agent.ts")], { stdout: "inherit", stderr: "inherit" });
  if (build.exitCode !== 0) process.exit(1);
}
const command = options.agent === "binary" ? [binary] : [process.execPath, join(root, "agent/src/cli.ts")];
const server = await startServer();
const client = await new MongoClient(server.uri).connect();
const directory = await mkdtemp(join(tmpdir(), "dbvault-bench-"));
const rows: string[] = [];
const skippedDaemon: string[] = [];
let pass = true;
try {
  for (const size of options.sizes) {
    const label = size >= 1000 * MB ? `${(size / 1000 / MB).toFixed(1)} GB` : `${(size / MB).toFixed(0)} MB`;
    console.error(`== ${label}`);
    const source = `bench_${Math.round(size / MB)}mb`;
    const target = `${source}_restored`;
    const documents = await generate(client, source, size);
    const dataMb = (await client.db(source).command({ dbStats: 1 })).dataSize / MB;
    const base = server.uri.replace(/\/?$/, "/");
    const config = join(directory, "agent.json");
    await writeFile(
      config,
      JSON.stringify({
        version: 1,
        masterKey: encodeMasterKey(generateMasterKey()),
        databases: [
          { name: "bench", uri: `${base}${source}` },
          { name: "restore", uri: `${base}${target}` },
        ],
        tools: { mode: "builtin" },
      }),
      { mode: 0o600 },
    );
    const file = join(directory, `${source}.enc.dbvault`);
    const dump = await runMeasured(command, ["dump", "--db", "bench", "--out", file, "--config", config, "--quiet"]);
    const fileMb = (await stat(file)).size / MB;
    console.error(`  dump: peak ${dump.peakMb.toFixed(1)} MB, ${dump.seconds.toFixed(1)} s; ${describeCurve(dump.samplesMb)}`);
    const daemonDirectory = join(directory, `daemon-${source}`);
    await mkdir(daemonDirectory, { mode: 0o700 });
    const daemon = await measureDaemonBackup({ command, databaseUri: `${base}${source}`, directory: daemonDirectory, expectedBytes: fileMb * MB });
    if ("skipped" in daemon) {
      console.error(`  daemon backup: SKIPPED, ${daemon.skipped}`);
      skippedDaemon.push(label);
    } else {
      console.error(
        `  daemon backup: peak ${daemon.peakMb.toFixed(1)} MB (idle before ${daemon.idleMb.toFixed(1)} MB), ${daemon.seconds.toFixed(1)} s, ` +
          `${daemon.sizeMb.toFixed(0)} MB uploaded; ${describeCurve(daemon.samplesMb)}`,
      );
      console.error(`  daemon verification: ${daemon.verify.status}, peak ${daemon.verify.peakMb.toFixed(1)} MB, ${daemon.verify.seconds.toFixed(1)} s`);
    }
    await client.db(source).dropDatabase(); // frees the test server's memory for the restored copy
    const restore = await runMeasured(command, ["restore", "--db", "restore", "--in", file, "--config", config, "--quiet"]);
    console.error(`  restore: peak ${restore.peakMb.toFixed(1)} MB, ${restore.seconds.toFixed(1)} s; ${describeCurve(restore.samplesMb)}`);
    const restored = (await client.db(target).command({ dbStats: 1 })).objects as number;
    if (restored !== documents) throw new Error(`restored ${restored} documents, expected ${documents}`);
    await client.db(target).dropDatabase();
    await rm(file, { force: true });
    const daemonPeakMb = "skipped" in daemon ? 0 : Math.max(daemon.peakMb, daemon.verify.peakMb);
    const verifiedOk = "skipped" in daemon || daemon.verify.status === "ok";
    const ok = Math.max(dump.peakMb, restore.peakMb, daemonPeakMb) < options.limitMb && verifiedOk;
    pass &&= ok;
    rows.push(
      [
        label.padEnd(8),
        `${dataMb.toFixed(0)} MB`.padStart(9),
        documents.toLocaleString().padStart(11),
        `${fileMb.toFixed(0)} MB`.padStart(9),
        `${dump.peakMb.toFixed(1)} MB`.padStart(10),
        `${restore.peakMb.toFixed(1)} MB`.padStart(10),
        ("skipped" in daemon ? "skipped" : `${daemon.peakMb.toFixed(1)} MB`).padStart(11),
        ("skipped" in daemon ? "-" : `${daemon.verify.peakMb.toFixed(1)} MB`).padStart(11),
        ("skipped" in daemon ? "-" : `${daemon.idleMb.toFixed(1)} MB`).padStart(11),
        `${dump.seconds.toFixed(0)} s / ${restore.seconds.toFixed(0)} s`.padStart(14),
        ("skipped" in daemon ? "-" : `${daemon.seconds.toFixed(0)} s`).padStart(8),
        ("skipped" in daemon ? "-" : `${daemon.verify.seconds.toFixed(0)} s`).padStart(8),
        ok ? "PASS" : "FAIL",
      ].join("  "),
    );
  }
} finally {
  await client.close();
  await server.stop();
  await rm(directory, { recursive: true, force: true });
}
console.log(
  `agent: ${options.agent === "binary" ? "dist/dbvault-agent" : "bun agent/src/cli.ts"} (built-in engine, zstd, 1 MiB chunks); limit ${options.limitMb} MB peak RSS`,
);
console.log(
  "daemon: `dbvault-agent run`, one manual backup uploaded to a local server (8 MiB parts, two in flight); time until the server reports it completed",
);
console.log("verify: the daemon reading that backup back through the server right after (download, decrypt, parse, count); time until it is recorded");
console.log(
  [
    "size    ",
    "     data",
    "  documents",
    "     file",
    " dump peak",
    "rest. peak",
    "daemon peak",
    "verify peak",
    "daemon idle",
    "  dump/restore",
    "  daemon",
    "  verify",
    "result",
  ].join("  "),
);
for (const row of rows) console.log(row);
console.log(
  pass
    ? `PASS: every dump, restore, daemon backup and verification stayed under ${options.limitMb} MB RSS (and every backup verified)`
    : `FAIL: a run reached ${options.limitMb} MB RSS or more, or a backup did not verify`,
);
if (skippedDaemon.length > 0)
  console.log(`NOTE: the daemon backup was skipped for ${skippedDaemon.join(", ")} (see above); the verdict does not cover it there`);
process.exitCode = pass ? 0 : 1;
