// Throughput of the `.enc.dbvault` streams against the usual command-line tools, on one
// generated input file, in one run. Every row is a separate process reading the same file and
// writing to /dev/null, timed by wall clock (best of --runs) with its CPU time beside it, and by
// default pinned to one CPU core with taskset so that "per core" figures are honest. A decrypt
// row first writes its encrypted input, untimed, and deletes it afterwards.
//
//   bun bench/archive-throughput.ts [--size 1GiB] [--runs 3] [--no-pin] [--keep] [--dir DIR]
//
// Files live in /dev/shm (memory) when it exists, so disk speed does not swamp the figures.
//
// Installs nothing: a missing tool's rows are skipped with the command that installs it.
import { spawnSync } from "node:child_process";
import { once } from "node:events";
import { closeSync, createWriteStream, existsSync, mkdtempSync, openSync, readFileSync, readSync, rmSync, statSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createCompressor } from "../agent/src/archive/compression.ts";
import { type Compression, createDecryptStream, createEncryptStream, generateMasterKey } from "../agent/src/archive/index.ts";

const READ_BLOCK = Number(process.env.READ_BLOCK ?? 1024 * 1024);

interface Row {
  name: string;
  /** The binary this row needs; a missing one skips the row with how to install it. */
  tool?: string;
  /** Timed command. Outputs go to /dev/null so rows measure work, not page-cache writes. */
  command: string[];
  /** Untimed command run first (writes the encrypted file a decrypt row reads). */
  prepare?: string[];
  /** File deleted after the row. */
  removeAfter?: string;
  wallMBps?: number;
  cpuMBps?: number;
}

const args = process.argv.slice(2);
if (args[0] === "--worker") await runWorker(args.slice(1));
else await runBench();

async function runBench() {
  const size = parseSize(readFlag("--size") ?? "1GiB");
  const runs = Number(readFlag("--runs") ?? 3);
  const pin = !args.includes("--no-pin") && hasTool("taskset");
  const base = readFlag("--dir") ?? (existsSync("/dev/shm") ? "/dev/shm" : tmpdir());
  const dir = mkdtempSync(join(base, "dbvault-bench-"));
  const file = (name: string) => join(dir, name);
  try {
    console.log(`generating ${formatMB(size)} MB of BSON-like JSON documents in ${dir} ...`);
    writeFileSync(file("key"), generateMasterKey());
    await generateInput(file("input.json"), size);
    console.log(`input ${formatMB(size)} MB; zstd -3 would shrink it to ${compressedPercent(file("input.json"))}`);
    if (hasTool("age-keygen")) spawnSync("age-keygen", ["-o", file("age-key.txt")], { stdio: "ignore" });
    const input = file("input.json");
    const self = ["bun", import.meta.path, "--worker"];
    const ours = (op: string, ...rest: string[]) => [...self, op, ...rest, file("key")];
    const ssl = ["openssl", "enc", "-aes-256-cbc", "-pbkdf2", "-pass", "pass:bench"];
    const gpg = ["gpg", "--homedir", dir, "--batch", "--yes", "--quiet", "--pinentry-mode", "loopback", "--passphrase", "bench"];
    const gpgEncrypt = [...gpg, "--symmetric", "--cipher-algo", "AES256", "--compress-algo", "none"];
    const ageTo = (out: string) => ["age", "-r", readAgeRecipient(file("age-key.txt")), "-o", out, input];
    const rows: Row[] = [
      { name: "dbvault encrypt (no compression)", command: ours("encrypt", "none", input, "/dev/null") },
      {
        name: "dbvault decrypt (no compression)",
        prepare: ours("encrypt", "none", input, file("x.dbv")),
        command: ours("decrypt", file("x.dbv"), "/dev/null"),
        removeAfter: file("x.dbv"),
      },
      { name: "openssl enc -aes-256-cbc", tool: "openssl", command: [...ssl, "-in", input, "-out", "/dev/null"] },
      {
        name: "openssl enc -d -aes-256-cbc",
        tool: "openssl",
        prepare: [...ssl, "-in", input, "-out", file("x.cbc")],
        command: [...ssl, "-d", "-in", file("x.cbc"), "-out", "/dev/null"],
        removeAfter: file("x.cbc"),
      },
      { name: "age (X25519 recipient)", tool: "age", command: ageTo("/dev/null") },
      {
        name: "age -d",
        tool: "age",
        prepare: ageTo(file("x.age")),
        command: ["age", "-d", "-i", file("age-key.txt"), "-o", "/dev/null", file("x.age")],
        removeAfter: file("x.age"),
      },
      { name: "gpg --symmetric AES256", tool: "gpg", command: [...gpgEncrypt, "-o", "/dev/null", input] },
      {
        name: "gpg --decrypt",
        tool: "gpg",
        prepare: [...gpgEncrypt, "-o", file("x.gpg"), input],
        command: [...gpg, "--decrypt", "-o", "/dev/null", file("x.gpg")],
        removeAfter: file("x.gpg"),
      },
      { name: "zstd -3 alone (Bun node:zlib)", command: [...self, "compress", "zstd", input, "/dev/null"] },
      { name: "gzip -6 alone (Bun node:zlib)", command: [...self, "compress", "gzip", input, "/dev/null"] },
      { name: "dbvault zstd+encrypt (backup path)", command: ours("encrypt", "zstd", input, "/dev/null") },
      {
        name: "dbvault decrypt+unzstd (restore path)",
        prepare: ours("encrypt", "zstd", input, file("z.dbv")),
        command: ours("decrypt", file("z.dbv"), "/dev/null"),
        removeAfter: file("z.dbv"),
      },
      { name: "gzip -6 alone (CLI)", tool: "gzip", command: ["gzip", "-6", "-c", input] },
      { name: "zstd -3 alone (CLI, for reference)", tool: "zstd", command: ["zstd", "-3", "-q", "-c", input] },
    ];
    console.log(`each row: own process, best wall time of ${runs}${pin ? ", pinned to one core (taskset -c 0)" : ""}`);
    console.log(`${"".padEnd(40)} ${"wall MB/s".padStart(10)} ${"CPU MB/s".padStart(10)}  (MB/s of plaintext; CPU = user+system time)`);
    for (const row of rows) runRow(row, size, runs, pin);
    printVerdicts(rows, pin);
  } finally {
    if (!args.includes("--keep")) rmSync(dir, { recursive: true, force: true });
  }
}

function runRow(row: Row, bytes: number, runs: number, pin: boolean) {
  const label = row.name.padEnd(40);
  if (row.tool && !hasTool(row.tool)) {
    const pkg = row.tool === "gpg" ? "gnupg" : row.tool;
    return console.log(`${label} skipped: ${row.tool} not found (apt-get install -y ${pkg})`);
  }
  const wrap = (argv: string[]) => (pin ? ["taskset", "-c", "0", ...argv] : argv);
  try {
    if (row.prepare) runOnce(row.prepare);
    for (let i = 0; i < runs; i++) {
      const { seconds, cpuSeconds } = runOnce(wrap(row.command));
      if (row.wallMBps === undefined || bytes / 1e6 / seconds > row.wallMBps) {
        row.wallMBps = bytes / 1e6 / seconds;
        row.cpuMBps = bytes / 1e6 / cpuSeconds;
      }
    }
    console.log(`${label} ${row.wallMBps!.toFixed(0).padStart(10)} ${row.cpuMBps!.toFixed(0).padStart(10)}`);
  } catch (error) {
    console.log(`${label} FAILED: ${(error as Error).message}`);
  } finally {
    if (row.removeAfter) rmSync(row.removeAfter, { force: true });
  }
}

function runOnce(argv: string[]): { seconds: number; cpuSeconds: number } {
  const started = performance.now();
  // stdout goes to /dev/null: the CLI compressors write their output there.
  const result = Bun.spawnSync(argv, { stdout: Bun.file("/dev/null"), stderr: "pipe" });
  const seconds = (performance.now() - started) / 1000;
  if (result.exitCode !== 0) throw new Error(`${argv.join(" ")}: ${result.stderr.toString().trim()}`);
  const cpu = result.resourceUsage?.cpuTime.total;
  return { seconds, cpuSeconds: cpu === undefined ? seconds : Number(cpu) / 1e6 };
}

function printVerdicts(rows: Row[], pin: boolean) {
  const find = (name: string) => rows.find((r) => r.name === name);
  const ours = find("dbvault encrypt (no compression)");
  const age = find("age (X25519 recipient)");
  const whole = find("dbvault zstd+encrypt (backup path)");
  const gzip = find("gzip -6 alone (CLI)");
  console.log("");
  verdict(`encryption alone >= 1000 MB/s${pin ? " on one core" : ""}`, ours?.wallMBps, 1000);
  verdict("encryption faster than age", ours?.wallMBps, age?.wallMBps);
  verdict("zstd+encrypt stream faster than gzip -6 alone", whole?.wallMBps, gzip?.wallMBps);
}

function verdict(label: string, value: number | undefined, target: number | undefined) {
  if (value === undefined || target === undefined) return console.log(`SKIP  ${label} (a row did not run)`);
  const pass = value >= target;
  console.log(`${pass ? "PASS" : "FAIL"}  ${label}: ${value.toFixed(0)} vs ${target.toFixed(0)} MB/s (wall)`);
}

// Worker mode: one measured operation in its own process, with plain read(2)/write(2) calls as
// the command-line tools do. (Measured on Bun 1.4: Bun.file().stream() and fs streams cost
// 0.1-0.3 s more per GiB than readSync into fresh buffers, which would swamp the comparison.)
async function runWorker([op, ...rest]: string[]) {
  const [input, output, keyFile] = op === "decrypt" ? (rest as [string, string, string]) : (rest.slice(1) as [string, string, string]);
  const compression = rest[0] as Compression;
  const stream =
    op === "encrypt"
      ? createEncryptStream({ masterKey: readFileSync(keyFile), compression })
      : op === "decrypt"
        ? createDecryptStream({ masterKey: readFileSync(keyFile) })
        : op === "compress"
          ? createCompressor(compression)!
          : undefined;
  if (!stream) throw new Error(`unknown worker operation ${op}`);
  const fd = openSync(output, "w");
  const drained = (async () => {
    for await (const piece of stream) writeSync(fd, piece as Buffer);
  })();
  const inputFd = openSync(input, "r");
  for (;;) {
    // A fresh buffer per read: the encrypt stream keeps references instead of copying.
    const block = Buffer.allocUnsafe(READ_BLOCK);
    const n = readSync(inputFd, block, 0, READ_BLOCK, null);
    if (n === 0) break;
    if (!stream.write(block.subarray(0, n))) await once(stream, "drain");
  }
  stream.end();
  await drained;
  closeSync(fd);
  closeSync(inputFd);
}

function compressedPercent(path: string): string {
  if (!hasTool("zstd")) return "(zstd CLI not found)";
  const result = Bun.spawnSync(["sh", "-c", `zstd -3 -c '${path}' | wc -c`]);
  const bytes = Number(result.stdout.toString().trim());
  return `${((bytes / statSync(path).size) * 100).toFixed(1)}% of its size`;
}

// Documents shaped like a typical collection dump: ObjectId-like ids, names, emails, numbers,
// dates, nested objects and arrays, so compressors see realistic redundancy.
async function generateInput(path: string, size: number) {
  const out = createWriteStream(path, { highWaterMark: 4 * READ_BLOCK });
  const cities = ["Berlin", "Lisbon", "Austin", "Osaka", "Lagos", "Lyon", "Pune", "Quito"];
  const words = ["alpha", "delta", "orbit", "maple", "quartz", "ember", "lumen", "cobalt", "sierra", "tango"];
  let written = 0;
  let seed = 12345;
  const next = () => (seed = (seed * 1103515245 + 12345) >>> 0) >>> 8;
  for (let id = 0; written < size; ) {
    const lines: string[] = [];
    for (let i = 0; i < 2000; i++, id++) {
      const r = next();
      const note = Array.from({ length: 3 + (r % 6) }, (_, k) => words[(r >>> k) % words.length]).join(" ");
      lines.push(
        `{"_id":{"$oid":"65${(0x1f000000 + id).toString(16)}${(r & 0xffffff).toString(16).padStart(6, "0")}a1b2c3d4"},` +
          `"orderNo":${100000 + id},"customer":{"name":"Customer ${r % 50000}","email":"user${r % 50000}@example.com",` +
          `"city":"${cities[r % cities.length]}"},"items":[{"sku":"SKU-${r % 997}","qty":${1 + (r % 5)},"price":{"$numberDecimal":"${(r % 10000) / 100}"}}],` +
          `"status":"${r % 3 ? "shipped" : "pending"}","note":"${note}","createdAt":{"$date":"${new Date(1.7e12 + id * 61000).toISOString()}"}}\n`,
      );
    }
    const block = Buffer.from(lines.join(""));
    const piece = block.subarray(0, Math.min(block.length, size - written));
    written += piece.length;
    if (!out.write(piece)) await new Promise((resolve) => out.once("drain", resolve));
  }
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
}

function readAgeRecipient(keyFile: string): string {
  return readFileSync(keyFile, "utf8").match(/public key: (age1\w+)/)?.[1] ?? "";
}

function hasTool(binary: string): boolean {
  return spawnSync("sh", ["-c", `command -v ${binary}`], { stdio: "ignore" }).status === 0;
}

function readFlag(name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

function parseSize(text: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*(B|KB|KiB|MB|MiB|GB|GiB)?$/i.exec(text);
  if (!match) throw new Error(`--size: expected e.g. 256MB, 1GiB; got ${text}`);
  const units: Record<string, number> = { b: 1, kb: 1e3, kib: 1024, mb: 1e6, mib: 1024 ** 2, gb: 1e9, gib: 1024 ** 3 };
  return Math.round(Number(match[1]) * units[(match[2] ?? "b").toLowerCase()]!);
}

function formatMB(bytes: number): string {
  return (bytes / 1e6).toFixed(0);
}
