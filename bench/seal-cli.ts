// Sealing as users run it: the real `dbvault-agent encrypt`/`decrypt` command (the compiled
// binary, whole process) on mongodump archives, against age and zstd on the same file in the
// same run. Each pair runs alternately (a, b, b, a, …) and the medians are compared, so a busy
// machine slows both sides alike; CPU time and peak RSS are shown beside the wall time.
//
//   bun bench/seal-cli.ts [--sizes 100MB,1GiB] [--shapes small,large] [--rounds 3]
//                         [--archive FILE]... [--dir DIR] [--keep]
//
// Archives are generated (bench/support/generate-archive.ts) into /dev/shm when it exists, or
// given with --archive (e.g. one `mongodump --archive` wrote; bench/dump-restore.ts keeps its own
// with --keep). Needs age and zstd (apt-get install -y age zstd) and /usr/bin/time for peak RSS.
//
// Targets (issue 15): encrypt --compression none at least as fast as `age -r` with peak RSS
// under 150 MB; decrypt at least as fast as `age -d`; encrypt with zstd at least 0.9× `zstd -3`
// alone; on 2 cores, encrypt with zstd at least 1.7× its speed on one core.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { encodeMasterKey, generateMasterKey } from "../agent/src/archive/index.ts";
import { type DocumentShape, writeBenchArchive } from "./support/generate-archive.ts";
import { describeLoad, HAS_GNU_TIME, type Measurement, measurePaired, measureProcess, readCpuModel, summarize } from "./support/measure-process.ts";

const root = resolve(import.meta.dir, "..");
const LIMIT_MB = 150;
const args = process.argv.slice(2);
const readList = (name: string) => args.flatMap((arg, i) => (arg === name && args[i + 1] ? [args[i + 1]!] : []));
const readFlag = (name: string) => readList(name)[0];

const sizes = (readFlag("--sizes") ?? "100MB,1GiB").split(",").map(parseSize);
const shapes = (readFlag("--shapes") ?? "small,large").split(",") as DocumentShape[];
const rounds = Number(readFlag("--rounds") ?? 3);
const given = readList("--archive").map((path) => resolve(path));

for (const tool of ["age", "age-keygen", "zstd", "taskset"]) {
  if (spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0) {
    console.error(`seal-cli: ${tool} not found (apt-get install -y ${tool === "age-keygen" ? "age" : tool === "taskset" ? "util-linux" : tool})`);
    process.exit(2);
  }
}
const agent = join(root, "dist/dbvault-agent");
if (!existsSync(agent) || args.includes("--build")) {
  if (Bun.spawnSync([process.execPath, join(root, "scripts/build-agent.ts")], { stdout: "inherit", stderr: "inherit" }).exitCode !== 0) process.exit(1);
}

const base = readFlag("--dir") ?? (existsSync("/dev/shm") ? "/dev/shm" : tmpdir());
const dir = mkdtempSync(join(base, "dbvault-seal-"));
const file = (name: string) => join(dir, name);
const verdicts: { pass: boolean; line: string }[] = [];

try {
  writeFileSync(file("agent.json"), JSON.stringify({ version: 1, masterKey: encodeMasterKey(generateMasterKey()), databases: [] }), { mode: 0o600 });
  spawnSync("age-keygen", ["-o", file("age.key")], { stdio: "ignore" });
  const recipient = /public key: (age1\w+)/.exec(readFileSync(file("age.key"), "utf8"))?.[1] ?? "";
  const archives: { name: string; path: string }[] = given.map((path) => ({ name: basename(path), path }));
  for (const size of given.length > 0 ? [] : sizes) {
    for (const shape of shapes) {
      const path = file(`${shape}-${size}.archive`);
      process.stderr.write(`generating a ${formatMB(size)} MB archive of ${shape} documents ...\n`);
      const documents = await writeBenchArchive(path, size, shape);
      archives.push({ name: `${shape} documents, ${formatMB(statSync(path).size)} MB (${documents.toLocaleString("en-US")} documents)`, path });
    }
  }
  console.log(`machine: ${readCpuModel()}, ${availableParallelism()} cores; ${describeLoad()} at the start`);
  console.log(`each pair: ${rounds} alternating runs, medians; wall s (CPU s) [peak RSS]; files in ${base}`);
  for (const archive of archives) benchArchive(archive, recipient);
  console.log(`\n${describeLoad()} at the end`);
  for (const verdict of verdicts) console.log(verdict.line);
  process.exitCode = verdicts.every((verdict) => verdict.pass) ? 0 : 1;
} finally {
  if (!args.includes("--keep")) rmSync(dir, { recursive: true, force: true });
}

function benchArchive(archive: { name: string; path: string }, recipient: string) {
  const megabytes = statSync(archive.path).size / 1e6;
  const label = `${archive.name.split(",")[0]}, ${megabytes.toFixed(0)} MB`;
  console.log(`\n== ${archive.name}`);
  const ours = (...rest: string[]) => [agent, ...rest, "--config", file("agent.json"), "--quiet", "--force"];
  const encryptNone = () => measureProcess(ours("encrypt", "--compression", "none", "--in", archive.path, "--out", file("x.dbv")));
  const age = () => measureProcess(["age", "-r", recipient, "-o", file("x.age"), archive.path]);
  const sealing = measurePaired(rounds, encryptNone, age);
  compare(label, "encrypt --compression none", "age -r", sealing, megabytes, 1, true);

  const decrypt = () => measureProcess(ours("decrypt", "--in", file("x.dbv"), "--out", file("x.out")));
  const ageDecrypt = () => measureProcess(["age", "-d", "-i", file("age.key"), "-o", file("x.age.out"), file("x.age")]);
  const opening = measurePaired(rounds, decrypt, ageDecrypt);
  compare(label, "decrypt", "age -d", opening, megabytes, 1, false);
  rmSync(file("x.out"), { force: true });
  rmSync(file("x.age.out"), { force: true });

  const encryptZstd = (pinTo?: string) => () =>
    measureProcess(ours("encrypt", "--compression", "zstd", "--in", archive.path, "--out", file("z.dbv")), pinTo ? { pinTo } : {});
  const zstd = () => measureProcess(["zstd", "-3", "-q", "-f", "-o", file("x.zst"), archive.path]);
  const compressing = measurePaired(rounds, encryptZstd(), zstd);
  compare(label, "encrypt --compression zstd", "zstd -3", compressing, megabytes, 0.9, false);

  if (availableParallelism() >= 2) {
    const scaling = measurePaired(rounds, encryptZstd("0,1"), encryptZstd("0"));
    compare(label, "encrypt zstd on 2 cores", "on 1 core", scaling, megabytes, 1.7, false);
  }
  for (const name of ["x.dbv", "x.age", "z.dbv", "x.zst"]) rmSync(file(name), { force: true });
}

// Prints both sides and the ratio (their median wall / ours): PASS when it reaches `atLeast`.
function compare(
  archiveLabel: string,
  ours: string,
  theirs: string,
  runs: { a: Measurement[]; b: Measurement[] },
  megabytes: number,
  atLeast: number,
  checkMemory: boolean,
) {
  const a = summarize(runs.a);
  const b = summarize(runs.b);
  const show = (label: string, s: ReturnType<typeof summarize>, all: Measurement[]) =>
    `  ${label.padEnd(28)} ${s.seconds.toFixed(2).padStart(6)} s (${s.cpuSeconds.toFixed(2)} s CPU) ${(megabytes / s.seconds).toFixed(0).padStart(5)} MB/s` +
    `${s.peakMb === undefined ? "" : `  [${s.peakMb.toFixed(0)} MB]`}   runs: ${all.map((run) => run.seconds.toFixed(2)).join(" ")}`;
  console.log(show(ours, a, runs.a));
  console.log(show(theirs, b, runs.b));
  const ratio = b.seconds / a.seconds;
  const memoryOk = !checkMemory || (a.peakMb !== undefined && a.peakMb < LIMIT_MB);
  const pass = ratio >= atLeast && memoryOk;
  const memory = checkMemory ? `, peak RSS ${a.peakMb === undefined ? "unknown (no /usr/bin/time)" : `${a.peakMb.toFixed(0)} MB`} (< ${LIMIT_MB})` : "";
  const line = `${pass ? "PASS" : "FAIL"}  ${ours} vs ${theirs}: ${ratio.toFixed(2)}× (target ≥ ${atLeast})${memory}`;
  console.log(`  ${line}`);
  verdicts.push({ pass, line: `${line}  [${archiveLabel}]` });
}

function parseSize(text: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(MB|MiB|GB|GiB)$/i.exec(text.trim());
  if (!match) throw new Error(`--sizes: expected e.g. 100MB or 1GiB, got ${text}`);
  const units: Record<string, number> = { mb: 1e6, mib: 1024 ** 2, gb: 1e9, gib: 1024 ** 3 };
  return Math.round(Number(match[1]) * units[match[2]!.toLowerCase()]!);
}

function formatMB(bytes: number): string {
  return (bytes / 1e6).toFixed(0);
}

if (!HAS_GNU_TIME) console.error("seal-cli: /usr/bin/time not found (apt-get install -y time): peak RSS is not measured, and the memory target fails");
