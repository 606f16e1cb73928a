// The server's side of continuous oplog shipping: slices uploaded over the agents' path are
// stored and counted in the storage quota, recorded by their bounds only, answered once when sent
// again, and built into the owner's timeline with its gaps. Then the real shipper uploads to it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { backups, databases, pitrSlices, plans, organizations } from "@db/schema";
import { SLICE_UPLOAD_PATH } from "@protocol/pitr";
import { prunePitrSlices } from "../src/modules/pitr/retention";
import { describeSliceForUpload } from "../../agent/src/daemon/jobs/pitr-shipping-job";
import { ShippingStore } from "../../agent/src/oplog/shipping/shipping-store";
import { shipOplog } from "../../agent/src/oplog/shipping/ship-oplog";
import { createServerClient } from "../../agent/src/transport/server-client";
import { startReplicaSetWithClient, stopWithClient } from "../../testkit/mongo-server/replica-set/test-support";
import { waitUntil } from "../../testkit/wait-until";
import { startTestServer, type TestServer, type TestUser } from "./harness";
import { registerScriptedAgent, type ScriptedAgent } from "./scripted-agent";

let server: TestServer;
let base: string;
let alice: TestUser;
let bob: TestUser;
let agent: ScriptedAgent;
let bobAgent: ScriptedAgent;
let shopId: string;

beforeAll(async () => {
  server = await startTestServer();
  base = server.listen();
  alice = await server.registerUser({ name: "Alice" });
  bob = await server.registerUser({ name: "Bob" });
  agent = await registerScriptedAgent(base, alice.apiKey, ["shop", "live"]);
  bobAgent = await registerScriptedAgent(base, bob.apiKey, ["shop"]);
  shopId = (await server.ctx.db.select().from(databases).where(eq(databases.organizationId, alice.id))).find((d) => d.name === "shop")!.id;
  const [pro] = await server.ctx.db.select().from(plans).where(eq(plans.name, "Pro"));
  await server.ctx.db.update(organizations).set({ planId: pro!.id }).where(eq(organizations.id, alice.id));
  // Registered on the free plan, only the first was active.
  await server.ctx.db.update(databases).set({ isActive: true }).where(eq(databases.organizationId, alice.id));
  await agent.connect();
  for (const database of await server.ctx.db.select().from(databases).where(eq(databases.organizationId, alice.id))) {
    const res = await server.call("PUT", `/api/pitr/databases/${database.id}`, { token: alice.token, body: { enabled: true } });
    if (res.status !== 200) throw new Error(`switching on failed: ${res.status} ${JSON.stringify(res.body)}`);
  }
}, 30_000);
afterAll(() => server.close());

const CHAIN = "a".repeat(32);

type Slice = { sequence: number; start: string; end: string; entries?: number; reason?: string; rolloverFrom?: string; chain?: string; bytes?: Uint8Array };

function upload(slice: Slice, options: { as?: ScriptedAgent; database?: string; sha256?: string } = {}) {
  const bytes = slice.bytes ?? randomBytes(300);
  const entries = slice.entries ?? 2;
  const [t, i] = slice.end.split(",");
  const query: Record<string, string> = {
    database: options.database ?? "shop",
    chain: slice.chain ?? CHAIN,
    sequence: String(slice.sequence),
    start: slice.start,
    end: slice.end,
    entries: String(entries),
    sha256: options.sha256 ?? createHash("sha256").update(bytes).digest("hex"),
    reason: slice.reason ?? (slice.sequence === 0 ? "started" : "continues"),
    ...(entries > 0 ? { first: `${t},${Number(i) - entries + 1}`, last: slice.end } : {}),
    ...(slice.rolloverFrom ? { rolloverFrom: slice.rolloverFrom } : {}),
  };
  return fetch(`${base}${SLICE_UPLOAD_PATH}?${new URLSearchParams(query)}`, {
    method: "PUT",
    headers: { ...(options.as ?? agent).headers(), "content-type": "application/octet-stream" },
    body: bytes as Uint8Array<ArrayBuffer>,
  });
}

const storageUsed = async (userId: string) =>
  (await server.ctx.db.select({ used: organizations.storageUsed }).from(organizations).where(eq(organizations.id, userId)))[0]!.used;
const timeline = (token: string, databaseId = shopId) => server.call("GET", `/api/pitr/databases/${databaseId}/timeline`, { token });

describe("receiving slices", () => {
  test("a chain's slices are stored, counted in storage, and make one covered range", async () => {
    const before = await storageUsed(alice.id);
    const first = randomBytes(400);
    expect((await upload({ sequence: 0, start: "100,1", end: "110,5", bytes: first })).status).toBe(200);
    expect((await upload({ sequence: 1, start: "110,5", end: "125,3", bytes: randomBytes(600) })).status).toBe(200);
    expect(await storageUsed(alice.id)).toBe(before + 1000);
    const rows = await server.ctx.db.select().from(pitrSlices).where(eq(pitrSlices.databaseId, shopId));
    expect(rows.map((r) => [r.sequence, r.entryCount, r.size, r.stored])).toEqual([
      [0, 2, 400, true],
      [1, 2, 600, true],
    ]);
    const stored = await server.ctx.storage.get(rows[0]!.storageKey);
    const chunks: Uint8Array[] = [];
    for await (const chunk of stored) chunks.push(chunk);
    expect(Buffer.concat(chunks).equals(first)).toBe(true);
    const { status, body } = await timeline(alice.token);
    expect(status).toBe(200);
    expect(body.ranges).toEqual([
      { from: { ts: "100,1", at: "1970-01-01T00:01:40.000Z" }, to: { ts: "125,3", at: "1970-01-01T00:02:05.000Z" }, slices: 2, entries: 4, bytes: 1000 },
    ]);
    expect(body.gaps).toEqual([]);
  });

  test("a slice sent again is answered as stored and counted once; other contents in its place are refused", async () => {
    const bytes = randomBytes(200);
    expect((await upload({ sequence: 2, start: "125,3", end: "130,1", bytes })).status).toBe(200);
    const used = await storageUsed(alice.id);
    const again = await upload({ sequence: 2, start: "125,3", end: "130,1", bytes });
    expect(again.status).toBe(200);
    expect(await storageUsed(alice.id)).toBe(used);
    const other = await upload({ sequence: 2, start: "125,3", end: "130,1", bytes: randomBytes(200) });
    expect(other.status).toBe(409);
    expect(((await other.json()) as { message: string }).message).toContain("already stored");
  });

  test("a body that does not match its checksum is refused and nothing is recorded or counted", async () => {
    const used = await storageUsed(alice.id);
    const res = await upload({ sequence: 3, start: "130,1", end: "131,1" }, { sha256: "0".repeat(64) });
    expect(res.status).toBe(422);
    expect(await storageUsed(alice.id)).toBe(used);
    expect((await server.ctx.db.select().from(pitrSlices).where(eq(pitrSlices.sequence, 3))).length).toBe(0);
  });

  test("a missing slice and a rollover are gaps of the timeline", async () => {
    expect((await upload({ sequence: 4, start: "140,1", end: "150,1" })).status).toBe(200);
    expect((await upload({ sequence: 0, chain: "b".repeat(32), start: "900,1", end: "910,1", reason: "rollover", rolloverFrom: "150,1" })).status).toBe(200);
    const { body } = await timeline(alice.token);
    expect(body.ranges.map((r: { from: { ts: string }; to: { ts: string } }) => [r.from.ts, r.to.ts])).toEqual([
      ["100,1", "130,1"],
      ["140,1", "150,1"],
      ["900,1", "910,1"],
    ]);
    expect(body.gaps.map((g: { from: { ts: string }; to: { ts: string }; reason: string }) => [g.from.ts, g.to.ts, g.reason])).toEqual([
      ["130,1", "140,1", "missing"],
      ["150,1", "900,1", "rollover"],
    ]);
    // The rollover is told at once, by e-mail (and to pitr.gap webhooks).
    const mail = await waitUntil(() => server.sentMail.find((m) => m.subject === "Point-in-time recovery gap: shop"), { message: "the gap e-mail" });
    expect(mail.text).toContain("cannot be restored to a moment between 1970-01-01T00:02:30.000Z and 1970-01-01T00:15:00.000Z");
    expect(mail.text).toContain("the oplog on your server was overwritten");
  });

  test("a new chain after a gap gets its base at once: the agent is asked for a full backup, one at a time", async () => {
    // The rollover above started one (the missing slice, a hole inside a chain, did not).
    const backup = await agent.waitFor("backup");
    expect(backup.databaseName).toBe("shop");
    const shopBackups = () => server.ctx.db.select().from(backups).where(eq(backups.databaseId, shopId));
    expect((await shopBackups()).map((row) => row.status)).toEqual(["pending"]);
    // Another gap while it runs starts no second one.
    expect((await upload({ sequence: 0, chain: "d".repeat(32), start: "950,1", end: "960,1", reason: "rollover", rolloverFrom: "910,1" })).status).toBe(200);
    await waitUntil(() => server.sentMail.filter((m) => m.subject === "Point-in-time recovery gap: shop").length === 2, { message: "the second gap e-mail" });
    expect((await shopBackups()).length).toBe(1);
    await server.ctx.db.update(backups).set({ status: "failed" }).where(eq(backups.databaseId, shopId));
  });

  test("a slice past the plan's storage is refused with STORAGE_LIMIT_EXCEEDED and not recorded", async () => {
    const [plan] = await server.ctx.db.select().from(plans).where(eq(plans.name, "Pro"));
    await server.ctx.db
      .update(organizations)
      .set({ storageUsed: plan!.storageLimit - 100 })
      .where(eq(organizations.id, alice.id));
    const res = await upload({ sequence: 5, start: "150,1", end: "160,1", bytes: randomBytes(101) });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { code: string }).code).toBe("STORAGE_LIMIT_EXCEEDED");
    expect(await storageUsed(alice.id)).toBe(plan!.storageLimit - 100);
    expect((await server.ctx.db.select().from(pitrSlices).where(eq(pitrSlices.sequence, 5))).length).toBe(0);
    await server.ctx.db.update(organizations).set({ storageUsed: 0 }).where(eq(organizations.id, alice.id));
  });

  test("numbers that contradict each other are a 400 naming the problem", async () => {
    const cases: [Slice, string][] = [
      [{ sequence: 6, start: "200,1", end: "200,1" }, "end after it starts"],
      [{ sequence: 6, start: "200,1", end: "210,1", reason: "started" }, "first slice"],
      [{ sequence: 0, chain: "c".repeat(32), start: "200,1", end: "210,1", reason: "rollover" }, "rolloverFrom"],
    ];
    for (const [slice, message] of cases) {
      const res = await upload(slice);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { message: string }).message).toContain(message);
    }
    const garbage = await fetch(`${base}${SLICE_UPLOAD_PATH}?database=shop&chain=zz&sequence=-1`, { method: "PUT", headers: agent.headers(), body: "x" });
    expect(garbage.status).toBe(400);
  });
});

describe("the switch", () => {
  test("turning it on tells the database's agent to ship it; the plan must offer it", async () => {
    const live = (await server.ctx.db.select().from(databases).where(eq(databases.organizationId, alice.id))).find((d) => d.name === "live")!;
    agent.received.length = 0;
    const off = await server.call("PUT", `/api/pitr/databases/${live.id}`, { token: alice.token, body: { enabled: false } });
    expect(off.body.find((d: { id: string }) => d.id === live.id).pitrEnabled).toBe(false);
    expect((await agent.waitFor("pitr")).databases).toEqual(["shop"]);
    const refused = await upload({ sequence: 0, chain: "e".repeat(32), start: "100,1", end: "110,1" }, { database: "live" });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { message: string }).message).toContain("Point-in-time recovery is off");
    await server.call("PUT", `/api/pitr/databases/${live.id}`, { token: alice.token, body: { enabled: true } });
    expect((await agent.waitFor("pitr")).databases).toEqual(["live", "shop"]);

    const bobShop = (await server.ctx.db.select().from(databases).where(eq(databases.organizationId, bob.id)))[0]!;
    const free = await server.call("PUT", `/api/pitr/databases/${bobShop.id}`, { token: bob.token, body: { enabled: true } });
    expect(free.status).toBe(403);
    expect(free.body.code).toBe("PLAN_LIMIT");
    expect((await server.call("PUT", `/api/pitr/databases/${bobShop.id}`, { token: alice.token, body: { enabled: true } })).status).toBe(404);
    expect((await server.call("PUT", `/api/pitr/databases/${live.id}`, { token: alice.token, body: { enabled: "yes" } })).status).toBe(400);
  });

  test("an agent connecting hears which of its databases it ships", async () => {
    await agent.disconnect();
    agent.received.length = 0;
    await agent.connect();
    expect((await agent.waitFor("pitr")).databases).toEqual(["live", "shop"]);
  });
});

describe("retention", () => {
  test("slices ending before the base backup the plan's window needs are deleted and leave the quota", async () => {
    const owner = await server.registerUser({ name: "Carol" });
    const [pro] = await server.ctx.db.select().from(plans).where(eq(plans.name, "Pro"));
    await server.ctx.db.update(organizations).set({ planId: pro!.id }).where(eq(organizations.id, owner.id));
    const ownerAgent = await registerScriptedAgent(base, owner.apiKey, ["kept"]);
    const [kept] = await server.ctx.db.select().from(databases).where(eq(databases.organizationId, owner.id));
    await server.call("PUT", `/api/pitr/databases/${kept!.id}`, { token: owner.token, body: { enabled: true } });
    const day = 86_400;
    const now = Math.floor(Date.now() / 1000);
    // Pro keeps 7 days: the base for the window's start is the backup of 8 days ago.
    for (const daysAgo of [10, 8, 1]) {
      await server.ctx.db
        .insert(backups)
        .values({ organizationId: owner.id, databaseName: "kept", status: "completed", createdAt: new Date((now - daysAgo * day) * 1000) });
    }
    const chain = "9".repeat(32);
    const ends = [now - 9 * day, now - 7.5 * day, now - 2 * day, now - 3600].map(Math.floor);
    let start = `${ends[0]! - 60},1`;
    for (const [sequence, end] of ends.entries()) {
      const res = await upload({ sequence, chain, start, end: `${end},5`, bytes: randomBytes(100 + sequence) }, { as: ownerAgent, database: "kept" });
      expect(res.status).toBe(200);
      start = `${end},5`;
    }
    const rowsBefore = await server.ctx.db.select().from(pitrSlices).where(eq(pitrSlices.databaseId, kept!.id));
    const used = await storageUsed(owner.id);

    // (Other accounts' slices of this file, shipped "in 1970" without a backup, are past their window too.)
    expect(await prunePitrSlices(server.ctx)).toBeGreaterThanOrEqual(1);
    const rows = await server.ctx.db.select().from(pitrSlices).where(eq(pitrSlices.databaseId, kept!.id));
    expect(rows.map((r) => r.sequence).sort()).toEqual([1, 2, 3]);
    expect(await storageUsed(owner.id)).toBe(used - 100);
    expect(await server.ctx.storage.stat(rowsBefore.find((r) => r.sequence === 0)!.storageKey)).toBeNull();
    expect(await server.ctx.storage.stat(rows[0]!.storageKey)).not.toBeNull();
    // The timeline now starts at the first slice kept, with no gap.
    const { body } = await timeline(owner.token, kept!.id);
    expect(body.gaps).toEqual([]);
    expect(body.ranges.map((r: { from: { ts: string } }) => r.from.ts)).toEqual([`${ends[0]},5`]);
    expect(await prunePitrSlices(server.ctx)).toBe(0);
  });
});

describe("ownership", () => {
  test("another account's agent cannot upload to a database it does not run, nor its owner read another's timeline", async () => {
    const res = await upload({ sequence: 0, chain: "d".repeat(32), start: "100,1", end: "110,1" }, { as: bobAgent, database: "live" });
    expect(res.status).toBe(404);
    expect((await timeline(bob.token)).status).toBe(404);
    expect((await timeline(alice.token)).status).toBe(200);
  });
});

describe("the real shipper", () => {
  test("ships a replica set's oplog to the server, whose timeline then covers the writes", async () => {
    const rs = await startReplicaSetWithClient();
    const dir = await mkdtemp(join(tmpdir(), "dbvault-pitr-server-"));
    const abort = new AbortController();
    const client = createServerClient({ url: base, apiKey: alice.apiKey, agentId: agent.agentId, agentToken: agent.agentToken });
    let sealed = 0;
    try {
      const shipping = shipOplog({
        client: rs.client,
        database: "live",
        sealing: { masterKey: randomBytes(32) },
        store: new ShippingStore(dir),
        upload: (slice, body, signal) => client.uploadSlice(describeSliceForUpload("live", slice), body, signal),
        signal: abort.signal,
        log: () => {},
        maxAgeMs: 100,
        idleSealMs: 200,
        onSealed: () => sealed++,
      });
      const liveId = (await server.ctx.db.select().from(databases).where(eq(databases.organizationId, alice.id))).find((d) => d.name === "live")!.id;
      let n = 0;
      const body = await waitUntil(
        async () => {
          await rs.client
            .db("live")
            .collection("c")
            .insertOne({ n: n++ } as never);
          const { body } = await timeline(alice.token, liveId);
          return body.slices >= 3 && body.ranges.length === 1 ? body : undefined;
        },
        { message: "three slices on the server", interval: 100 },
      );
      abort.abort();
      await shipping;
      expect(body.gaps).toEqual([]);
      expect(body.ranges[0].entries).toBeGreaterThan(0);
      expect(sealed).toBeGreaterThanOrEqual(3);
    } finally {
      abort.abort();
      await stopWithClient(rs);
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
