// FerretDB (a MongoDB wire-compatible database) as a test target, built by
// scripts/ensure-ferretdb.sh into a cache outside the repo. Each start runs its own process on a
// free loopback port with the SQLite handler in a private temporary directory (no other server
// needed), telemetry off, no debug HTTP listener, and removes everything when stopped.
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MongoClient } from "mongodb";
import { findBuiltPrograms } from "./built-programs";
import { findFreePort } from "./server-process";
import { stopChild } from "./stop-child";
import { waitUntil } from "./wait-until";

export const FERRETDB_VERSION = "v1.24.2";

export type FerretDbServer = { uri: string; port: number; stop(): Promise<void> };

/** The ferretdb binary, or why it is missing (to name in a skipped test). */
export function findFerretDb(): { path: string; missing: null } | { path: null; missing: string } {
  const found = findBuiltPrograms("ferretdb", FERRETDB_VERSION, ["ferretdb"], `FerretDB ${FERRETDB_VERSION}`);
  return found.missing === null ? { path: found.paths.ferretdb, missing: null } : { path: null, missing: found.missing };
}

/** Whether something answers MongoDB's ping at `uri`. */
async function answersPing(uri: string): Promise<boolean> {
  const client = new MongoClient(uri, { serverSelectionTimeoutMS: 500, connectTimeoutMS: 500 });
  try {
    await client.db("admin").command({ ping: 1 });
    return true;
  } catch {
    return false;
  } finally {
    await client.close().catch(() => undefined);
  }
}

/**
 * Starts FerretDB and resolves once it answers; throws with its log when it cannot start (a port
 * taken between choosing and binding it is retried on another).
 */
export async function startFerretDb(): Promise<FerretDbServer & { kill(): Promise<void>; restart(): Promise<void> }> {
  const { path, missing } = findFerretDb();
  if (missing !== null) throw new Error(missing);
  const directory = await mkdtemp(join(tmpdir(), "dbvault-ferretdb-"));
  let lastLog = "";
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = findFreePort();
    let running = await launch(path, directory, port);
    if (running.ready) {
      return {
        uri: running.uri,
        port,
        // A crash: SIGKILL, no shutdown. What SQLite committed survives for restart().
        async kill() {
          running.child.kill("SIGKILL");
          await running.exited;
        },
        /** Starts it again on the same port and data, as after a crash; throws when it cannot. */
        async restart() {
          running = await launch(path, directory, port);
          if (!running.ready) throw new Error(`FerretDB ${FERRETDB_VERSION} did not restart:\n${running.log().slice(-2000)}`);
        },
        async stop() {
          await stopChild(running.child, running.exited);
          await rm(directory, { recursive: true, force: true });
        },
      };
    }
    lastLog = running.log();
  }
  await rm(directory, { recursive: true, force: true });
  throw new Error(`FerretDB ${FERRETDB_VERSION} did not start:\n${lastLog.slice(-2000)}`);
}

/** Runs FerretDB on `port` over `directory` and waits until it answers or exits (then `ready` is false). */
async function launch(path: string, directory: string, port: number) {
  const child = spawn(
    path,
    [
      "--handler=sqlite",
      `--sqlite-url=file:${directory}/`,
      `--state-dir=${directory}`,
      `--listen-addr=127.0.0.1:${port}`,
      "--debug-addr=-", // its default, 127.0.0.1:8088, is one fixed port shared by every instance
      "--telemetry=disable",
      "--log-level=warn",
      "--log-format=text",
    ],
    { stdio: ["ignore", "ignore", "pipe"], env: { PATH: process.env.PATH ?? "", DO_NOT_TRACK: "1" } },
  );
  const output: Buffer[] = [];
  child.stderr!.on("data", (chunk: Buffer) => output.push(chunk));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  let gone = false;
  void exited.then(() => (gone = true));
  const uri = `mongodb://127.0.0.1:${port}/`;
  const ready =
    (await waitUntil(async () => gone || (await answersPing(uri)), { timeout: 30_000, message: `FerretDB on port ${port}` }).catch(() => false)) === true &&
    !gone;
  if (ready) {
    // Its log mattered only for a failed start; from now on it is drained and dropped.
    child.stderr!.removeAllListeners("data");
    child.stderr!.resume();
  } else {
    if (!gone) child.kill("SIGKILL");
    await exited;
  }
  return { child, exited, uri, ready, log: () => Buffer.concat(output).toString("utf8") };
}
