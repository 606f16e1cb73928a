// Trust on the server's side, against a real database and a scripted agent on a real socket:
// verification reports (recorded, checked against the dump, alerted), re-verification requests,
// anomalies at completion (alerted, resolved) and retention holding the last good backup while
// one is unresolved, and restore drills (on demand and scheduled, claimed once).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { auditLogs, backups, databases, settings } from "@db/schema";
import type { TrustAlert } from "../src/lib/event-bus";
import { startBackup } from "../src/modules/backups/service";
import { runDueDrills } from "../src/modules/drills/service";
import { applyRetention } from "../src/modules/retention/service";
import { waitUntil } from "../../testkit/wait-until";
import { startTestServer, type TestServer, type TestUser } from "./harness";
import { registerScriptedAgent, type ScriptedAgent } from "./scripted-agent";

let server: TestServer;
let base: string;
const alerts: TrustAlert[] = [];

beforeAll(async () => {
  server = await startTestServer();
  base = server.listen();
  server.ctx.events.on("alert", ({ alert }) => void alerts.push(alert));
});
afterAll(() => server.close());

type World = { user: TestUser; agent: ScriptedAgent };

async function connectedUser(name = "shop"): Promise<World> {
  const user = await server.registerUser();
  const agent = await registerScriptedAgent(base, user.apiKey, [name]);
  await agent.connect();
  return { user, agent };
}

/** One completed backup of `name` with `size` bytes and the given dumped counts. */
async function completeBackup({ user, agent }: World, size: number, collections: Record<string, number>, name = "shop") {
  const [database] = await server.ctx.db
    .select()
    .from(databases)
    .where(and(eq(databases.organizationId, user.id), eq(databases.name, name)));
  const started = await startBackup(server.ctx, database!, "auto");
  const { backupId } = await agent.waitFor("backup");
  expect(backupId).toBe(started.id);
  const bytes = randomBytes(size);
  expect((await agent.uploadPart(backupId, 0, bytes)).status).toBe(200);
  expect((await agent.complete(backupId, bytes, 1, { collections })).status).toBe(200);
  return backupId;
}

const getBackup = async (user: TestUser, id: string) => (await server.call("GET", `/api/backups/${id}`, { token: user.token })).body;
const auditActions = async (userId: string) =>
  (await server.ctx.db.select().from(auditLogs).where(eq(auditLogs.organizationId, userId))).map((row) => row.action);
const mailTo = (user: TestUser, subject: string) => server.sentMail.filter((mail) => mail.to === user.email && mail.subject.startsWith(subject));
// Alerts and mails go out after the change they announce is visible through the API: wait for them.
const alertWhere = (match: (alert: TrustAlert) => boolean) => waitUntil(() => alerts.find(match), { message: "the alert" });
const firstMailTo = (user: TestUser, subject: string) => waitUntil(() => mailTo(user, subject)[0], { message: `a mail "${subject}"` });

describe("verification", () => {
  test("an agent's report is recorded with its time, counts and an alert; no mail for a success", async () => {
    const world = await connectedUser();
    const counts = { "shop.orders": 12, "shop.customers": 3 };
    const backupId = await completeBackup(world, 2000, counts);
    const fresh = await getBackup(world.user, backupId);
    expect(fresh).toMatchObject({ status: "completed", verifiedAt: null, verification: null, anomaly: null });

    const before = Date.now();
    world.agent.send({ type: "backup.verified", backupId, verification: { status: "ok", namespaces: counts } });
    const verified = await waitUntil(async () => ((await getBackup(world.user, backupId)).verifiedAt ? getBackup(world.user, backupId) : undefined), {
      message: "the verification to be recorded",
    });
    expect(verified.verification).toEqual({ status: "ok", namespaces: counts });
    expect(Date.parse(verified.verifiedAt)).toBeGreaterThanOrEqual(before - 1000);
    // The list answers the same fields.
    const [listed] = (await server.call("GET", "/api/backups", { token: world.user.token })).body;
    expect(listed).toMatchObject({ id: backupId, verifiedAt: verified.verifiedAt, verification: { status: "ok" } });
    expect(await auditActions(world.user.id)).toContain("BACKUP_VERIFIED");
    expect(await alertWhere((alert) => alert.backupId === backupId)).toEqual({
      event: "backup.verified",
      organizationId: world.user.id,
      occurredAt: expect.any(String),
      backupId,
      restoreId: null,
      agentId: world.agent.agentId,
      databaseName: "shop",
      status: "ok",
      detail: "15 documents in 2 collections read back and decrypted",
    });
    await server.ctx.pendingWork.settled(); // mail goes out through the outbox, in the background
    expect(mailTo(world.user, "Backup verification failed")).toEqual([]);
  });

  test("an 'ok' whose counts differ from the dump is recorded as failed, mailed and alerted", async () => {
    const world = await connectedUser();
    const backupId = await completeBackup(world, 2000, { "shop.orders": 12, "shop.customers": 3 });
    world.agent.send({ type: "backup.verified", backupId, verification: { status: "ok", namespaces: { "shop.orders": 11 } } });
    const failed = await waitUntil(async () => ((await getBackup(world.user, backupId)).verification ? getBackup(world.user, backupId) : undefined), {
      message: "the verification to be recorded",
    });
    expect(failed.verification).toEqual({
      status: "failed",
      namespaces: { "shop.orders": 11 },
      error: "the stored file does not hold what was dumped: shop.customers is missing (3 documents expected); shop.orders holds 11 documents, 12 expected",
    });
    const mail = await firstMailTo(world.user, "Backup verification failed: shop");
    expect(mail!.text).toContain("shop.orders holds 11 documents, 12 expected");
    expect(mail!.text).toContain(`Backup id: ${backupId}.`);
    expect(await alertWhere((alert) => alert.backupId === backupId)).toMatchObject({ event: "backup.verification_failed", status: "failed" });
    expect(await auditActions(world.user.id)).toContain("BACKUP_VERIFICATION_FAILED");
  });

  test("a report on another user's backup changes nothing", async () => {
    const victim = await connectedUser();
    const backupId = await completeBackup(victim, 500, { "shop.a": 1 });
    const intruder = await connectedUser();
    intruder.agent.send({ type: "backup.verified", backupId, verification: { status: "failed", namespaces: {}, error: "forged" } });
    // Its own later report proves the intruder's was handled (messages of one agent are handled in order).
    const own = await completeBackup(intruder, 500, { "shop.a": 1 });
    intruder.agent.send({ type: "backup.verified", backupId: own, verification: { status: "ok", namespaces: { "shop.a": 1 } } });
    await waitUntil(async () => (await getBackup(intruder.user, own)).verifiedAt, { message: "the intruder's own report" });
    expect(await getBackup(victim.user, backupId)).toMatchObject({ verifiedAt: null, verification: null });
  });

  test("POST /verify asks the database's agent to read the backup back, with the dumped counts", async () => {
    const world = await connectedUser();
    const counts = { "shop.orders": 5 };
    const backupId = await completeBackup(world, 700, counts);
    const asked = await server.call("POST", `/api/backups/${backupId}/verify`, { token: world.user.token });
    expect(asked.status).toBe(202);
    expect(asked.body.message).toContain("Verification requested");
    // With the checksum recorded at upload, which the agent compares with the file it reads.
    const { sha256 } = await getBackup(world.user, backupId);
    expect(await world.agent.waitFor("verify")).toEqual({
      type: "verify",
      jobId: expect.any(String),
      backupId,
      databaseName: "shop",
      size: 700,
      expected: counts,
      sha256,
    });

    const stranger = await server.registerUser();
    expect((await server.call("POST", `/api/backups/${backupId}/verify`, { token: stranger.token })).status).toBe(404);
    await world.agent.disconnect();
    await waitUntil(async () => (await server.call("GET", "/api/settings/system-status", { token: world.user.token })).body.agents[0].status === "offline", {
      message: "the agent to be offline",
    });
    const offline = await server.call("POST", `/api/backups/${backupId}/verify`, { token: world.user.token });
    expect(offline.status).toBe(409);
    expect(offline.body).toMatchObject({ code: "AGENT_OFFLINE", message: expect.stringContaining('No agent is online for "shop"') });
  });
});

describe("anomalies and retention", () => {
  test("a size drop is flagged, mailed and alerted; retention keeps the last good backup until it is resolved", async () => {
    const world = await connectedUser();
    const counts = { "shop.orders": 1000, "shop.customers": 100 };
    const good: string[] = [];
    for (let i = 0; i < 3; i++) good.push(await completeBackup(world, 4000 + i * 10, counts));
    for (const id of good) expect((await getBackup(world.user, id)).anomaly).toBeNull();

    const dropped = await completeBackup(world, 1000, counts);
    const flagged = await getBackup(world.user, dropped);
    expect(flagged.anomaly).toEqual({ kind: "size_drop", detail: "1000 Bytes, under half the median of 3.92 KB of the previous 3 backups." });
    expect(flagged.anomalyResolvedAt).toBeNull();
    const mail = await firstMailTo(world.user, "Unusual backup: shop");
    expect(mail!.text).toContain("1000 Bytes, under half the median");
    expect(await alertWhere((alert) => alert.backupId === dropped)).toMatchObject({ event: "backup.anomaly", status: "size_drop", databaseName: "shop" });
    expect(await auditActions(world.user.id)).toContain("BACKUP_ANOMALY");

    // Everything is past a 3-day retention; the newest (the anomalous one) and the last good one stay.
    await server.ctx.db
      .update(backups)
      .set({ createdAt: new Date(Date.now() - 10 * 24 * 3_600_000) })
      .where(eq(backups.id, good[0]!));
    await server.ctx.db
      .update(backups)
      .set({ createdAt: new Date(Date.now() - 9 * 24 * 3_600_000) })
      .where(eq(backups.id, good[1]!));
    await server.ctx.db
      .update(backups)
      .set({ createdAt: new Date(Date.now() - 8 * 24 * 3_600_000) })
      .where(eq(backups.id, good[2]!));
    await server.ctx.db
      .update(backups)
      .set({ createdAt: new Date(Date.now() - 7 * 24 * 3_600_000) })
      .where(eq(backups.id, dropped));
    expect(await applyRetention(server.ctx, { organizationId: world.user.id })).toBe(2);
    const left = async () =>
      (await server.ctx.db.select({ id: backups.id }).from(backups).where(eq(backups.organizationId, world.user.id))).map((row) => row.id).sort();
    expect(await left()).toEqual([good[2]!, dropped].sort());

    const resolved = await server.call("POST", `/api/backups/${dropped}/anomaly/resolve`, { token: world.user.token });
    expect(resolved.status).toBe(200);
    expect(Date.parse((await getBackup(world.user, dropped)).anomalyResolvedAt)).toBeGreaterThan(0);
    expect(await applyRetention(server.ctx, { organizationId: world.user.id })).toBe(1);
    expect(await left()).toEqual([dropped]);
    expect((await server.call("POST", `/api/backups/${dropped}/anomaly/resolve`, { token: (await server.registerUser()).token })).status).toBe(404);
  });

  test("a collection gone and a document count halved are flagged with the most specific kind first", async () => {
    const world = await connectedUser();
    await completeBackup(world, 3000, { "shop.orders": 1000, "shop.audit": 50 });
    const gone = await completeBackup(world, 3000, { "shop.orders": 400 });
    expect((await getBackup(world.user, gone)).anomaly).toEqual({
      kind: "collection_missing",
      detail: "a collection of the previous backup is gone: shop.audit. 400 documents, under half the median of 1,050 documents of the previous backup.",
    });
    const quiet = await completeBackup(world, 3000, { "shop.orders": 400 });
    expect((await getBackup(world.user, quiet)).anomaly).toBeNull();
    const noAnomaly = await server.call("POST", `/api/backups/${quiet}/anomaly/resolve`, { token: world.user.token });
    expect(noAnomaly.status).toBe(409);
  });
});

describe("restore drills", () => {
  test("two drills of one database asked at the same instant: one starts, the other is told one is running", async () => {
    const world = await connectedUser("twice");
    await completeBackup(world, 700, { "x.a": 1 }, "twice");
    const ask = () => server.call("POST", "/api/drills", { token: world.user.token, body: { databaseName: "twice" } });
    const answers = await Promise.all([ask(), ask()]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409]);
    expect(answers.find((answer) => answer.status === 409)!.body.message).toBe('A drill of "twice" is already running.');
  });

  test("POST /api/drills restores the latest backup into <name>_dbvault_drill; the report lands in Restore History", async () => {
    const world = await connectedUser("Shop Main.eu");
    const noBackup = await server.call("POST", "/api/drills", { token: world.user.token, body: { databaseName: "Shop Main.eu" } });
    expect(noBackup.status).toBe(409);
    expect(noBackup.body.message).toBe('"Shop Main.eu" has no completed backup to drill yet. Back it up first.');
    await completeBackup(world, 900, { "x.a": 2 }, "Shop Main.eu");
    const latest = await completeBackup(world, 901, { "x.a": 2 }, "Shop Main.eu");

    const started = await server.call("POST", "/api/drills", { token: world.user.token, body: { databaseName: "Shop Main.eu" } });
    expect(started.status).toBe(201);
    expect(started.body.restore).toMatchObject({
      kind: "drill",
      status: "pending",
      backupId: latest,
      targetDatabase: "Shop_Main_eu_dbvault_drill",
      drill: null,
    });
    const command = await world.agent.waitFor("drill");
    expect(command).toEqual({
      type: "drill",
      restoreId: started.body.restore.id,
      backupId: latest,
      databaseName: "Shop Main.eu",
      size: 901,
      scratchDatabase: "Shop_Main_eu_dbvault_drill",
      // Its job in the ledger (modules/agent-jobs/), acknowledged with job.taken.
      jobId: expect.any(String),
    });
    const again = await server.call("POST", "/api/drills", { token: world.user.token, body: { databaseName: "Shop Main.eu" } });
    expect(again.status).toBe(409);

    const report = { durationMs: 4200, documents: { expected: 2, restored: 2 }, indexes: { expected: 1, found: 1 }, scratchDropped: true };
    world.agent.send({ type: "restore.started", restoreId: command.restoreId });
    world.agent.send({
      type: "restore.completed",
      restoreId: command.restoreId,
      stats: { "Shop_Main_eu_dbvault_drill.a": { restored: 2, failed: 0 } },
      drill: report,
    });
    const finished = await waitUntil(
      async () => {
        const [row] = (await server.call("GET", "/api/backups/restores/all", { token: world.user.token })).body;
        return row.status === "completed" ? row : undefined;
      },
      { message: "the drill to complete" },
    );
    expect(finished).toMatchObject({ kind: "drill", drill: report, completedAt: expect.any(String) });
    const actions = await auditActions(world.user.id);
    expect(actions).toEqual(expect.arrayContaining(["DRILL_REQUESTED", "DRILL_COMPLETED"]));
    expect(actions).not.toContain("RESTORE_COMPLETED");
    expect(await alertWhere((alert) => alert.restoreId === command.restoreId)).toMatchObject({
      event: "drill.completed",
      detail: "Restored 2 of 2 documents in 1 collection(s) with 1 of 1 indexes into Shop_Main_eu_dbvault_drill in 4 s; the scratch database was dropped.",
    });
    await server.ctx.pendingWork.settled(); // mail goes out through the outbox, in the background
    expect(mailTo(world.user, "Restore drill")).toEqual([]);
    expect(mailTo(world.user, "Restore completed")).toEqual([]);
  });

  test("a failed drill is mailed with the agent's reason", async () => {
    const world = await connectedUser();
    await completeBackup(world, 900, { "shop.a": 2 });
    const started = await server.call("POST", "/api/drills", { token: world.user.token, body: { databaseName: "shop" } });
    const { restoreId } = await world.agent.waitFor("drill");
    world.agent.send({ type: "restore.failed", restoreId, error: "drill failed: chunk 2 of the backup failed authentication" });
    await waitUntil(() => mailTo(world.user, "Restore drill failed: shop")[0], { message: "the drill failure mail" });
    const [mail] = mailTo(world.user, "Restore drill failed: shop");
    expect(mail!.text).toContain("Reason: drill failed: chunk 2 of the backup failed authentication");
    expect(mail!.text).toContain(`Drill id: ${started.body.restore.id}. Your database itself was not touched.`);
    expect(await auditActions(world.user.id)).toContain("DRILL_FAILED");
  });

  test("scheduled drills: due users are claimed once across racing runs, and moved a week on", async () => {
    const world = await connectedUser();
    await completeBackup(world, 900, { "shop.a": 2 });
    await server.call("PUT", "/api/settings", { token: world.user.token, body: { drillFrequency: "weekly" } });
    expect(await runDueDrills(server.ctx)).toBe(0); // the first is a week away
    await server.ctx.db
      .update(settings)
      .set({ nextDrillAt: new Date(Date.now() - 1000) })
      .where(eq(settings.organizationId, world.user.id));
    await Promise.all([runDueDrills(server.ctx), runDueDrills(server.ctx), runDueDrills(server.ctx)]);
    const command = await world.agent.waitFor("drill");
    expect(command.scratchDatabase).toBe("shop_dbvault_drill");
    expect(world.agent.received.filter((message) => message.type === "drill")).toEqual([]);
    const requested = await server.ctx.db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.organizationId, world.user.id), eq(auditLogs.action, "DRILL_REQUESTED")));
    expect(requested.map((row) => row.details.trigger)).toEqual(["scheduled"]);
    const [row] = await server.ctx.db.select().from(settings).where(eq(settings.organizationId, world.user.id));
    expect(row!.nextDrillAt!.getTime()).toBeGreaterThan(Date.now() + 167 * 3_600_000);
  });
});
