// Point-in-time restores through the DBVault server across long plans (issue 47 item 1, issue 42):
// the restore command crosses the server's bus (Postgres NOTIFY, under 8,000 bytes) and once
// carried every slice (~180 bytes each), so a moment 44 slices after its base answered 500 and left
// a pending restore blocking its target. Here a chain of ~670 slices is shipped to the real
// server over the agents' upload path: one slice for each oplog entry of the replica-set test
// server after a real base backup (~620 slices, as a shipper sealing often makes them), then a
// day of empty slices (what an idle database's shipper seals). The agent that
// restores is the daemon's own code (startAgentDaemon) over a real WebSocket and HTTP: it fetches
// the plan page by page, downloads every slice, checks the chain and replays it. Moments: 500+
// slices after the base, a day after it, and 200 collections chosen (50 of them created after the
// base, which a restore to a moment includes: issue 47 item 7). The database's own agent is a
// scripted one that ships only what the test gives it; a real shipper would add a chain of its own.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { Timestamp } from "bson";
import type { MongoClient } from "mongodb";
import { agents, databases, restores } from "@db/schema";
import { compareOplogTimes, formatOplogTime, type OplogTime } from "../../protocol/oplog-position.ts";
import { SLICE_UPLOAD_PATH } from "../../protocol/pitr.ts";
import { startBackup } from "../../server/src/modules/backups/service.ts";
import { userShippingPitr } from "../../server/test/pitr-support.ts";
import type { ScriptedAgent } from "../../server/test/scripted-agent.ts";
import { startTestServer, type TestServer } from "../../server/test/harness.ts";
import { startReplicaSetWithClient, stopWithClient } from "../../testkit/mongo-server/replica-set/test-support.ts";
import type { MongoTestServer } from "../../testkit/mongo-server/server.ts";
import { waitUntil } from "../../testkit/wait-until.ts";
import { encodeMasterKey } from "../src/archive/index.ts";
import { AGENT_VERSION } from "../src/build-info.ts";
import { loadConfig } from "../src/config.ts";
import { startAgentDaemon } from "../src/daemon/agent-daemon.ts";
import { createIdentityTransport } from "../src/daemon/identity-transport.ts";
import { createDaemonRuntime } from "../src/daemon/runtime.ts";
import { createBackupStream } from "../src/dump/encrypted.ts";
import { readEntryHeader } from "../src/oplog/entry-header.ts";
import { snapshotDatabase } from "../src/oplog/chain/test-support/recorded-history.ts";
import { readNewestOplogTimestamp, readOplogRange, toOplogTimestamp } from "../src/oplog/read-oplog.ts";
import { createEntryFilter } from "../src/oplog/shipping/entry-filter.ts";
import { SliceBuilder } from "../src/oplog/shipping/slice-builder.ts";
import { createServerClient } from "../src/transport/server-client.ts";

const KEY = randomBytes(32);
const DAY = 86_400;
/** 200 names of ~55 bytes: chosen together they are ~11 KB, past the bus's limit on their own. */
const COLLECTIONS = Array.from({ length: 200 }, (_, n) => `customer_records_with_a_rather_long_collection_name_${String(n).padStart(3, "0")}`);
/** Created before the base backup; the rest after it. */
const IN_BASE = 150;

let rs: { server: MongoTestServer; client: MongoClient };
let server: TestServer;
let baseUrl: string;
let dir: string;
let token: string;
let shopId: string;
let daemon: ReturnType<typeof startAgentDaemon> | undefined;
/** A moment 500+ slices after the base, and what `shop` held then. */
let late: { until: OplogTime; contents: string };
/** The last entry's moment and what `shop` held then (and ever after). */
let last: { until: OplogTime; contents: string };
let sliceCount = 0;

const position = (time: OplogTime) => formatOplogTime(time);
const iso = (seconds: number) => new Date(seconds * 1000).toISOString().replace(".000Z", "Z");
const newest = async () => toOplogTimestamp(await readNewestOplogTimestamp(rs.client));

beforeAll(async () => {
  rs = await startReplicaSetWithClient();
  server = await startTestServer();
  baseUrl = server.listen();
  dir = await mkdtemp(join(tmpdir(), "dbvault-pitr-long-"));
  const shipping = await userShippingPitr(server, baseUrl, "shop");
  token = shipping.user.token;
  shopId = shipping.databaseId;

  const shop = rs.client.db("shop");
  await shop.collection("orders").insertOne({ _id: 0, n: 0 } as never);
  for (const name of COLLECTIONS.slice(0, IN_BASE)) await shop.collection(name).insertOne({ _id: name, created: "before the base" } as never);
  const base = await uploadBase(shipping.agent);

  // After the base: the other 50 collections, then writes enough for 500+ slices.
  for (const name of COLLECTIONS.slice(IN_BASE)) await shop.collection(name).insertOne({ _id: name, created: "after the base" } as never);
  const orders = shop.collection("orders");
  for (let n = 1; n <= 520; n++) {
    if (n % 5 === 0) await orders.updateOne({ _id: n - 1 } as never, { $set: { updated: n } });
    else await orders.insertOne({ _id: n, n } as never);
    if (n === 500) late = { until: await newest(), contents: await snapshotDatabase(rs.client, "shop") };
  }
  await shop.collection(COLLECTIONS[0]!).updateOne({ _id: COLLECTIONS[0] } as never, { $set: { changed: "after the late moment" } });
  last = { until: await newest(), contents: await snapshotDatabase(rs.client, "shop") };

  sliceCount = await shipChain(shipping.agent, base, last.until);
  await startRestoringAgent(shipping.user.apiKey);
}, 300_000);

afterAll(async () => {
  await daemon?.stop();
  await server?.close();
  if (rs) await stopWithClient(rs);
  await rm(dir, { recursive: true, force: true });
});

/** A real base backup of `shop` (the agent's dump, sealed with the key), stored as its agent stores one; answers its consistent point. */
async function uploadBase(agent: ScriptedAgent): Promise<OplogTime> {
  const backup = createBackupStream({ uri: `${rs.server.uri}shop`, database: "shop", masterKey: KEY, tools: { mode: "builtin" }, compressionThreads: 0 });
  const chunks: Uint8Array[] = [];
  for await (const chunk of backup.stream as AsyncIterable<Uint8Array>) chunks.push(chunk);
  const result = await backup.result;
  const bytes = Buffer.concat(chunks);
  if (result.consistency?.kind !== "point-in-time") throw new Error("the base backup is not point-in-time consistent");
  const [database] = await server.ctx.db.select().from(databases).where(eq(databases.id, shopId));
  await startBackup(server.ctx, database!, "auto");
  const { backupId } = await agent.waitFor("backup");
  expect((await agent.uploadPart(backupId, 0, bytes)).status).toBe(200);
  const done = await agent.complete(backupId, bytes, 1, { consistency: result.consistency, collections: result.collections });
  expect(done.status).toBe(200);
  return result.consistency.at.ts;
}

/**
 * Ships one chain from the base's point: a slice for each of `shop`'s oplog entries after it up to
 * `until`, then empty slices of half an hour for a day past it. Answers how many.
 */
async function shipChain(agent: ScriptedAgent, base: OplogTime, until: OplogTime): Promise<number> {
  const chain = randomBytes(16).toString("hex");
  const keep = createEntryFilter("shop");
  const entries: { raw: Uint8Array; ts: OplogTime }[] = [];
  const range = readOplogRange(rs.client, { from: new Timestamp({ t: base.t, i: base.i }), inclusive: false }, new Timestamp({ t: until.t, i: until.i }));
  for await (const batch of range) {
    for (const raw of batch) {
      const header = readEntryHeader(raw);
      const kept = keep(raw, header);
      if (kept) entries.push({ raw: kept, ts: header.ts });
    }
  }
  let sequence = 0;
  let start = base;
  const seal = async (end: OplogTime, entry?: { raw: Uint8Array; ts: OplogTime }) => {
    const builder = new SliceBuilder({ database: "shop", chain, sequence, start });
    if (entry) builder.add(entry.raw, entry.ts, 0);
    const sealed = await builder.seal(end, { masterKey: KEY }, new Date());
    const query = {
      database: "shop",
      chain,
      sequence: String(sequence),
      start: position(start),
      end: position(end),
      entries: String(sealed.entries),
      ...(entry ? { first: position(entry.ts), last: position(entry.ts) } : {}),
      sha256: sealed.sha256,
      reason: sequence === 0 ? "started" : "continues",
    };
    const res = await fetch(`${baseUrl}${SLICE_UPLOAD_PATH}?${new URLSearchParams(query)}`, {
      method: "PUT",
      headers: { ...agent.headers(), "content-type": "application/octet-stream" },
      body: sealed.bytes as Uint8Array<ArrayBuffer>,
    });
    if (res.status !== 200) throw new Error(`slice ${sequence} refused: ${res.status} ${await res.text()}`);
    sequence++;
    start = end;
  };
  for (const entry of entries) await seal(entry.ts, entry);
  // The day after: the shipper of an idle database seals empty slices, each where the last ended.
  // The server's clock moves with them, as it would have.
  const dayEnd = until.t + DAY + 60;
  while (start.t < dayEnd) await seal({ t: Math.min(start.t + 1_800, dayEnd), i: 0 });
  server.ctx.now = () => new Date((dayEnd + 30) * 1000);
  expect(compareOplogTimes(start, { t: until.t + DAY, i: 0 })).toBeGreaterThan(0);
  return sequence;
}

/** The agent that restores: the daemon's code, holding `shop_copy` on the same replica set, with the key. */
async function startRestoringAgent(apiKey: string) {
  const registered = await createServerClient({ url: baseUrl, apiKey }).register({
    name: "restorer",
    hostname: "restorer",
    platform: "linux",
    version: AGENT_VERSION,
    databases: ["shop_copy"],
  });
  const configPath = join(dir, "agent.json");
  const config = {
    version: 1,
    masterKey: encodeMasterKey(KEY),
    databases: [{ name: "shop_copy", uri: `${rs.server.uri}shop_copy` }],
    tools: { mode: "builtin" },
    server: { url: baseUrl, apiKey, agentId: registered.agentId, agentToken: registered.agentToken },
  };
  await writeFile(configPath, JSON.stringify(config), { mode: 0o600 });
  const runtime = createDaemonRuntime({ configPath, config: await loadConfig(configPath), hello: { hostname: "restorer", platform: "linux" }, log: () => {} });
  daemon = startAgentDaemon(runtime, await createIdentityTransport());
  await waitUntil(async () => (await server.ctx.db.select().from(agents).where(eq(agents.id, registered.agentId)))[0]?.status === "active", {
    message: "the restoring agent to be online",
    timeout: 30_000,
  });
}

/** Restores `shop` to `at` into shop_copy (dropped first) through the API; answers the restore once it ended. */
async function restoreToMoment(at: string, collections?: string[]) {
  await rs.client.db("shop_copy").dropDatabase();
  const res = await server.call("POST", "/api/restores/point-in-time", {
    token,
    body: { databaseId: shopId, at, targetDatabase: "shop_copy", confirmation: "shop_copy", ...(collections ? { collections } : {}) },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const id = res.body.restore.id as string;
  let ended: typeof restores.$inferSelect | undefined;
  await waitUntil(
    async () => {
      [ended] = await server.ctx.db.select().from(restores).where(eq(restores.id, id));
      return ended?.status === "completed" || ended?.status === "failed";
    },
    { message: "the restore to end", timeout: 120_000 },
  );
  expect(ended!.error).toBeNull();
  expect(ended!.status).toBe("completed");
  return ended!;
}

const plan = async (at: string) => {
  const res = await server.call("GET", `/api/restores/point-in-time/plan?${new URLSearchParams({ databaseId: shopId, at })}`, { token });
  expect(res.status).toBe(200);
  return res.body as { slices: { count: number }; baseCollections: string[] | null };
};

/** A snapshot with only these collections. */
const only = (contents: string, names: string[]) => {
  const all = JSON.parse(contents) as Record<string, unknown>;
  return JSON.stringify(Object.fromEntries(names.map((name) => [name, all[name]])), null, 1);
};

describe("restoring to a moment through the server, the agent fetching the plan", () => {
  test("a moment 500+ slices after its base", async () => {
    const at = position(late.until);
    expect((await plan(at)).slices.count).toBeGreaterThanOrEqual(500);
    const restore = await restoreToMoment(at);
    expect(restore.pointInTime!.sliceIds.length).toBeGreaterThanOrEqual(500);
    expect(await snapshotDatabase(rs.client, "shop_copy")).toBe(late.contents);
  }, 180_000);

  test("a moment a day after its base, across 600+ slices", async () => {
    const at = iso(last.until.t + DAY);
    const planned = await plan(at);
    expect(planned.slices.count).toBeGreaterThan(600);
    expect(planned.slices.count).toBeLessThanOrEqual(sliceCount);
    await restoreToMoment(at);
    expect(await snapshotDatabase(rs.client, "shop_copy")).toBe(last.contents);
  }, 180_000);

  test("200 collections chosen, 50 of them created after the base: those exist at the moment and are restored", async () => {
    const at = position(late.until);
    const planned = await plan(at);
    // The server reads no slice: it names what the base holds, and the agent checks the moment.
    expect(planned.baseCollections?.length).toBe(IN_BASE + 1);
    const restore = await restoreToMoment(at, COLLECTIONS);
    expect(restore.collections).toEqual(COLLECTIONS);
    const restored = await snapshotDatabase(rs.client, "shop_copy");
    expect(Object.keys(JSON.parse(restored)).sort()).toEqual([...COLLECTIONS].sort());
    expect(restored).toBe(only(late.contents, [...COLLECTIONS].sort()));
  }, 180_000);

  test("a collection that does not exist at the moment is refused naming it, the target untouched", async () => {
    await rs.client.db("shop_copy").dropDatabase();
    await rs.client
      .db("shop_copy")
      .collection("kept")
      .insertOne({ _id: "mine" } as never);
    const before = await snapshotDatabase(rs.client, "shop_copy");
    const res = await server.call("POST", "/api/restores/point-in-time", {
      token,
      body: { databaseId: shopId, at: position(late.until), targetDatabase: "shop_copy", confirmation: "shop_copy", collections: ["orders", "never_made"] },
    });
    expect(res.status).toBe(201);
    const id = res.body.restore.id as string;
    let ended: typeof restores.$inferSelect | undefined;
    await waitUntil(
      async () => {
        [ended] = await server.ctx.db.select().from(restores).where(eq(restores.id, id));
        return ended?.status === "failed" || ended?.status === "completed";
      },
      { message: "the restore to end", timeout: 120_000 },
    );
    expect(ended!.status).toBe("failed");
    expect(ended!.error).toContain(`the database has no collection "never_made" at ${position(late.until)}, so nothing was replaced`);
    expect(await snapshotDatabase(rs.client, "shop_copy")).toBe(before);
  }, 180_000);
});
