// The single-file binary (scripts/build-agent.ts → dist/dbvault-agent) does what the source does:
// a dump → verify → decrypt → restore round trip against the MongoDB test server reproduces the
// database exactly, and the native path spawns mongodump from inside the compiled program.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { closeSync, constants, openSync, readFileSync, statSync } from "node:fs";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { encodeMasterKey, generateMasterKey } from "../src/archive/index.ts";
import { EXIT } from "../src/cli-error.ts";
import { summarizeArchive } from "../src/dump/mongodump-archive/index.ts";
import { collectBytes, collectEvents, readFixture, splitForRewrite } from "../src/dump/mongodump-archive/test-support.ts";
import { writeMongodumpArchive } from "../src/dump/mongodump-archive/write-archive.ts";
import { buildAwkwardDatabase } from "./support/awkward-database.ts";
import { snapshotDatabase } from "./support/database-snapshot.ts";
import { BINARY_PATH, ensureAgentBinary, REPO_ROOT, runAgent } from "./support/run-agent.ts";
import { type AgentTestEnv, openAgentTestEnv } from "./support/test-env.ts";
import { waitUntil } from "../../testkit/wait-until.ts";

let env: AgentTestEnv;
let dir: string;
let configPath: string;
let source: string;
let copy: string;
const binary = { command: [BINARY_PATH] };

beforeAll(async () => {
  await ensureAgentBinary();
  env = await openAgentTestEnv();
  dir = await env.makeTempDir();
  source = env.uniqueDatabase("bin_src");
  copy = env.uniqueDatabase("bin_copy");
  await buildAwkwardDatabase(env.client.db(source), { largeDocuments: false });
  configPath = join(dir, "agent.json");
  await writeFile(
    configPath,
    JSON.stringify({
      version: 1,
      masterKey: encodeMasterKey(generateMasterKey()),
      databases: [
        { name: "source", uri: env.uriFor(source) },
        { name: "copy", uri: env.uriFor(copy) },
      ],
      tools: { mode: "builtin" },
    }),
    { mode: 0o600 },
  );
});
afterAll(() => env.close());

test("the binary reports its version", async () => {
  const run = await runAgent(["version"], binary);
  expect(run.exitCode).toBe(0);
  const { version } = JSON.parse(await readFile(join(REPO_ROOT, "package.json"), "utf8"));
  expect(run.stdout).toStartWith(`dbvault-agent ${version} (${process.platform}-${process.arch}, bun `);
});

// modern-5k's documents eight times over (~8 MB): several sealed chunks, so that frames written
// behind (a pool thread writing one while the next is sealed) must land in order.
async function writeLargerArchive(path: string): Promise<Uint8Array> {
  const events = await collectEvents([await readFixture("modern-5k.archive")]);
  const { prelude, items } = splitForRewrite(events);
  const documents = items.filter((item) => item.kind === "document");
  const ends = items.filter((item) => item.kind === "namespace-end");
  const bytes = await collectBytes(writeMongodumpArchive(prelude, [...Array.from({ length: 8 }, () => documents).flat(), ...ends]));
  await writeFile(path, bytes);
  return bytes;
}

test("encrypt without compression and decrypt give back a mongodump archive byte for byte (the CRC-64 from liblzma or its thread)", async () => {
  // Without compression, encrypt checksums with the system's liblzma through bun:ffi, or where
  // that is missing on a worker thread (two cores or more), which the compiled program must
  // carry as an entry point of its own (scripts/build-agent.ts).
  const archive = join(dir, "larger.archive");
  const original = await writeLargerArchive(archive);
  expect(original.length).toBeGreaterThan(7 * 1024 * 1024);
  const sealed = join(dir, "larger.enc.dbvault");
  const opened = join(dir, "larger-opened.archive");
  const encrypt = await runAgent(["encrypt", "--compression", "none", "--in", archive, "--out", sealed, "--config", configPath], binary);
  expect(encrypt.stderr).toStartWith("dbvault-agent: sealed 40,008 documents in 3 namespaces");
  expect(encrypt.exitCode).toBe(0);
  const decrypt = await runAgent(["decrypt", "--in", sealed, "--out", opened, "--config", configPath, "--quiet"], binary);
  expect(decrypt.exitCode).toBe(0);
  expect(Buffer.compare(await readFile(opened), original)).toBe(0);
});

test("an encrypt that cannot be written names the file, exits 1 and leaves no partial file", async () => {
  const out = join(dir, "encrypt-too-big.enc.dbvault");
  const archive = join(REPO_ROOT, "agent/test-data/mongodump-archives/modern-5k.archive");
  for (const compression of ["none", "zstd"]) {
    const [stderr, exitCode] = await runLimited(`exec "$0" encrypt --compression ${compression} --in "$1" --out "$2" --config "$3" --quiet`, [
      archive,
      out,
      configPath,
    ]);
    expect(stderr).toBe(`dbvault-agent: cannot write ${out}: the file is larger than this system allows (a file size limit)\n`);
    expect(exitCode).toBe(EXIT.failure);
    expect((await readdir(dir)).filter((name) => name.includes("encrypt-too-big"))).toEqual([]);
  }
});

test("dump → verify → decrypt → restore through the binary reproduces the database exactly", async () => {
  const file = join(dir, "backup.enc.dbvault");
  const dumped = await runAgent(["dump", "--db", "source", "--out", file, "--config", configPath], binary);
  expect(dumped.exitCode).toBe(0);

  const verified = await runAgent(["verify", "--in", file, "--json", "--config", configPath], binary);
  expect(verified.exitCode).toBe(0);
  const counts: Record<string, number> = {};
  for (const info of await env.client.db(source).listCollections().toArray()) {
    counts[`${source}.${info.name}`] = info.type === "view" ? 0 : await env.client.db(source).collection(info.name).countDocuments();
  }
  expect(JSON.parse(verified.stdout).namespaces).toEqual(counts);
  const total = Object.values(counts)
    .reduce((sum, count) => sum + count, 0)
    .toLocaleString("en-US");
  expect(dumped.stderr).toContain(`dumped ${total} documents from 12 collections of source with the built-in engine into ${file}`);

  const archivePath = join(dir, "backup.archive");
  const decrypted = await runAgent(["decrypt", "--in", file, "--out", archivePath, "--config", configPath], binary);
  expect(decrypted.exitCode).toBe(0);
  expect(decrypted.stderr).toContain(`restore it with: mongorestore --archive=${archivePath}`);
  const summary = await summarizeArchive([await readFile(archivePath)]);
  expect(Object.fromEntries(summary.namespaces.map((n) => [n.namespace, n.documentCount]))).toEqual(counts);

  const restored = await runAgent(["restore", "--db", "copy", "--in", file, "--config", configPath], binary);
  expect(restored.stderr).toContain(`restored ${total} documents into 12 collections of copy with the built-in engine`);
  expect(restored.exitCode).toBe(0);
  expect(await snapshotDatabase(env.client.db(copy))).toEqual(await snapshotDatabase(env.client.db(source)));
});

test("a dump into stdout that nobody reads still ends when stopped (SIGTERM), instead of hanging", async () => {
  const database = env.uniqueDatabase("bin_stalled");
  const padding = "p".repeat(1000);
  for (const name of ["a", "b"]) {
    await env.client
      .db(database)
      .collection<{ _id: number }>(name)
      .insertMany(Array.from({ length: 3000 }, (_, i) => ({ _id: i, padding })));
  }
  const stalledConfig = join(dir, "stalled.json");
  const config = JSON.parse(await readFile(configPath, "utf8"));
  await writeFile(stalledConfig, JSON.stringify({ ...config, databases: [{ name: "stalled", uri: env.uriFor(database) }] }), { mode: 0o600 });
  // stdout is a FIFO whose reader never reads: the dump fills it and waits for room for good.
  const fifo = join(dir, "stdout.fifo");
  expect(Bun.spawnSync(["mkfifo", fifo]).exitCode).toBe(0);
  const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
  const writer = openSync(fifo, constants.O_WRONLY);
  try {
    const child = Bun.spawn([BINARY_PATH, "dump", "--db", "stalled", "--out", "-", "--compression", "none", "--config", stalledConfig], {
      stdin: "ignore",
      stdout: writer,
      stderr: "pipe",
    });
    // Stalled once the pipe is full (the kernel holds 64 KiB for a reader that never comes): the
    // agent's written bytes (pipe and socket) stop growing between two looks.
    let previous = -1;
    await waitUntil(
      () => {
        const written = bytesWritten(child.pid);
        const stalled = written > 32_768 && written === previous;
        previous = written;
        return stalled;
      },
      { interval: 100, message: "the dump to fill the pipe and stall" },
    );
    child.kill("SIGTERM");
    const started = performance.now();
    const exitCode = await Promise.race([child.exited, Bun.sleep(15_000).then(() => "still running")]);
    if (exitCode === "still running") child.kill("SIGKILL");
    expect(exitCode).toBe(EXIT.interrupted);
    expect(performance.now() - started).toBeLessThan(15_000);
    expect(await new Response(child.stderr).text()).toContain("the operation was cancelled");
  } finally {
    closeSync(writer);
    closeSync(reader);
  }
}, 30_000);

test("a restore whose private copy cannot be written fails clearly, changes nothing and leaves no copy behind", async () => {
  const file = join(dir, "for-copy-failure.enc.dbvault");
  expect((await runAgent(["dump", "--db", "source", "--out", file, "--config", configPath], binary)).exitCode).toBe(0);
  expect(statSync(file).size).toBeGreaterThan(32 * 1024);
  const tempDir = await env.makeTempDir();
  const into = env.uniqueDatabase("bin_copy_failure");
  await writeFile(
    join(dir, "copy-failure.json"),
    JSON.stringify({ ...JSON.parse(await readFile(configPath, "utf8")), databases: [{ name: "target", uri: env.uriFor(into) }] }),
    { mode: 0o600 },
  );
  // From stdin the backup is copied to a private file while it is verified. A 16 KiB file-size
  // limit (with SIGXFSZ ignored, writes past it fail with EFBIG) stands in for a full disk.
  const restore = `trap '' XFSZ; ulimit -f 16; exec "$0" restore --db target --in - --config "$1"`;
  const child = Bun.spawn(["bash", "-c", restore, BINARY_PATH, join(dir, "copy-failure.json")], {
    stdin: Bun.file(file),
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: process.env.PATH!, HOME: "/nonexistent-home", TMPDIR: tempDir },
  });
  const [stderr, exitCode] = await Promise.all([new Response(child.stderr).text(), child.exited]);
  expect(exitCode).toBe(EXIT.failure);
  expect(stderr).toContain("could not keep the backup's private copy in");
  expect(stderr).toContain("file too large");
  expect(stderr).toContain("nothing was changed in target");
  expect(await env.client.db(into).listCollections().toArray()).toEqual([]);
  expect(await readdir(tempDir)).toEqual([]);
}, 60_000);

test("a restore removes the backup copies that killed restores left behind, and only those", async () => {
  const file = join(dir, "for-leftover-copies.enc.dbvault");
  expect((await runAgent(["dump", "--db", "source", "--out", file, "--config", configPath], binary)).exitCode).toBe(0);
  const tempDir = await env.makeTempDir();
  // A process that has ended: its pid names the copy a SIGKILLed restore would have left.
  const ended = Bun.spawn(["true"]);
  await ended.exited;
  const abandoned = `dbvault-restore-${ended.pid}-aB3dE6`;
  const inUse = `dbvault-restore-${process.pid}-gH9jK1`; // this test's own, alive
  const olderAgent = "dbvault-restore-mN4pQ7"; // no pid: whose it is cannot be told
  for (const name of [abandoned, inUse, olderAgent]) {
    await mkdir(join(tempDir, name), { mode: 0o700 });
    await writeFile(join(tempDir, name, "backup.enc.dbvault"), "ciphertext", { mode: 0o600 });
  }
  const into = env.uniqueDatabase("bin_leftover_copies");
  await writeFile(
    join(dir, "leftover-copies.json"),
    JSON.stringify({ ...JSON.parse(await readFile(configPath, "utf8")), databases: [{ name: "target", uri: env.uriFor(into) }] }),
    { mode: 0o600 },
  );
  const child = Bun.spawn([BINARY_PATH, "restore", "--db", "target", "--in", "-", "--config", join(dir, "leftover-copies.json")], {
    stdin: Bun.file(file),
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: process.env.PATH!, HOME: "/nonexistent-home", TMPDIR: tempDir },
  });
  const [stderr, exitCode] = await Promise.all([new Response(child.stderr).text(), child.exited]);
  expect(stderr).not.toContain("error");
  expect(exitCode).toBe(0);
  expect((await readdir(tempDir)).sort()).toEqual([inUse, olderAgent].sort());
}, 60_000);

// A 16 KiB file-size limit (SIGXFSZ ignored: writes past it fail with EFBIG) stands in for a full disk.
function runLimited(script: string, args: string[]) {
  const child = Bun.spawn(["bash", "-c", `trap '' XFSZ; ulimit -f 16; ${script}`, BINARY_PATH, ...args], {
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: process.env.PATH!, HOME: "/nonexistent-home" },
  });
  return Promise.all([new Response(child.stderr).text(), child.exited]);
}

test("a dump that cannot be written names the file or stdout, exits 1 and leaves no partial file", async () => {
  const out = join(dir, "too-big.enc.dbvault");
  const [fileStderr, fileExit] = await runLimited(`exec "$0" dump --db source --out "$1" --config "$2" --quiet`, [out, configPath]);
  expect(fileExit).toBe(EXIT.failure);
  expect(fileStderr).toBe(`dbvault-agent: cannot write ${out}: the file is larger than this system allows (a file size limit)\n`);
  expect((await readdir(dir)).filter((name) => name.includes("too-big"))).toEqual([]);

  // stdout redirected into a file past the limit used to crash with an unhandled 'error' event.
  const redirected = join(dir, "redirected.enc.dbvault");
  const [stdoutStderr, stdoutExit] = await runLimited(`exec "$0" dump --db source --out - --config "$2" --quiet > "$1"`, [redirected, configPath]);
  expect(stdoutExit).toBe(EXIT.failure);
  expect(stdoutStderr).toBe("dbvault-agent: cannot write stdout: the file is larger than this system allows (a file size limit)\n");
});

test("a dump into a pipe whose reader goes away says so and exits 1", async () => {
  // Megabytes, far more than a pipe holds, so the dump is still writing when the reader leaves.
  const database = env.uniqueDatabase("bin_epipe");
  const padding = "p".repeat(1000);
  await env.client
    .db(database)
    .collection<{ _id: number }>("a")
    .insertMany(Array.from({ length: 3000 }, (_, i) => ({ _id: i, padding })));
  const epipeConfig = join(dir, "epipe.json");
  await writeFile(epipeConfig, JSON.stringify({ ...JSON.parse(await readFile(configPath, "utf8")), databases: [{ name: "big", uri: env.uriFor(database) }] }), {
    mode: 0o600,
  });
  const script = `"$0" dump --db big --out - --compression none --config "$1" --quiet | head -c 100 > /dev/null; exit "\${PIPESTATUS[0]}"`;
  const child = Bun.spawn(["bash", "-c", script, BINARY_PATH, epipeConfig], { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stderr, exitCode] = await Promise.all([new Response(child.stderr).text(), child.exited]);
  expect(exitCode).toBe(EXIT.failure);
  expect(stderr).toBe("dbvault-agent: cannot write stdout: its reader closed it\n");
});

test("restore --to-db restores chosen collections as a copy beside the original, and prints --json stats", async () => {
  const file = join(dir, "backup.enc.dbvault"); // written by the test above
  const chosen = (await env.client.db(source).listCollections({ type: "collection" }).toArray())
    .map((info) => info.name)
    .sort()
    .slice(0, 2);
  const target = `${copy}_partial`;
  const before = await snapshotDatabase(env.client.db(copy));
  const run = await runAgent(
    ["restore", "--db", "copy", "--in", file, "--to-db", target, "--collections", chosen.join(","), "--json", "--config", configPath],
    binary,
  );
  expect(run.exitCode).toBe(0);
  const stats = JSON.parse(run.stdout);
  const counts = await Promise.all(chosen.map((name) => env.client.db(source).collection(name).countDocuments()));
  expect(stats).toEqual({
    restored: counts[0]! + counts[1]!,
    failed: 0,
    collections: Object.fromEntries(chosen.map((name, i) => [`${target}.${name}`, { restored: counts[i], failed: 0 }])),
  });
  const names = (await env.client.db(target).listCollections({}, { nameOnly: true }).toArray()).map((info) => info.name).sort();
  expect(names).toEqual(chosen);
  expect(await snapshotDatabase(env.client.db(copy))).toEqual(before);

  const unknown = await runAgent(["restore", "--db", "copy", "--in", file, "--to-db", target, "--collections", "nope", "--config", configPath], binary);
  expect(unknown.exitCode).toBe(1);
  expect(unknown.stderr).toContain(`the backup has no collection "nope"; it holds ${chosen[0]}`);
  expect(unknown.stderr).toContain(`nothing was changed in ${target}`);
});

test("the binary runs mongodump from PATH when it is there (here a recording stand-in)", async () => {
  const log = await env.makeTempDir();
  const nativeConfig = join(dir, "native.json");
  const config = JSON.parse(await readFile(configPath, "utf8"));
  await writeFile(nativeConfig, JSON.stringify({ ...config, tools: undefined }), { mode: 0o600 });
  const file = join(dir, "native.enc.dbvault");
  const run = await runAgent(["dump", "--db", "source", "--out", file, "--config", nativeConfig], {
    ...binary,
    env: {
      PATH: `${join(REPO_ROOT, "agent/test/fake-tools")}:${process.env.PATH}`,
      FAKE_TOOL_LOG: log,
      FAKE_DUMP_ARCHIVE: join(REPO_ROOT, "agent/test-data/mongodump-archives/modern-5k.archive"),
    },
  });
  expect(run.stderr).toMatch(/dumped 5,000 documents from 2 collections of source with mongodump into/);
  expect(run.exitCode).toBe(0);
  const verified = await runAgent(["verify", "--in", file, "--json", "--config", nativeConfig], binary);
  expect(verified.stdout).toBe('{"namespaces":{"other.x":1,"shop.empty":0,"shop.orders":5000}}\n');
  const argv = (await readFile(join(log, "mongodump.argv"), "utf8")).trim().split("\n");
  expect(argv.slice(1)).toEqual(["--archive", `--db=${source}`]);
  expect(argv.join(" ")).not.toContain("mongodb://");
  expect(await readFile(join(log, "mongodump.config"), "utf8")).toStartWith('uri: "mongodb://');
});

/** Bytes a process has written so far, from Linux's per-process I/O counters. */
function bytesWritten(pid: number): number {
  const io = readFileSync(`/proc/${pid}/io`, "utf8");
  return Number(/^wchar: (\d+)$/m.exec(io)?.[1] ?? 0);
}
