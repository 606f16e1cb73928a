// The MongoDB-speaking servers the dump and restore benches run against, each as its own process
// on a loopback port: the project's test server (testkit/mongo-server) and FerretDB 1.24.2 with
// its SQLite backend, built outside the repo (by scripts/ensure-ferretdb.sh where that exists, or
// by hand: `go build` of github.com/FerretDB/FerretDB v1.24.2 ./cmd/ferretdb into
// ~/.cache/dbvault/ferretdb/v1.24.2/bin). A missing FerretDB is skipped with that hint.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { homedir, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { MongoClient } from "mongodb";

const root = resolve(import.meta.dir, "../..");
const cache = process.env.DBVAULT_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "dbvault");
export const FERRETDB_BINARY = join(cache, "ferretdb", "v1.24.2", "bin", "ferretdb");

export type ServerKind = "test-server" | "ferretdb";

export interface DatabaseServer {
  kind: ServerKind;
  /** mongodb://127.0.0.1:PORT/ (no database). */
  uri: string;
  pid: number;
  stop(): Promise<void>;
  /** Stops it as a crash would (SIGKILL): the test server keeps nothing (memory only). */
  kill(): Promise<void>;
}

/** The test server as the primary of a one-member replica set, on a chosen port (the same one again after a kill). */
export type ReplicaSetOptions = { replSet: string; oplogSizeMB?: number; port?: number };

async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolvePort(port));
    });
  });
}

/** Why a server cannot run here, or undefined when it can. */
export function findMissingServer(kind: ServerKind): string | undefined {
  if (kind === "ferretdb" && !existsSync(FERRETDB_BINARY)) {
    return `FerretDB not built at ${FERRETDB_BINARY} (go build github.com/FerretDB/FerretDB@v1.24.2 ./cmd/ferretdb)`;
  }
  return undefined;
}

/** Starts a server and waits until it answers ping; throws when it does not start. */
export async function startDatabaseServer(kind: ServerKind, replicaSet?: ReplicaSetOptions): Promise<DatabaseServer> {
  const port = replicaSet?.port ?? (await freePort());
  let child: ReturnType<typeof Bun.spawn>;
  let dataDir: string | undefined;
  if (kind === "test-server") {
    const replication = replicaSet
      ? ["--replSet", replicaSet.replSet, ...(replicaSet.oplogSizeMB ? ["--oplogSizeMB", String(replicaSet.oplogSizeMB)] : [])]
      : [];
    // BENCH_MONGO_FLAGS passes Bun flags to the test server, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
    const flags = (process.env.BENCH_MONGO_FLAGS ?? "").split(" ").filter(Boolean);
    child = Bun.spawn([process.execPath, ...flags, join(root, "testkit/mongo-server/main.ts"), "--port", String(port), ...replication], {
      stdout: "ignore",
      stderr: "inherit",
    });
  } else {
    dataDir = mkdtempSync(join(tmpdir(), "dbvault-bench-ferretdb-"));
    child = Bun.spawn(
      [
        FERRETDB_BINARY,
        "--handler=sqlite",
        `--sqlite-url=file:${dataDir}/`,
        `--state-dir=${dataDir}`,
        `--listen-addr=127.0.0.1:${port}`,
        "--debug-addr=-",
        "--telemetry=disable",
        "--log-level=error",
      ],
      { stdout: "ignore", stderr: "ignore" },
    );
  }
  const uri = `mongodb://127.0.0.1:${port}/`;
  const deadline = performance.now() + 60_000;
  for (;;) {
    const client = new MongoClient(uri, { serverSelectionTimeoutMS: 1000 });
    try {
      await client.connect();
      await client.db("admin").command({ ping: 1 });
      break;
    } catch (error) {
      if (performance.now() > deadline || child.exitCode !== null) {
        child.kill();
        throw new Error(`${kind} did not start: ${(error as Error).message}`);
      }
      await Bun.sleep(200);
    } finally {
      await client.close().catch(() => undefined);
    }
  }
  return {
    kind,
    uri,
    pid: child.pid,
    async stop() {
      child.kill("SIGTERM");
      await child.exited;
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
    async kill() {
      child.kill("SIGKILL");
      await child.exited;
      if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
