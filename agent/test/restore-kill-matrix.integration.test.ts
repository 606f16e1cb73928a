// The kill matrix of the restore promise: the compiled agent (dist/dbvault-agent restore) is
// stopped at every named step of verify, stage and swap, and then either the agent or the MongoDB
// server is killed there. Afterwards every collection of the target must be wholly its old self
// or wholly the backup's, or else named as partial by the failed restore's message (when the
// agent lived to write one) and by the next restore, which must leave it wholly the backup's.
//
// The steps are reached through the agent's test hook DBVAULT_TEST_PAUSE_AT (src/dump/test-pause.ts):
// the agent stops itself (SIGSTOP) at the named point, so a kill lands on exactly that step on
// any machine; a timer or a byte count could not say which step it hit.
//
// Servers: FerretDB (its own process: SIGKILL, then started again on the same SQLite files), and
// the project's test server. The test server keeps its data in memory only, so a real SIGKILL
// would lose everything a durable server keeps; its crash is played by cutting every connection
// and closing its port at once (the agent gets no answer, as from a killed process), and its
// restart by a new server on the same port over the same state, as a durable server restarts.
// FerretDB renames nothing, so every collection takes the copy path there; on the test server the
// plain collections are renamed and the time-series one is copied (as before MongoDB 8.0).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { connect, createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Db, MongoClient } from "mongodb";
import { encodeMasterKey, generateMasterKey } from "../src/archive/index.ts";
import type { PausePoint } from "../src/dump/test-pause.ts";
import { findFerretDb, startFerretDb } from "../../testkit/ferretdb.ts";
import { findMongoTools } from "../../testkit/mongo-tools.ts";
import { type MongoTestServer, startMongoTestServer } from "../../testkit/mongo-server/index.ts";
import { waitUntil } from "../../testkit/wait-until.ts";
import { backUpToBuffer } from "./support/back-up.ts";
import { type CollectionSnapshot, snapshotDatabase } from "./support/database-snapshot.ts";
import { BINARY_PATH, ensureAgentBinary, runAgent } from "./support/run-agent.ts";

const masterKey = generateMasterKey();
const PAUSED = "dbvault-test-paused-at ";

/** A server the test can crash and bring back with its data. */
interface KillableServer {
  uri: string;
  crash(): Promise<void>;
  restart(): Promise<void>;
  stop(): Promise<void>;
}

async function startTestServer(): Promise<KillableServer> {
  let server: MongoTestServer = await startMongoTestServer();
  return {
    uri: server.uri,
    crash: () => server.stop(),
    async restart() {
      server = await startMongoTestServer({ port: server.port, state: server.state });
    },
    stop: () => server.stop(),
  };
}

// FerretDB is killed with SIGKILL, but the agent reaches it through a loopback relay in this
// process that cuts the agent's connections at the same moment. Without it, Bun 1.4 sometimes
// never reports the close of a socket whose peer process was killed (oven-sh/bun#31654 describes
// the bug), and the agent then waits forever on that socket; a runtime bug, not the restore's.
async function startKillableFerretDb(): Promise<KillableServer> {
  const server = await startFerretDb();
  const relay = await startRelay(server.port);
  return {
    uri: `mongodb://127.0.0.1:${relay.port}/`,
    async crash() {
      await relay.close();
      await server.kill();
    },
    async restart() {
      await server.restart();
      await relay.open();
    },
    async stop() {
      await relay.close();
      await server.stop();
    },
  };
}

/** Forwards a loopback port to `target`; close() cuts every connection and refuses new ones until open(). */
async function startRelay(target: number): Promise<{ port: number; open(): Promise<void>; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let listener: Server | undefined;
  let port = 0;
  const open = async () => {
    listener = createServer((socket) => {
      const upstream = connect(target, "127.0.0.1");
      for (const each of [socket, upstream]) {
        sockets.add(each);
        each.on("close", () => sockets.delete(each));
        each.on("error", () => undefined);
      }
      socket.pipe(upstream);
      upstream.pipe(socket);
      socket.on("close", () => upstream.destroy());
      upstream.on("close", () => socket.destroy());
    });
    await new Promise<void>((resolve) => listener!.listen(port, "127.0.0.1", resolve));
    port = (listener.address() as { port: number }).port;
  };
  await open();
  return {
    port,
    open,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => (listener ? listener.close(() => resolve()) : resolve()));
      listener = undefined;
    },
  };
}

/** Gathers a process's output as it comes, so a test can wait for a line before the process ends. */
function collectText(stream: ReadableStream<Uint8Array>): { text(): string; ended: Promise<void> } {
  let text = "";
  const decoder = new TextDecoder();
  const ended = (async () => {
    for await (const chunk of stream) text += decoder.decode(chunk, { stream: true });
  })();
  return { text: () => text, ended };
}

const rows = (n: number, tag: string) => Array.from({ length: n }, (_, i) => ({ _id: i, tag, text: `${tag}-${i}-${"x".repeat(40)}` }));

interface ServerCase {
  name: string;
  missing: string | null;
  start(): Promise<KillableServer>;
  /** Whether the backup holds a time-series collection (the test server's copy path) and a secondary index. */
  timeSeries: boolean;
  points: string[];
  /**
   * Points also run with mongorestore staging the data (the swap is the agent's either way). Not
   * on the test server, whose only copy is of time-series buckets, which it keeps none of for
   * mongorestore to write; on FerretDB without secondary indexes (mongorestore sends their `ns`,
   * which FerretDB refuses).
   */
  nativePoints: string[];
}

// Every step a restore passes; copy-batch#1 is after the first 1,000 of big's (or the buckets')
// documents, so the target is half filled.
const STAGE_POINTS: PausePoint[] = ["verified", "staging-created", "staging-inserted", "staged"];
const COPY_POINTS = ["copy-recorded", "copy-target-created", "copy-batch", "copy-done", "copy-cleared"];
const ferret = findFerretDb();
const tools = findMongoTools();
const SERVERS: ServerCase[] = [
  { name: "the test server", missing: null, start: startTestServer, timeSeries: true, points: [...STAGE_POINTS, "renamed", ...COPY_POINTS], nativePoints: [] },
  {
    name: "FerretDB",
    missing: ferret.missing,
    start: startKillableFerretDb,
    timeSeries: false,
    points: [...STAGE_POINTS, ...COPY_POINTS, "copy-recorded#2"],
    nativePoints: tools.missing === null ? ["copy-target-created", "copy-batch"] : [],
  },
];

for (const serverCase of SERVERS) {
  describe(`restore killed on ${serverCase.name}`, () => {
    let server: KillableServer;
    let dir: string;
    let client: MongoClient;
    let configPath: string;
    let nativeConfigPath: string;
    let backupPath: string;
    let backup: CollectionSnapshot[];
    let original: CollectionSnapshot[];
    const skip = serverCase.missing !== null;

    beforeAll(async () => {
      if (skip) return;
      await ensureAgentBinary();
      server = await serverCase.start();
      client = await new MongoClient(server.uri, { serverSelectionTimeoutMS: 10_000 }).connect();
      const source = client.db("source");
      // Names sorted as the swap takes them: big (copied in batches) first.
      await source.collection("big").insertMany(rows(1200, "new-big") as never[]);
      if (serverCase.timeSeries) await source.collection("big").createIndex({ tag: 1 });
      await source.collection("few").insertMany(rows(3, "new-few") as never[]);
      await source.collection("fresh").insertMany(rows(2, "new-fresh") as never[]);
      if (serverCase.timeSeries) {
        // The test server keeps no buckets of its own; they are written in their real shape, as a
        // 7.0 server's dump carries them (restore-faults.integration.test.ts does the same).
        await source.createCollection("metrics", { timeseries: { timeField: "at" } });
        await source
          .collection("system.buckets.metrics")
          .insertMany(
            Array.from({ length: 1200 }, (_, i) => ({
              control: { version: 1, min: { at: new Date(i * 60_000) }, max: { at: new Date(i * 60_000) } },
              data: { at: { "0": new Date(i * 60_000) } },
            })),
          );
      }
      backup = await snapshotDatabase(source);
      const { file } = await backUpToBuffer({ uri: `${server.uri}source`, masterKey, tools: { mode: "builtin" } });
      dir = await mkdtemp(join(tmpdir(), "dbvault-kill-matrix-"));
      backupPath = join(dir, "backup.enc.dbvault");
      await writeFile(backupPath, file);
      configPath = join(dir, "agent.json");
      // A short server selection: a restore that finds MongoDB gone fails in half a second.
      const uri = `${server.uri}live?serverSelectionTimeoutMS=500`;
      const config = { version: 1, masterKey: encodeMasterKey(masterKey), databases: [{ name: "live", uri }], tools: { mode: "builtin" } };
      await writeFile(configPath, JSON.stringify(config), { mode: 0o600 });
      nativeConfigPath = join(dir, "agent-native.json");
      if (tools.missing === null)
        await writeFile(nativeConfigPath, JSON.stringify({ ...config, tools: { mode: "native", mongorestore: tools.tools.mongorestore } }), { mode: 0o600 });
    }, 60_000);
    afterAll(async () => {
      if (skip) return;
      await client.close();
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    });

    /** The target before each case: old data in big, few (and metrics), an unrelated collection; fresh is new. */
    async function resetTarget(): Promise<void> {
      const live = client.db("live");
      await live.dropDatabase();
      await live.collection("big").insertMany(rows(2, "old-big") as never[]);
      await live.collection("few").insertMany(rows(1, "old-few") as never[]);
      if (serverCase.timeSeries) {
        await live.createCollection("metrics", { timeseries: { timeField: "at" } });
        await live.collection("system.buckets.metrics").insertOne({ control: { version: 1 }, data: { at: { "0": new Date(0) } } } as never);
      }
      await live.collection("unrelated").insertOne({ _id: "mine" } as never);
      original = await snapshotDatabase(live);
    }

    /**
     * Each collection of the target: "old", "new", "same" (old and new alike: a time-series
     * collection's own entry, whose data is in its buckets) or "partial"; staging and the copy
     * journal left out.
     */
    async function classify(db: Db): Promise<Map<string, "old" | "new" | "same" | "partial">> {
      const now = (await snapshotDatabase(db)).filter((entry) => !entry.name.includes(".dbvault-restore-") && entry.name !== "dbvault_restore_copies");
      const names = new Set([...now, ...original, ...backup].map((entry) => entry.name));
      const states = new Map<string, "old" | "new" | "same" | "partial">();
      for (const name of names) {
        const current = JSON.stringify(now.find((entry) => entry.name === name) ?? null);
        const before = JSON.stringify(original.find((entry) => entry.name === name) ?? null);
        const after = JSON.stringify(backup.find((entry) => entry.name === name) ?? null);
        states.set(name, current === before ? (before === after ? "same" : "old") : current === after ? "new" : "partial");
      }
      return states;
    }

    /** The targets ("live.name", a time-series collection by its own name) in `state`. */
    function namesIn(states: Map<string, string>, state: string): string[] {
      return [...new Set([...states].filter(([, each]) => each === state).map(([name]) => `live.${name.replace(/^system\.buckets\./, "")}`))];
    }

    /** Starts the restore and resolves once the agent stopped itself at `point`. */
    async function restoreUntil(point: string, config = configPath) {
      const child = Bun.spawn([BINARY_PATH, "restore", "--db", "live", "--in", backupPath, "--config", config], {
        env: { PATH: process.env.PATH, HOME: "/nonexistent-home", DBVAULT_TEST_PAUSE_AT: point } as Record<string, string>,
        stdout: "pipe",
        stderr: "pipe",
      });
      const stderr = collectText(child.stderr);
      const stdout = new Response(child.stdout).text();
      let exited = false;
      void child.exited.then(() => (exited = true));
      await waitUntil(() => stderr.text().includes(`${PAUSED}${point.split("#")[0]}`) || exited, { timeout: 30_000, message: `the agent to reach ${point}` });
      if (!stderr.text().includes(PAUSED)) throw new Error(`the agent never reached ${point}: ${stderr.text()}`);
      // The line is written just before the agent stops itself: a SIGCONT sent in between would be lost.
      await waitUntil(async () => (await readFile(`/proc/${child.pid}/stat`, "utf8")).split(") ")[1]?.startsWith("T"), { message: "the agent to stop" });
      return {
        child,
        peek: () => stderr.text(),
        output: async () => {
          await stderr.ended;
          return `${await stdout}${stderr.text()}`;
        },
      };
    }

    test.skipIf(skip)(
      `dbvault-agent run, at its start, names and finishes a copy a killed restore left half done${skip ? ` [skipped: ${serverCase.missing}]` : ""}`,
      async () => {
        await resetTarget();
        const run = await restoreUntil("copy-batch");
        run.child.kill("SIGKILL");
        await run.child.exited;
        const partial = namesIn(await classify(client.db("live")), "partial");
        expect(partial).toHaveLength(1);
        // A set-up config whose DBVault server is unreachable: the start-up clean-up runs anyway.
        const daemonConfig = join(dir, "daemon.json");
        const config = JSON.parse(await readFile(configPath, "utf8"));
        const settings = { url: "http://127.0.0.1:9", apiKey: "dbv_unused", agentId: "agent-unused", agentToken: "unused" };
        await writeFile(daemonConfig, JSON.stringify({ ...config, server: settings }), { mode: 0o600 });
        const daemon = Bun.spawn([BINARY_PATH, "run", "--config", daemonConfig], {
          env: { PATH: process.env.PATH, HOME: "/nonexistent-home" } as Record<string, string>,
          stdout: "ignore",
          stderr: "pipe",
        });
        const log = collectText(daemon.stderr);
        try {
          await waitUntil(() => log.text().includes(`${partial[0]} now holds all of that backup's documents`), {
            timeout: 30_000,
            message: `the agent's start to finish ${partial[0]}`,
          });
        } finally {
          daemon.kill("SIGTERM");
          await daemon.exited;
          await log.ended;
        }
        expect(log.text()).toContain(`${partial[0]} may be partial`);
        const states = await classify(client.db("live"));
        expect(namesIn(states, "partial")).toEqual([]);
        expect(namesIn(states, "new")).toContain(partial[0]!);
      },
      60_000,
    );

    const cases = [
      ...serverCase.points.map((point) => ({ point, engine: "builtin" })),
      ...serverCase.nativePoints.map((point) => ({ point, engine: "native" })),
    ];
    for (const { point, engine } of cases) {
      for (const victim of ["agent", "server"] as const) {
        const name = `${victim} killed at ${point}${engine === "native" ? " (mongorestore staging)" : ""}`;
        test.skipIf(skip)(
          `${name}${skip ? ` [skipped: ${serverCase.missing}]` : ""}`,
          async () => {
            await resetTarget();
            const run = await restoreUntil(point, engine === "native" ? nativeConfigPath : configPath);
            // The failed restore's own output, when it wrote one.
            let message: string | undefined;
            if (victim === "agent") {
              run.child.kill("SIGKILL");
              await run.child.exited;
            } else {
              await server.crash();
              try {
                run.child.kill("SIGCONT");
                const code = await Promise.race([
                  run.child.exited,
                  waitUntil(() => false, { timeout: 10_000, message: "the agent to exit" }).catch(() => "hung"),
                ]);
                if (code === "hung") {
                  // Bun 1.4 now and then never reports that a connection's peer went away
                  // (oven-sh/bun#31654), and the driver then waits on it forever: a runtime bug the
                  // restore cannot see. The agent is killed instead; the data checks below still hold.
                  console.warn(`the agent hung after MongoDB went away at ${point}; killing it: ${run.peek().slice(-300)}`);
                  run.child.kill("SIGKILL");
                  await run.child.exited;
                } else {
                  expect(code).not.toBe(0);
                  message = await run.output();
                }
              } finally {
                await server.restart();
              }
            }
            const states = await classify(client.db("live"));
            expect(states.get("unrelated")).toBe("old");
            const partial = namesIn(states, "partial");
            if (message !== undefined) {
              for (const name of partial) expect(message).toContain(`${name} partly copied`);
              if (message.includes("nothing was changed")) expect([...partial, ...namesIn(states, "new")]).toEqual([]);
              for (const name of namesIn(states, "new")) expect(message).toContain(name);
            }

            const next = await runAgent(["restore", "--db", "live", "--in", backupPath, "--config", configPath], { command: [BINARY_PATH] });
            expect(next.exitCode).toBe(0);
            for (const name of partial) expect(next.stderr).toContain(`${name} may be partial`);
            const after = await classify(client.db("live"));
            for (const [name, state] of after) expect(`${name}: ${state}`).toBe(`${name}: ${name === "unrelated" ? "old" : state === "same" ? "same" : "new"}`);
            const left = (await client.db("live").listCollections({}, { nameOnly: true }).toArray()).map((entry) => entry.name);
            expect(left.filter((name) => name.includes(".dbvault-restore-") || name === "dbvault_restore_copies")).toEqual([]);
          },
          30_000,
        );
      }
    }
  });
}
