// Continuous oplog shipping against the replica-set test server under writes: the slices of a
// chain are contiguous and hold each of the database's entries exactly once, through a
// step-down, a SIGKILL of the shipping process and its restart; a rollover while it was stopped
// starts a new chain that reports the gap; and the real mongorestore replays a decrypted slice.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, readdir, rm, writeFile, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { MongoClient } from "mongodb";
import { startMongoTestServer, type MongoTestServer } from "../../../../testkit/mongo-server/server.ts";
import { startReplicaSetWithClient, stopWithClient, runTool } from "../../../../testkit/mongo-server/replica-set/test-support.ts";
import { waitUntil } from "../../../../testkit/wait-until.ts";
import { findMongoTools } from "../../../../testkit/mongo-tools.ts";
import { runAgent } from "../../../test/support/run-agent.ts";
import { encodeMasterKey } from "../../archive/index.ts";
import { createLagMeter } from "./lag-meter.ts";
import { checkChains, expectedPositions, readShippedSlices, SINK_DOWN_FILE, shipToDirectory } from "./test-support/slice-sink.ts";

const KEY = Buffer.alloc(32, 7);
let rs: { server: MongoTestServer; client: MongoClient };
let dir: string;
beforeAll(async () => {
  rs = await startReplicaSetWithClient();
  dir = await mkdtemp(join(tmpdir(), "dbvault-ship-"));
});
afterAll(async () => {
  await stopWithClient(rs);
  await rm(dir, { recursive: true, force: true });
});

/** Runs a write as an application would through an election: again until the new primary takes it. */
async function retrying(write: () => Promise<unknown>): Promise<void> {
  for (;;) {
    try {
      await write();
      return;
    } catch (error) {
      const code = (error as { code?: number }).code;
      if (code === 11000) return; // an earlier try was applied after all
      if (code !== 10107 && code !== 11602 && code !== 189 && !(error as Error).message.includes("primary")) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

/** Writes to `shop` (and, to be left out, `other`) until stopped; a transaction every 20 rounds. */
function startWrites(client: MongoClient, prefix: string) {
  let running = true;
  let rounds = 0;
  const orders = client.db("shop").collection("orders");
  const done = (async () => {
    while (running) {
      const n = rounds;
      const _id = `${prefix}-${n}` as never;
      await retrying(() => orders.insertOne({ _id, n } as never));
      await retrying(() =>
        client
          .db("other")
          .collection("things")
          .insertOne({ _id } as never),
      );
      if (n % 3 === 0) await retrying(() => orders.updateOne({ _id }, { $set: { tripled: true } }));
      if (n % 5 === 0) await retrying(() => orders.deleteOne({ _id }));
      if (n % 20 === 0) {
        await retrying(async () => {
          const session = client.startSession();
          try {
            await session.withTransaction(async () => {
              await client
                .db("shop")
                .collection("lines")
                .insertOne({ _id: `${prefix}-${n}-a` } as never, { session });
              await client
                .db("shop")
                .collection("lines")
                .insertOne({ _id: `${prefix}-${n}-b` } as never, { session });
            });
          } finally {
            await session.endSession();
          }
        });
      }
      rounds++;
    }
  })();
  return {
    rounds: () => rounds,
    async stop() {
      running = false;
      await done;
    },
  };
}

/** Stops the writes, then waits until their last insert is in a shipped slice (an idle database's covered time still moves on); answers the rounds written. */
async function stopWritesUntilShipped(writes: ReturnType<typeof startWrites>, server: string, prefix: string): Promise<number> {
  await writes.stop();
  const rounds = writes.rounds();
  await waitUntil(
    async () => {
      const slices = await readShippedSlices(server, KEY);
      return slices.some((s) => s.entries.some((e) => (e.o as { _id?: unknown })?._id === `${prefix}-${rounds - 1}`));
    },
    { message: "the last write shipped" },
  );
  return rounds;
}

describe("shipping one database's oplog", () => {
  test("slices under writes are contiguous, hold only the database's entries, each once, through a step-down", async () => {
    const out = join(dir, "in-process");
    const { sealed, stop } = shipToDirectory(rs.client, "shop", KEY, out);
    const writes = startWrites(rs.client, "a");
    await waitUntil(() => sealed.length >= 3, { message: "three slices" });
    await rs.client
      .db("admin")
      .command({ replSetStepDown: 60 })
      .catch(() => undefined);
    const afterStepDown = sealed.length;
    await waitUntil(() => sealed.length >= afterStepDown + 3 && writes.rounds() > 60, { message: "slices after the step-down" });
    const rounds = await stopWritesUntilShipped(writes, join(out, "server"), "a");
    await stop();

    const slices = await readShippedSlices(join(out, "server"), KEY);
    expect(new Set(slices.map((s) => s.description.chain)).size).toBe(1);
    expect(slices[0]!.description.reason).toBe("started");
    const held = checkChains(slices, "shop");
    expect(new Set(held).size).toBe(held.length);
    const expected = await expectedPositions(rs.client, "shop", slices[0]!.description.start, slices.at(-1)!.description.end);
    expect(held).toEqual(expected);
    expect(held.length).toBeGreaterThan(rounds);
    const namespaces = new Set(slices.flatMap((s) => s.entries.map((e) => e.ns as string)));
    expect([...namespaces].every((ns) => ns.startsWith("shop.") || ns === "admin.$cmd")).toBe(true);
    expect(namespaces.has("admin.$cmd")).toBe(true); // the transactions, as applyOps
  }, 60_000);

  test("a SIGKILL of the shipping process while the server is down, and its restart, lose no entry and ship none twice", async () => {
    const out = join(dir, "killed");
    const args = [rs.server.uri, "shop", out, KEY.toString("hex")];
    const script = join(import.meta.dir, "test-support", "ship-process.ts");
    const spawn = () => Bun.spawn([process.execPath, script, ...args], { stdout: "pipe", stderr: "inherit" });
    const countSealed = (child: ReturnType<typeof spawn>) => {
      let count = 0;
      (async () => {
        for await (const chunk of child.stdout) count += new TextDecoder().decode(chunk).split("sealed").length - 1;
      })();
      return () => count;
    };
    const writes = startWrites(rs.client, "k");
    const first = spawn();
    const firstSealed = countSealed(first);
    await waitUntil(() => firstSealed() >= 4, { message: "slices before the kill" });
    // The server goes down: slices sealed now wait in the spool, and the kill finds them there.
    await mkdir(join(out, "server"), { recursive: true });
    await writeFile(join(out, "server", SINK_DOWN_FILE), "");
    const sealedBeforeOutage = firstSealed();
    await waitUntil(() => firstSealed() >= sealedBeforeOutage + 3, { message: "slices sealed while the server is down" });
    first.kill("SIGKILL");
    await first.exited;
    await rm(join(out, "server", SINK_DOWN_FILE));
    const roundsAtKill = writes.rounds();
    await waitUntil(() => writes.rounds() > roundsAtKill + 30, { message: "writes while the agent is down" });
    const second = spawn();
    const secondSealed = countSealed(second);
    await waitUntil(() => secondSealed() >= 4, { message: "slices after the restart" });
    await stopWritesUntilShipped(writes, join(out, "server"), "k");
    second.kill("SIGTERM");
    await second.exited;

    const slices = await readShippedSlices(join(out, "server"), KEY);
    expect(new Set(slices.map((s) => s.description.chain)).size).toBe(1);
    const held = checkChains(slices, "shop");
    expect(new Set(held).size).toBe(held.length);
    expect(held).toEqual(await expectedPositions(rs.client, "shop", slices[0]!.description.start, slices.at(-1)!.description.end));
  }, 60_000);
});

describe("the source lost", () => {
  test("what was read is sealed and shipped when the server goes away, not held for the slice's full age", async () => {
    const lost = await startMongoTestServer({ replicaSet: { name: "lost" } });
    const { MongoClient } = await import("mongodb");
    const client = await new MongoClient(lost.uri, { serverSelectionTimeoutMS: 2000 }).connect();
    const out = join(dir, "lost");
    let kept = 0;
    const lag = { ...createLagMeter(), read: (_: unknown, isKept: boolean) => void (isKept && kept++) };
    // A slice's age limit far past the test's wait: only the loss of the server can seal it.
    const { stop } = shipToDirectory(client, "shop", KEY, out, { maxAgeMs: 600_000, idleSealMs: 600_000, lag });
    try {
      await waitUntil(async () => (await readdir(join(out, "state")).catch(() => [] as string[])).includes("state.json"), { message: "the chain started" });
      for (let n = 0; n < 20; n++)
        await client
          .db("shop")
          .collection("orders")
          .insertOne({ _id: n } as never);
      // The collection's implicit create, then the 20 inserts.
      await waitUntil(() => kept >= 21, { message: "the 20 inserts read by the shipper" });
      await lost.stop();
      const slices = await waitUntil(
        async () => {
          const shipped = await readShippedSlices(join(out, "server"), KEY);
          // The chain's first slice goes at its first entry; the rest only once the server is lost.
          return shipped.reduce((sum, s) => sum + s.entries.filter((e) => e.op === "i").length, 0) >= 20 ? shipped : undefined;
        },
        // Far under the slice's 600 s age; generous for the driver to notice the loss on a loaded machine.
        { message: "the entries read before the loss shipped", timeout: 60_000 },
      );
      const ids = slices.flatMap((s) => s.entries.filter((e) => e.op === "i").map((e) => (e.o as { _id: number })._id));
      expect(ids).toEqual(Array.from({ length: 20 }, (_, n) => n));
    } finally {
      await stop();
      await client.close().catch(() => undefined);
    }
  }, 120_000);
});

describe("rollover", () => {
  test("an oplog that rolled over while shipping was stopped starts a new chain reporting the gap", async () => {
    const small = await startMongoTestServer({ replicaSet: { name: "small", oplogSizeBytes: 64 * 1024 } });
    const { MongoClient } = await import("mongodb");
    const client = await new MongoClient(small.uri, { serverSelectionTimeoutMS: 5000 }).connect();
    try {
      const out = join(dir, "rollover");
      const run = async (until: () => boolean | Promise<boolean>) => {
        const { sealed, stop } = shipToDirectory(client, "shop", KEY, out, { maxAgeMs: 100, idleSealMs: 200 });
        // Written while shipping runs (its chain starts after the newest entry when it starts).
        await waitUntil(
          async () => {
            await client
              .db("shop")
              .collection("c")
              .insertOne({ step: sealed.length } as never);
            return until();
          },
          { message: "shipping", interval: 200 },
        );
        await stop();
      };
      await run(async () => (await readShippedSlices(join(out, "server"), KEY)).some((s) => s.entries.length > 0));
      const before = await readShippedSlices(join(out, "server"), KEY);
      const lostFrom = before.at(-1)!.description.end;
      // While stopped, far more than the 64 KiB oplog is written: the position is trimmed away.
      for (let n = 0; n < 400; n++)
        await client
          .db("shop")
          .collection("c")
          .insertOne({ filler: "x".repeat(500), n } as never);
      await run(async () => (await readShippedSlices(join(out, "server"), KEY)).some((s) => s.description.reason === "rollover"));
      const slices = await readShippedSlices(join(out, "server"), KEY);
      const rollover = slices.find((s) => s.description.reason === "rollover")!;
      expect(rollover.description.sequence).toBe(0);
      expect(rollover.description.chain).not.toBe(before[0]!.description.chain);
      expect(rollover.description.rolloverFrom).toEqual(lostFrom);
    } finally {
      await client.close();
      await small.stop();
    }
  }, 60_000);
});

const { tools, missing } = findMongoTools();

describe("a decrypted slice and the real mongorestore", () => {
  test.skipIf(!tools)(
    `dbvault-agent decrypt of each slice gives a file mongorestore --oplogReplay --oplogFile replays into an empty server${missing ? ` (skipped: ${missing})` : ""}`,
    async () => {
      const mongorestore = tools!.mongorestore;
      const out = join(dir, "replay");
      const { stop } = shipToDirectory(rs.client, "replay", KEY, out, { maxAgeMs: 100 });
      await waitUntil(async () => (await readShippedSlices(join(out, "server"), KEY)).length > 0 || undefined, { message: "the chain started" }).catch(
        () => undefined,
      );
      const orders = rs.client.db("replay").collection("orders");
      await orders.insertMany([
        { _id: 1, qty: 1 },
        { _id: 2, qty: 2 },
        { _id: 3, qty: 3 },
      ] as never[]);
      await orders.updateOne({ _id: 1 } as never, { $set: { qty: 10 } });
      await orders.deleteOne({ _id: 2 } as never);
      await waitUntil(async () => (await readShippedSlices(join(out, "server"), KEY)).reduce((n, s) => n + s.entries.length, 0) >= 5, {
        message: "the writes shipped",
      });
      await stop();
      const files = (await readdir(join(out, "server"))).filter((name) => name.endsWith(".enc.dbvault")).sort();
      const config = join(out, "agent.json");
      await writeFile(config, JSON.stringify({ version: 1, masterKey: encodeMasterKey(KEY), databases: [] }), { mode: 0o600 });
      const target = await startMongoTestServer({ replicaSet: { name: "target" } });
      try {
        const dumpDir = join(out, "dump");
        await mkdir(dumpDir, { recursive: true });
        // The chain's slices are named chain-sequence, so their names sort in chain order.
        for (const [index, name] of files.entries()) {
          const file = join(out, `slice-${index}.bson`);
          const decrypted = await runAgent(["decrypt", "--in", join(out, "server", name), "--out", file, "--config", config]);
          expect(decrypted.exitCode).toBe(0);
          expect(decrypted.stderr).toContain(`of oplog entries (BSON)`);
          expect(decrypted.stderr).toContain(`replay it with: mongorestore --oplogReplay --oplogFile=${file} DUMP_DIRECTORY`);
          const run = await runTool(mongorestore, [`--uri=${target.uri}`, "--oplogReplay", `--oplogFile=${file}`, dumpDir]);
          expect({ code: run.code, stderr: run.code === 0 ? "" : run.stderr }).toEqual({ code: 0, stderr: "" });
        }
        const { MongoClient } = await import("mongodb");
        const client = await new MongoClient(target.uri).connect();
        try {
          expect(await client.db("replay").collection("orders").find({}).sort({ _id: 1 }).toArray()).toEqual([
            { _id: 1, qty: 10 },
            { _id: 3, qty: 3 },
          ] as never[]);
        } finally {
          await client.close();
        }
      } finally {
        await target.stop();
      }
    },
    60_000,
  );
});
