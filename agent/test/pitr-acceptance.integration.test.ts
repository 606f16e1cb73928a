// The acceptance test of point-in-time recovery (issue 25 §5): a recorded history replayed to every
// moment. A seeded random workload (support/pitr-workload.ts; the seed is printed on failure,
// PITR_SEED=N plays it again) runs against the replica-set test server while the compiled agent
// (`dbvault-agent run`) ships its oplog to the DBVault server; the test records the database's
// whole contents (every collection's options, document and index) and the oplog position at 20
// random moments, over four phases: shipping, the agent SIGKILLed mid-shipping (writes go on), the
// agent restarted, and after a replSetStepDown mid-tail. The chain must come out whole (one chain,
// no gap, every entry once): the agent resumes from its spool, so moments during the outage restore
// exactly rather than as a gap. Every moment is restored with the offline CLI (`restore --in BASE
// --oplog DIR --until t,i --to-db`, with only the key, from the base and the slices' zip the user
// downloads through the API); SERVER_RESTORES of them (one per phase and the last) also
// through the running agent (POST /api/restores/point-in-time into a fresh database), as each is a
// full restore job of the daemon (~2 s here) and all 20 would add half a minute to a file of about
// three. Each must equal its recording. Then the oplog rolls over while the agent is stopped: the
// gap is recorded and mailed, a new chain and its base backup start, a moment inside the gap is
// refused naming it and moments after it restore exactly; a slice bit-flipped in the server's
// storage fails the agent's restore naming it, the target untouched; and moments before the oldest
// base or after the newest slice are a 422 naming the covered ranges.
//
// The larger transactions are partialTxn chains (a small maxTransactionEntryBytes). The pipeline
// updates are `$replaceWith: {$literal}`: the test server evaluates no other aggregation
// expressions. Covered elsewhere, exactly, and not repeated here: a slice missing, truncated,
// bit-flipped, of another database or sealed with another key, refused naming it with the target
// untouched (agent/src/oplog/chain/point-in-time-restore.integration.test.ts, on slices the real
// shipper shipped; agent/test/pitr-restore-cli.integration.test.ts, a missing slice through the
// CLI; agent/src/daemon/jobs/point-in-time-restore-job.integration.test.ts, a truncated download in
// the daemon's job).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { MongoClient } from "mongodb";
import { compareOplogTimes, type OplogTime, oplogTimeFromBigInt } from "../../protocol/oplog-position.ts";
import { startTestServer, type TestServer } from "../../server/test/harness.ts";
import { startReplicaSetWithClient, stopWithClient } from "../../testkit/mongo-server/replica-set/test-support.ts";
import type { MongoTestServer } from "../../testkit/mongo-server/server.ts";
import { buildReleasePublicKey } from "../../testkit/signed-agent-release.ts";
import { waitUntil } from "../../testkit/wait-until.ts";
import { snapshotDatabase } from "../src/oplog/chain/test-support/recorded-history.ts";
import { readNewestOplogTimestamp, toOplogTimestamp } from "../src/oplog/read-oplog.ts";
import { checkChains, expectedPositions, openSlice, sortSlices } from "../src/oplog/shipping/test-support/slice-sink.ts";
import { ensureFreshBinary, type RunningAgent } from "./support/end-to-end.ts";
import { waitForBackupEnd } from "./support/end-to-end-world.ts";
import { setUpShippingAgent } from "./support/pitr-agent.ts";
import { type DdlKind, RandomWorkload } from "./support/pitr-workload.ts";
import { BINARY_PATH, runAgent } from "./support/run-agent.ts";

const SEED = Number(process.env.PITR_SEED ?? Math.floor(Math.random() * 2 ** 31));
// Small enough that the test can roll it over in a second, large enough for the whole history.
const OPLOG_SIZE_BYTES = 8 * 1024 * 1024;
// As mongod splits a transaction past 16 MiB: here the larger of the workload's are partialTxn chains.
const TRANSACTION_ENTRY_BYTES = 600;
/** Moments restored through the running agent too (each a full restore job of the daemon). */
const SERVER_RESTORES = 5;

/** A recorded moment: its position, the database's contents then, and how many workload steps came before it. */
type Moment = { label: string; phase: string; until: OplogTime; contents: string; steps: number };

let rs: { server: MongoTestServer; client: MongoClient };
let server: TestServer;
let baseUrl: string;
let dir: string;
const agents: RunningAgent[] = [];
let shipping: Awaited<ReturnType<typeof setUpShippingAgent>>;
let workload: RandomWorkload;
let offlineConfig: string;
const moments: Moment[] = [];
const steps: string[] = [];

beforeAll(async () => {
  await ensureFreshBinary();
  rs = await startReplicaSetWithClient({ oplogSizeBytes: OPLOG_SIZE_BYTES, maxTransactionEntryBytes: TRANSACTION_ENTRY_BYTES });
  server = await startTestServer({ RELEASE_PUBLIC_KEY: buildReleasePublicKey() });
  baseUrl = server.listen();
  dir = await mkdtemp(join(tmpdir(), "dbvault-pitr-acceptance-"));
  workload = new RandomWorkload(rs.client, "shop", SEED);
  await workload.seed();
  shipping = await setUpShippingAgent({ server, baseUrl, databases: [{ name: "shop", uri: `${rs.server.uri}shop` }], directory: dir, agents });
  // The user's own machine: the saved key and the database, no server.
  offlineConfig = join(dir, "offline.json");
  const { masterKey } = JSON.parse(await Bun.file(shipping.configPath).text());
  await writeFile(
    offlineConfig,
    JSON.stringify({ version: 1, masterKey, databases: [{ name: "shop", uri: `${rs.server.uri}shop` }], tools: { mode: "builtin" } }),
    {
      mode: 0o600,
    },
  );
}, 300_000);
afterAll(async () => {
  for (const agent of agents) await agent.stop("SIGKILL");
  await server?.close();
  if (rs) await stopWithClient(rs);
  await rm(dir, { recursive: true, force: true });
});

/** Runs `body`, naming the seed when it fails. */
async function withSeed(body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (error) {
    (error as Error).message = `seed ${SEED} (PITR_SEED=${SEED} plays it again): ${(error as Error).message}`;
    throw error;
  }
}

/** The restored `target` is the moment's recording, or the failure names the moment and the steps that led to it. */
async function expectRestored(target: string, moment: Moment, how: string) {
  const before = steps.slice(Math.max(0, moment.steps - 12), moment.steps).join("\n  ");
  expect(
    await snapshotDatabase(rs.client, target),
    `${how} to ${moment.label} (${position(moment.until)}) is not its recording; the steps before it:\n  ${before}\n`,
  ).toBe(moment.contents);
}

const position = (time: OplogTime) => `${time.t},${time.i}`;
const newestPosition = async () => toOplogTimestamp(await readNewestOplogTimestamp(rs.client));

async function record(label: string, phase: string): Promise<Moment> {
  const moment = { label, phase, until: await newestPosition(), contents: await snapshotDatabase(rs.client, "shop"), steps: steps.length };
  moments.push(moment);
  return moment;
}

/** True once a stored slice reaches `time` (so a restore to it is covered). */
async function shippedPast(time: OplogTime): Promise<boolean> {
  const slices = await shipping.storedSlices();
  return slices.some((slice) => compareOplogTimes(oplogTimeFromBigInt(slice.endTs), time) >= 0);
}

/**
 * Plays the workload: each operation may record one of the phase's `moments` or run one of its
 * `ddl` steps (at random, the rest at the end), then operations go on until `until` holds.
 */
async function runPhase(phase: string, plan: { moments: number; ddl?: DdlKind[]; until: () => Promise<boolean> | boolean; timeout?: number }) {
  let momentsLeft = plan.moments;
  const ddl = [...(plan.ddl ?? [])];
  let operations = 0;
  await waitUntil(
    async () => {
      steps.push(`${phase}: ${await workload.step()}`);
      operations++;
      const pending = momentsLeft + ddl.length;
      if (pending > 0 && (operations > 40 || workload.random() < 0.08)) {
        if (workload.random() * pending < momentsLeft) {
          momentsLeft--;
          await record(`${phase} #${plan.moments - momentsLeft}, after operation ${workload.counts.operations}`, phase);
        } else {
          steps.push(`${phase}: ${await workload.ddl(ddl.shift()!)}`);
        }
        return false;
      }
      return pending === 0 && (await plan.until());
    },
    { message: `the ${phase} phase`, timeout: plan.timeout ?? 60_000, interval: 10 },
  );
}

/** Restores `until` through the running agent into `target`; answers the restore as the API shows it at its end. */
async function restoreThroughAgent(until: OplogTime, target: string) {
  const requested = await shipping.api("POST", "/api/restores/point-in-time", {
    databaseId: shipping.databaseId,
    at: position(until),
    targetDatabase: target,
    confirmation: target,
  });
  expect(requested.status).toBe(201);
  const id = requested.body.restore.id;
  return waitUntil(
    async () => {
      const restore = (await shipping.api("GET", "/api/backups/restores/all")).body.find((row: { id: string }) => row.id === id);
      return restore.status === "completed" || restore.status === "failed" ? restore : undefined;
    },
    { message: `the restore into ${target}`, timeout: 60_000 },
  );
}

const plan = (at: string) => shipping.api("GET", `/api/restores/point-in-time/plan?${new URLSearchParams({ databaseId: shipping.databaseId, at })}`);

/**
 * The files a user holds, fetched as the wizard's "Download for an offline restore" says: the base
 * backup the server plans for `until`, and the zip of the slices from the base to the moment
 * (GET /api/pitr/databases/:id/slices/archive), unzipped.
 */
async function filesFor(until: OplogTime): Promise<{ base: string; slices: string }> {
  const planned = await plan(position(until));
  expect(planned.status).toBe(200);
  const headers = { authorization: `Bearer ${shipping.user.token}` };
  const base = join(dir, `base-${planned.body.base.id}.enc.dbvault`);
  if (!(await Bun.file(base).exists())) {
    const download = await fetch(`${baseUrl}/api/backups/${planned.body.base.id}/download`, { headers });
    expect(download.status).toBe(200);
    await writeFile(base, Buffer.from(await download.arrayBuffer()));
  }
  const range = new URLSearchParams({ from: planned.body.base.consistentAt.ts, to: planned.body.until.ts });
  const archive = await fetch(`${baseUrl}/api/pitr/databases/${shipping.databaseId}/slices/archive?${range}`, { headers });
  expect(archive.status).toBe(200);
  const slices = join(dir, `slices-${position(until).replace(",", "-")}`);
  const zip = `${slices}.zip`;
  await writeFile(zip, Buffer.from(await archive.arrayBuffer()));
  const unzipped = Bun.spawnSync(["unzip", "-q", "-o", zip, "-d", slices]);
  expect(unzipped.exitCode, unzipped.stderr.toString()).toBe(0);
  return { base, slices };
}

async function restoreOffline(until: OplogTime, target: string) {
  const files = await filesFor(until);
  const args = ["restore", "--db", "shop", "--in", files.base, "--oplog", files.slices, "--until", position(until), "--to-db", target];
  return runAgent([...args, "--config", offlineConfig, "--quiet"], { command: [BINARY_PATH] });
}

/** Waits for the backup the server runs now (or ran) after `after`, and answers it completed. */
async function nextBaseBackup(after: number) {
  const backup = await waitUntil(
    async () => (await shipping.api("GET", "/api/backups")).body.find((row: { createdAt: string }) => Date.parse(row.createdAt) > after),
    { message: "a base backup", timeout: 60_000 },
  );
  const ended = await waitForBackupEnd(shipping.api, backup._id);
  expect(ended.status).toBe("completed");
  expect(ended.consistency).toBe("point-in-time");
  return ended;
}

test("a recorded history through a SIGKILL, a restart and a step-down: every moment restores exactly, offline and through the agent", async () => {
  await withSeed(async () => {
    // Shipping runs before the base backup, so the base's moment is inside the chain.
    await runPhase("before the base", { moments: 0, until: async () => (await shipping.storedSlices()).length > 0 });
    const requested = Date.now() - 1;
    expect((await shipping.api("POST", "/api/backups", { databaseName: "shop" })).status).toBe(201);
    const base = await nextBaseBackup(requested);

    const phaseStart = await newestPosition();
    await runPhase("shipping", { moments: 5, ddl: ["create collection", "create index"], until: () => shippedPast(phaseStart) });
    // Mid-shipping under writes: slices on the server, entries read but not sealed.
    await shipping.agent.stop("SIGKILL");
    let outageOperations = 0;
    await runPhase("agent down", { moments: 4, ddl: ["rename collection"], until: () => ++outageOperations > 30 });
    const restarted = shipping.start();
    let online = false;
    restarted.then(() => (online = true));
    await runPhase("agent restarted", { moments: 5, until: async () => online && (await shippedPast(moments.at(-1)!.until)) });
    shipping.agent = await restarted;

    await rs.client.db("admin").command({ replSetStepDown: 60 });
    await waitUntil(async () => (await rs.client.db("admin").command({ hello: 1 })).isWritablePrimary === true, { message: "the next primary" });
    await runPhase("after a step-down", { moments: 6, ddl: ["drop collection", "drop index"], until: async () => shippedPast(moments.at(-1)!.until) });
    // The step-down ended the agent's tail, which it reopened where it had read to.
    expect(shipping.agent.log()).toContain("oplog tail interrupted; reopening it where it was read to");

    expect(moments.length).toBe(20);
    expect(workload.counts.committed).toBeGreaterThan(0);
    expect(workload.counts.aborted).toBeGreaterThan(0);
    expect(compareOplogTimes(base.consistentAt.ts, moments[0]!.until)).toBeLessThan(0);

    // One chain, no gap, every entry of the database once: through the kill and the step-down.
    const timeline = (await shipping.api("GET", `/api/pitr/databases/${shipping.databaseId}/timeline`)).body;
    expect(timeline.gaps).toEqual([]);
    expect(timeline.ranges.length).toBe(1);
    const slices = sortSlices(
      await Promise.all((await shipping.storedSlices()).map(async (row) => openSlice(await shipping.sliceFile(row), shipping.masterKey))),
    );
    expect(new Set(slices.map((slice) => slice.description.chain)).size).toBe(1);
    const held = checkChains(slices, "shop");
    expect(held).toEqual(await expectedPositions(rs.client, "shop", slices[0]!.description.start, slices.at(-1)!.description.end));
    expect(slices.some((slice) => slice.entries.some((entry) => (entry.o as { partialTxn?: boolean }).partialTxn === true))).toBe(true);

    for (const [index, moment] of moments.entries()) {
      const target = `cli_${index}`;
      const run = await restoreOffline(moment.until, target);
      expect({ moment: moment.label, exitCode: run.exitCode, stderr: run.exitCode === 0 ? "" : run.stderr }).toEqual({
        moment: moment.label,
        exitCode: 0,
        stderr: "",
      });
      await expectRestored(target, moment, "the offline restore");
    }
    // One moment of each phase, and the last.
    const phases = [...new Set(moments.map((moment) => moment.phase))];
    const chosen = [...phases.map((phase) => moments.find((moment) => moment.phase === phase)!), moments.at(-1)!].slice(0, SERVER_RESTORES);
    for (const [index, moment] of chosen.entries()) {
      const target = `agent_${index}`;
      const restore = await restoreThroughAgent(moment.until, target);
      expect({ moment: moment.label, status: restore.status, error: restore.error }).toEqual({ moment: moment.label, status: "completed", error: null });
      await expectRestored(target, moment, "the restore through the agent");
    }
  });
}, 240_000);

/** A moment as the server's messages name it: "2026-11-27T14:37:05Z (1795760225,3)". */
const second = (t: number) => new Date(t * 1000).toISOString().replace(".000Z", "Z");
const described = (time: OplogTime) => `${second(time.t)} (${position(time)})`;
/** A restorable window as a 422 names it: its whole seconds (an ISO time is its whole second), then its positions. */
const restorable = (from: OplogTime, to: OplogTime) => `from ${second(from.t)} to ${second(to.t - 1)} (oplog positions ${position(from)} to ${position(to)})`;
/** Moments of chains after the first: restored from the base the server took for them. */
const afterRollover: Moment[] = [];
let insideGap: Moment;

test("the oplog rolled over while the agent was stopped: the gap is recorded and mailed, a new chain and its base start, restores inside the gap are refused naming it", async () => {
  await withSeed(async () => {
    await shipping.agent.stop("SIGKILL");
    const shippedUntil = (await shipping.storedSlices()).at(-1)!.endTs;
    await runPhase("agent stopped", { moments: 1, until: () => true });
    insideGap = moments.pop()!;
    // More than the whole oplog, elsewhere: what the agent shipped last is gone from it.
    const blob = "x".repeat(10_000);
    const filler = rs.client.db("filler").collection("blobs");
    for (let batch = 0; batch < 100; batch++) await filler.insertMany(Array.from({ length: 10 }, () => ({ blob })));
    const oldest = await rs.client
      .db("local")
      .collection("oplog.rs")
      .findOne({}, { sort: { $natural: 1 } });
    expect(compareOplogTimes(toOplogTimestamp(oldest!.ts), oplogTimeFromBigInt(shippedUntil))).toBeGreaterThan(0);

    const restartedAt = Date.now();
    const restarted = shipping.start();
    let online = false;
    restarted.then(() => (online = true));
    await runPhase("after the rollover", {
      moments: 0,
      until: async () => online && (await shipping.storedSlices()).some((slice) => slice.reason === "rollover"),
    });
    shipping.agent = await restarted;
    const timeline = (await shipping.api("GET", `/api/pitr/databases/${shipping.databaseId}/timeline`)).body;
    expect(timeline.gaps.map((gap: { reason: string }) => gap.reason)).toEqual(["rollover"]);
    const [gap] = timeline.gaps;
    expect(gap.from.ts).toBe(position(oplogTimeFromBigInt(shippedUntil)));
    expect(compareOplogTimes(insideGap.until, { t: Number(gap.to.ts.split(",")[0]), i: Number(gap.to.ts.split(",")[1]) })).toBeLessThan(0);
    await waitUntil(() => server.sentMail.find((mail) => mail.subject === "Point-in-time recovery gap: shop"), { message: "the gap e-mail" });
    // The server asks for the new chain's base backup at once; moments after it restore.
    await nextBaseBackup(restartedAt);
    const before = moments.length;
    await runPhase("new chain", { moments: 2, until: async () => shippedPast(moments.at(-1)!.until) });
    afterRollover.push(...moments.slice(before));

    for (const [index, moment] of afterRollover.entries()) {
      const offline = await restoreOffline(moment.until, `cli_new_chain_${index}`);
      expect({ moment: moment.label, exitCode: offline.exitCode, stderr: offline.exitCode === 0 ? "" : offline.stderr }).toEqual({
        moment: moment.label,
        exitCode: 0,
        stderr: "",
      });
      await expectRestored(`cli_new_chain_${index}`, moment, "the offline restore");
    }
    const restore = await restoreThroughAgent(afterRollover.at(-1)!.until, "agent_new_chain");
    expect({ status: restore.status, error: restore.error }).toEqual({ status: "completed", error: null });
    await expectRestored("agent_new_chain", afterRollover.at(-1)!, "the restore through the agent");

    // Inside the gap: refused, naming it, to plan and to restore; nothing is sent to the agent.
    for (const answer of [
      await plan(position(insideGap.until)),
      await shipping.api("POST", "/api/restores/point-in-time", {
        databaseId: shipping.databaseId,
        at: position(insideGap.until),
        targetDatabase: "in_gap",
        confirmation: "in_gap",
      }),
    ]) {
      expect(answer.status).toBe(422);
      expect(answer.body.message).toStartWith(`${described(insideGap.until)} is inside a gap: "shop" can be restored to a moment from `);
    }
    expect(await rs.client.db("in_gap").listCollections().toArray()).toEqual([]);
  });
}, 150_000);

test("a slice bit-flipped in the server's storage: the restore through the agent is refused naming it, the target untouched", async () => {
  await withSeed(async () => {
    const moment = afterRollover.at(-1)!;
    const until = (await plan(position(moment.until))).body.until.ts;
    expect(until).toBe(position(moment.until));
    const reaching = (await shipping.storedSlices()).find(
      (slice) =>
        compareOplogTimes(oplogTimeFromBigInt(slice.startTs), moment.until) < 0 && compareOplogTimes(oplogTimeFromBigInt(slice.endTs), moment.until) >= 0,
    )!;
    const good = await shipping.sliceFile(reaching);
    const flipped = Buffer.from(good);
    flipped[flipped.length - 40]! ^= 0x04;
    await server.ctx.storage.put(reaching.storageKey, flipped);
    await rs.client
      .db("kept")
      .collection("mine")
      .insertOne({ _id: "mine" } as never);
    const before = await snapshotDatabase(rs.client, "kept");
    try {
      const restore = await restoreThroughAgent(moment.until, "kept");
      expect({ status: restore.status, error: restore.error }).toEqual({
        status: "failed",
        error: `slice ${reaching.id} does not match its stored checksum: it is damaged, so nothing was replaced (the target database is unchanged; restore from the slices as the agent shipped them); nothing was changed`,
      });
      expect(await snapshotDatabase(rs.client, "kept")).toBe(before);
    } finally {
      await server.ctx.storage.put(reaching.storageKey, good);
    }
  });
}, 60_000);

test("a moment before the oldest base backup or after the newest slice: a 422 naming the ranges that can be restored", async () => {
  await withSeed(async () => {
    // Stopped, the agent ships nothing more: the ranges stay as asserted.
    await shipping.agent.stop("SIGTERM");
    const slices = await shipping.storedSlices();
    const bases = (await shipping.api("GET", `/api/pitr/databases/${shipping.databaseId}/timeline`)).body.bases;
    expect(bases.length).toBe(2);
    const baseAt = (index: number) => {
      const [t, i] = bases[index].consistentAt.ts.split(",").map(Number);
      return { t, i } as OplogTime;
    };
    const chainEnd = (chain: string) => oplogTimeFromBigInt(slices.filter((slice) => slice.chain === chain).at(-1)!.endTs);
    const chains = [...new Set(slices.map((slice) => slice.chain))];
    const ranges = `${restorable(baseAt(0), chainEnd(chains[0]!))}, ${restorable(baseAt(1), chainEnd(chains[1]!))}`;
    const early = { t: baseAt(0).t - 5, i: 0 };
    const late = { t: chainEnd(chains[1]!).t + 3600, i: 0 };
    for (const [at, opening] of [
      [early, `${described(early)} is before the oldest base backup`],
      [late, `${described(late)} is after the newest shipped oplog`],
    ] as const) {
      const planned = await plan(position(at));
      expect({ status: planned.status, message: planned.body.message }).toEqual({
        status: 422,
        message: `${opening}: "shop" can be restored to a moment ${ranges}.`,
      });
      const requested = await shipping.api("POST", "/api/restores/point-in-time", { databaseId: shipping.databaseId, at: position(at), confirmation: "shop" });
      expect({ status: requested.status, message: requested.body.message }).toEqual({
        status: 422,
        message: `${opening}: "shop" can be restored to a moment ${ranges}.`,
      });
    }
  });
}, 60_000);
