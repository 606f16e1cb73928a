// Runs the agent as a separate process (from source or the compiled binary), the way users do,
// and captures stdout, stderr and the exit code.
import { existsSync, statSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { join, resolve } from "node:path";

export const REPO_ROOT = resolve(import.meta.dir, "../../..");
export const SOURCE_COMMAND = [process.execPath, resolve(REPO_ROOT, "agent/src/cli.ts")];
export const BINARY_PATH = resolve(REPO_ROOT, "dist/dbvault-agent");

export interface AgentRun {
  stdout: string;
  stdoutBytes: Buffer;
  stderr: string;
  exitCode: number;
}

export interface RunOptions {
  command?: string[];
  env?: Record<string, string | undefined>;
  stdin?: Uint8Array;
  cwd?: string;
}

/** Runs `dbvault-agent ARGS`; stdin is empty unless given. */
export async function runAgent(args: string[], options: RunOptions = {}): Promise<AgentRun> {
  const child = Bun.spawn([...(options.command ?? SOURCE_COMMAND), ...args], {
    cwd: options.cwd ?? REPO_ROOT,
    env: { PATH: process.env.PATH, HOME: "/nonexistent-home", ...options.env } as Record<string, string>,
    stdin: options.stdin ? new Blob([options.stdin as Uint8Array<ArrayBuffer> | string]) : "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdoutBytes, stderr, exitCode] = await Promise.all([
    new Response(child.stdout).arrayBuffer().then((b) => Buffer.from(b)),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { stdout: stdoutBytes.toString("utf8"), stdoutBytes, stderr, exitCode };
}

/** Builds dist/dbvault-agent when it is missing or older than a source file (`bun run build:agent` usually ran first); throws when the build fails. */
export async function ensureAgentBinary(): Promise<void> {
  const stale = !existsSync(BINARY_PATH) || statSync(BINARY_PATH).mtimeMs < (await newestSourceTime(join(REPO_ROOT, "agent/src")));
  if (!stale) return;
  const build = Bun.spawnSync([process.execPath, join(REPO_ROOT, "scripts/build-agent.ts")], { stdout: "pipe", stderr: "pipe" });
  if (build.exitCode !== 0) throw new Error(`build-agent failed: ${build.stderr.toString()}`);
}

async function newestSourceTime(folder: string): Promise<number> {
  let newest = 0;
  for (const entry of await readdir(folder, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith(".ts")) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}
