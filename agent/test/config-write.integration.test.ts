// How the config file (the only copy of the master key on this machine) reaches the disk. A power
// cut cannot be staged in a test, so the agent runs under strace, which records the system calls
// that make a replacement survive one: the new file's data flushed (fsync) before it is renamed
// over the old config, and its directory flushed after, so that the rename itself is on disk.
// Without them ext4 (data=writeback), XFS or btrfs can come back with an empty config. And a write
// that fails (a full disk: `ulimit -f` with SIGXFSZ ignored stands in for it) leaves the old file.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runAgent } from "./support/run-agent.ts";

let dir: string;
beforeAll(async () => void (dir = await mkdtemp(join(tmpdir(), "dbvault-config-write-"))));
afterAll(() => rm(dir, { recursive: true, force: true }));

// strace needs ptrace, which some containers forbid: without it this check cannot be made here.
const straceWorks = Bun.which("strace") !== null && Bun.spawnSync(["strace", "-o", "/dev/null", "true"]).exitCode === 0;

describe("writing the config file", () => {
  test.skipIf(!straceWorks)("flushes the new file before renaming it over the old one, then flushes the directory", async () => {
    const path = join(dir, "agent.json");
    expect((await runAgent(["key", "generate", "--config", path])).exitCode).toBe(0);
    const trace = join(dir, "trace.txt");
    const run = await runAgent(["key", "generate", "--force", "--config", path], {
      command: ["strace", "-f", "-qq", "-e", "trace=openat,fsync,fdatasync,rename,renameat,renameat2", "-o", trace, process.execPath, "agent/src/cli.ts"],
    });
    expect(run.exitCode).toBe(0);
    const lines = (await readFile(trace, "utf8")).split("\n");
    const opened = (pattern: RegExp) => lines.findIndex((line) => pattern.test(line));
    const tempOpen = opened(/openat\(.*"[^"]*\/\.[0-9a-f]{12}\.tmp", .*O_CREAT.* = \d+$/);
    expect(tempOpen).toBeGreaterThanOrEqual(0);
    const tempFd = /= (\d+)$/.exec(lines[tempOpen]!)![1];
    const renamed = lines.findIndex((line) => /rename(at2?)?\(.*\.tmp".*agent\.json"/.test(line));
    expect(renamed).toBeGreaterThan(tempOpen);
    const syncs = (from: number, to: number, fd: string) => lines.slice(from, to).some((line) => new RegExp(`f(data)?sync\\(${fd}\\)`).test(line));
    expect(syncs(tempOpen, renamed, tempFd!)).toBe(true);
    const dirOpen = lines.findIndex((line, index) => index > renamed && line.includes(`openat(AT_FDCWD, "${dir}", `) && /= \d+$/.test(line));
    expect(dirOpen).toBeGreaterThan(renamed);
    expect(syncs(dirOpen, lines.length, /= (\d+)$/.exec(lines[dirOpen]!)![1]!)).toBe(true);
  });

  test("a full disk leaves the old config and its key in place, and no temporary file", async () => {
    const path = join(dir, "full.json");
    expect((await runAgent(["key", "generate", "--config", path])).exitCode).toBe(0);
    const before = await readFile(path, "utf8");
    const run = await runAgent(
      ["-c", `trap '' XFSZ; ulimit -f 0; exec "$0" "$@"`, process.execPath, "agent/src/cli.ts", "key", "generate", "--force", "--config", path],
      {
        command: ["/bin/sh"],
      },
    );
    expect(run.stderr).toStartWith(`dbvault-agent: cannot write the config file ${path} (EFBIG)`);
    expect(run.exitCode).toBe(4);
    expect(await readFile(path, "utf8")).toBe(before);
    expect((await readdir(dir)).filter((name) => name.endsWith(".tmp"))).toEqual([]);
  });
});
