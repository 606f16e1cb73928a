// Restoring a database to a moment, the server's side: the route picks the newest base backup
// consistent at or before it and the slices of one unbroken chain from there (across two chains
// and a gap), refuses moments nothing covers naming what can be restored, hides other accounts'
// databases and slices, sends the agent the command with the slices, lets it download them, and
// the restore history shows the moment.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { auditLogs, databases, pitrSlices, plans, organizations } from "@db/schema";
import { agentApi, type PointInTimePlanPage } from "@protocol/agent-protocol";
import { startTestServer, type TestServer, type TestUser } from "./harness";
import { consistentBackup, type SeededSlice, uploadSlice } from "./pitr-support";
import { registerScriptedAgent, type ScriptedAgent } from "./scripted-agent";

let server: TestServer;
let base: string;
let alice: TestUser;
let bob: TestUser;
let agent: ScriptedAgent;
let bobAgent: ScriptedAgent;
let shopId: string;
const bases: Record<string, string> = {};
const sliceBytes = new Map<string, Uint8Array>();
/** The restore to iso(127), still pending: its agent is scripted. */
let pendingRestoreId: string;

const T = 1_790_000_000;
const pos = (offset: number, i: number) => `${T + offset},${i}`;
const iso = (offset: number) => new Date((T + offset) * 1000).toISOString().replace(".000Z", "Z");
const CHAIN_A = "a".repeat(32);
const CHAIN_B = "b".repeat(32);

const seedSlice = async (slice: SeededSlice) => {
  const { id, bytes } = await uploadSlice(server.ctx, base, agent, "shop", slice);
  sliceBytes.set(id, bytes);
};
const seedBackup = (offset: number, i: number) => consistentBackup(server.ctx, agent, shopId, { t: T + offset, i });

beforeAll(async () => {
  server = await startTestServer();
  base = server.listen();
  alice = await server.registerUser({ name: "Alice" });
  bob = await server.registerUser({ name: "Bob" });
  agent = await registerScriptedAgent(base, alice.apiKey, ["shop"]);
  bobAgent = await registerScriptedAgent(base, bob.apiKey, ["shop"]);
  shopId = (await server.ctx.db.select().from(databases).where(eq(databases.organizationId, alice.id)))[0]!.id;
  const [pro] = await server.ctx.db.select().from(plans).where(eq(plans.name, "Pro"));
  await server.ctx.db.update(organizations).set({ planId: pro!.id }).where(eq(organizations.id, alice.id));
  await agent.connect();
  await bobAgent.connect();
  const on = await server.call("PUT", `/api/pitr/databases/${shopId}`, { token: alice.token, body: { enabled: true } });
  if (on.status !== 200) throw new Error(`switching on failed: ${on.status} ${JSON.stringify(on.body)}`);

  // Chain A: 100..130 unbroken, slice 3 never arrived, 140..150; chain B after a rollover: 900..920.
  await seedSlice({ chain: CHAIN_A, sequence: 0, start: pos(100, 1), end: pos(110, 5) });
  await seedSlice({ chain: CHAIN_A, sequence: 1, start: pos(110, 5), end: pos(125, 3) });
  await seedSlice({ chain: CHAIN_A, sequence: 2, start: pos(125, 3), end: pos(130, 1) });
  await seedSlice({ chain: CHAIN_A, sequence: 4, start: pos(140, 1), end: pos(150, 1) });
  await seedSlice({ chain: CHAIN_B, sequence: 0, start: pos(900, 1), end: pos(910, 1), reason: "rollover", rolloverFrom: pos(150, 1) });
  await seedSlice({ chain: CHAIN_B, sequence: 1, start: pos(910, 1), end: pos(920, 1) });
  bases.early = await seedBackup(105, 2);
  bases.later = await seedBackup(112, 0);
  bases.afterRollover = await seedBackup(905, 0);
}, 60_000);
afterAll(() => server.close());

const sliceIdsOf = async (chain: string, sequences: number[]) => {
  const rows = await server.ctx.db.select().from(pitrSlices).where(eq(pitrSlices.chain, chain));
  return sequences.map((sequence) => rows.find((row) => row.sequence === sequence && row.organizationId === alice.id)!.id);
};
/** A page of a restore's plan, as the agent fetches it with its own credentials. */
const fetchPlan = async (as: ScriptedAgent, restoreId: string, query = "") => {
  const res = await fetch(`${base}${agentApi.pointInTimePlan(restoreId)}${query ? `?${query}` : ""}`, { headers: as.headers() });
  return { status: res.status, body: (await res.json()) as PointInTimePlanPage & { message?: string } };
};
const plan = (at: string, token = alice.token, databaseId = shopId) =>
  server.call("GET", `/api/restores/point-in-time/plan?${new URLSearchParams({ databaseId, at })}`, { token });

describe("choosing the base backup and the slices", () => {
  test("the timeline names the base backups a restore can start from, oldest first", async () => {
    const { status, body } = await server.call("GET", `/api/pitr/databases/${shopId}/timeline`, { token: alice.token });
    expect(status).toBe(200);
    expect(body.bases.map((b: { id: string; consistentAt: { ts: string } }) => [b.id, b.consistentAt.ts])).toEqual([
      [bases.early, pos(105, 2)],
      [bases.later, pos(112, 0)],
      [bases.afterRollover, pos(905, 0)],
    ]);
    // What can be restored: from each run's oldest base (not where the chain starts, 900 after
    // the rollover) to the run's end; 140..150 has no base after the missing slice.
    expect(body.restorable.map((w: { from: { ts: string }; to: { ts: string } }) => [w.from.ts, w.to.ts])).toEqual([
      [pos(105, 2), pos(130, 1)],
      [pos(905, 0), pos(920, 1)],
    ]);
  });

  test("an oplog position inside a slice: the newest base before it and the one slice from there", async () => {
    const { status, body } = await plan(pos(120, 0));
    expect(status).toBe(200);
    expect(body.base.id).toBe(bases.later);
    expect(body.base.consistentAt.ts).toBe(pos(112, 0));
    expect(body.slices.count).toBe(1);
    expect(body.until).toEqual({ ts: pos(120, 0), at: new Date((T + 120) * 1000).toISOString() });
  });

  test("a time to the second includes every write of that second: the slices through the one ending after it", async () => {
    const { status, body } = await plan(iso(127));
    expect(status).toBe(200);
    expect(body.base.id).toBe(bases.later);
    expect(body.slices.count).toBe(2);
    expect(body.until.ts).toBe(`${T + 127},4294967295`);
  });

  test("after the rollover the base of the new chain is used", async () => {
    const { status, body } = await plan(pos(915, 0));
    expect(status).toBe(200);
    expect(body.base.id).toBe(bases.afterRollover);
    expect(body.slices.count).toBe(2);
  });

  test("a moment not covered is refused naming the moments that can be restored", async () => {
    // Whole seconds only up to the one before each window's end: an ISO time is its whole second.
    const ranges = `from ${iso(105)} to ${iso(129)} (oplog positions ${pos(105, 2)} to ${pos(130, 1)}), from ${iso(905)} to ${iso(919)} (oplog positions ${pos(905, 0)} to ${pos(920, 1)})`;
    const cases: [string, string][] = [
      [pos(135, 0), `${iso(135)} (${pos(135, 0)}) is inside a gap`],
      // Slices 140..150 are shipped, but no base backup precedes them without the hole.
      [pos(145, 0), `${iso(145)} (${pos(145, 0)}) is inside a gap`],
      [iso(50), `${iso(50)} (${T + 50},4294967295) is before the oldest base backup`],
      [pos(1000, 0), `${iso(1000)} (${pos(1000, 0)}) is after the newest shipped oplog`],
      // The last second of a range is covered only once a slice reaches past it.
      [iso(920), `${iso(920)} (${T + 920},4294967295) is after the newest shipped oplog`],
    ];
    for (const [at, opening] of cases) {
      const { status, body } = await plan(at);
      expect(status).toBe(422);
      expect(body.message).toBe(`${opening}: "shop" can be restored to a moment ${ranges}.`);
    }
    // Every second named is accepted, the first and the last of each window.
    for (const second of [105, 129, 905, 919]) expect((await plan(iso(second))).status).toBe(200);
  });

  test("a moment that is neither a time to the second nor an oplog position is refused", async () => {
    for (const at of ["yesterday", "2026-11-27T14:37", "2026-11-27T14:37:05", "12,x", "4294967296,0", "1969-12-31T23:59:59Z"]) {
      const { status, body } = await plan(at);
      expect(status).toBe(400);
      expect(body.message).toContain("at must be a time to the second with its zone");
    }
  });
});

describe("another account", () => {
  test("another user's database is not found, to plan or to restore", async () => {
    expect((await plan(pos(120, 0))).status).toBe(200);
    expect((await plan(pos(120, 0), bob.token)).status).toBe(404);
    const res = await server.call("POST", "/api/restores/point-in-time", {
      token: bob.token,
      body: { databaseId: shopId, at: pos(120, 0), confirmation: "shop" },
    });
    expect(res.status).toBe(404);
  });

  test("another user's agent cannot download a slice", async () => {
    const [sliceId] = await sliceIdsOf(CHAIN_A, [0]);
    expect((await fetch(`${base}${agentApi.sliceDownload(sliceId!)}`, { headers: agent.headers() })).status).toBe(200);
    const res = await fetch(`${base}${agentApi.sliceDownload(sliceId!)}`, { headers: bobAgent.headers() });
    expect(res.status).toBe(404);
    const unknown = await fetch(`${base}${agentApi.sliceDownload("nope")}`, { headers: agent.headers() });
    expect(unknown.status).toBe(404);
  });
});

describe("restoring to a moment", () => {
  test("a request missing what it needs is refused with a message naming it", async () => {
    const post = (body: Record<string, unknown>) => server.call("POST", "/api/restores/point-in-time", { token: alice.token, body });
    const missingConfirmation = await post({ databaseId: shopId, at: iso(127) });
    expect(missingConfirmation.status).toBe(400);
    expect(missingConfirmation.body.message).toContain("confirmation is required");
    const badTarget = await post({ databaseId: shopId, at: iso(127), targetDatabase: "a/b", confirmation: "a/b" });
    expect(badTarget.status).toBe(400);
    expect(badTarget.body.message).toContain("targetDatabase must be a MongoDB database name");
    const unknownDatabase = await post({ databaseId: "nope", at: iso(127), confirmation: "shop" });
    expect(unknownDatabase.status).toBe(404);
  });

  test("a wrong confirmation is refused and nothing is sent", async () => {
    const res = await server.call("POST", "/api/restores/point-in-time", {
      token: alice.token,
      body: { databaseId: shopId, at: iso(127), confirmation: "shopp" },
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe("Please type 'shop' to confirm");
    expect(agent.received.filter((m) => m.type === "restore")).toEqual([]);
  });

  test("the agent gets the base and the slices to replay, downloads them, and the history shows the moment", async () => {
    const res = await server.call("POST", "/api/restores/point-in-time", {
      token: alice.token,
      body: { databaseId: shopId, at: iso(127), confirmation: "shop" },
    });
    expect(res.status).toBe(201);
    const command = await agent.waitFor("restore");
    expect(command.backupId).toBe(bases.later!);
    const expected = await sliceIdsOf(CHAIN_A, [1, 2]);
    expect(command.pointInTime?.until).toEqual({ t: T + 127, i: 4294967295 });
    pendingRestoreId = command.restoreId;
    // The command names the moment and the plan's size; the agent fetches the plan recorded on the restore.
    expect(command.pointInTime?.plan).toEqual({ slices: 2, collections: false });
    expect(command.collections).toBeUndefined();
    const planned = await fetchPlan(agent, command.restoreId);
    expect(planned.status).toBe(200);
    expect(planned.body).toMatchObject({
      restoreId: command.restoreId,
      backupId: bases.later!,
      until: { t: T + 127, i: 4294967295 },
      collections: null,
      total: 2,
      next: null,
    });
    expect(planned.body.slices.map((s) => [s.id, s.chain, s.sequence, s.size])).toEqual([
      [expected[0]!, CHAIN_A, 1, 301],
      [expected[1]!, CHAIN_A, 2, 302],
    ]);
    const firstPage = await fetchPlan(agent, command.restoreId, "limit=1");
    expect([firstPage.body.slices.map((s) => s.sequence), firstPage.body.next]).toEqual([[1], 1]);
    const secondPage = await fetchPlan(agent, command.restoreId, "after=1&limit=1");
    expect([secondPage.body.slices.map((s) => s.sequence), secondPage.body.next]).toEqual([[2], null]);
    for (const [query, message] of [
      ["limit=0", "limit must be a whole number"],
      ["limit=501", "limit must be a whole number"],
      ["after=x", "after must be a slice sequence number"],
    ] as const) {
      const refused = await fetchPlan(agent, command.restoreId, query);
      expect([refused.status, String(refused.body.message)]).toEqual([400, expect.stringContaining(message)]);
    }
    // Only to the agent the restore was sent to.
    expect((await fetchPlan(bobAgent, command.restoreId)).status).toBe(404);
    expect((await fetchPlan(agent, "nope")).status).toBe(404);
    for (const slice of planned.body.slices) {
      const download = await fetch(`${base}${agentApi.sliceDownload(slice.id)}`, { headers: agent.headers() });
      expect(download.status).toBe(200);
      const bytes = new Uint8Array(await download.arrayBuffer());
      expect(createHash("sha256").update(bytes).digest("hex")).toBe(slice.sha256);
      expect(Buffer.from(bytes).equals(Buffer.from(sliceBytes.get(slice.id)!))).toBe(true);
    }
    const ranged = await fetch(`${base}${agentApi.sliceDownload(expected[0]!)}`, { headers: { ...agent.headers(), range: "bytes=100-" } });
    expect(ranged.status).toBe(206);
    expect(Buffer.from(await ranged.arrayBuffer()).equals(Buffer.from(sliceBytes.get(expected[0]!)!.subarray(100)))).toBe(true);

    const history = await server.call("GET", "/api/backups/restores/all", { token: alice.token });
    expect(history.body[0].id).toBe(res.body.restore.id);
    expect(history.body[0].pointInTime).toEqual({ at: new Date((T + 127) * 1000).toISOString(), ts: `${T + 127},4294967295` });
    const [entry] = await server.ctx.db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.organizationId, alice.id), eq(auditLogs.action, "RESTORE_REQUESTED")));
    expect((entry!.details as { pointInTime: unknown }).pointInTime).toEqual({
      at: new Date((T + 127) * 1000).toISOString(),
      ts: `${T + 127},4294967295`,
      slices: 2,
    });
  });

  test("an agent of the account reads a slice only once a restore into its database was sent the slice", async () => {
    const reportsAgent = await registerScriptedAgent(base, alice.apiKey, ["reports"], "reports-agent");
    await reportsAgent.connect();
    const [sliceId] = await sliceIdsOf(CHAIN_B, [0]);
    const download = () => fetch(`${base}${agentApi.sliceDownload(sliceId!)}`, { headers: reportsAgent.headers() });
    expect((await download()).status).toBe(404);
    const res = await server.call("POST", "/api/restores/point-in-time", {
      token: alice.token,
      body: { databaseId: shopId, at: pos(915, 0), targetDatabase: "reports", confirmation: "reports" },
    });
    expect(res.status).toBe(201);
    const command = await reportsAgent.waitFor("restore");
    expect((await fetchPlan(reportsAgent, command.restoreId)).body.slices.map((s) => s.id)).toContain(sliceId!);
    // Not to the database's own agent, which was not sent this restore.
    expect((await fetchPlan(agent, command.restoreId)).status).toBe(404);
    expect((await download()).status).toBe(200);
    await reportsAgent.disconnect();
  });

  test("a slice of the plan no longer stored: the plan answers 410, so the agent changes nothing", async () => {
    const [gone] = await sliceIdsOf(CHAIN_A, [2]);
    await server.ctx.db.update(pitrSlices).set({ stored: false }).where(eq(pitrSlices.id, gone!));
    try {
      const res = await fetchPlan(agent, pendingRestoreId);
      expect(res.status).toBe(410);
      expect(res.body.message).toBe(
        "A slice this restore needs is no longer stored, so nothing was changed: ask for the restore again, which plans from what is stored now.",
      );
    } finally {
      await server.ctx.db.update(pitrSlices).set({ stored: true }).where(eq(pitrSlices.id, gone!));
    }
    expect((await fetchPlan(agent, pendingRestoreId)).status).toBe(200);
  });
});
