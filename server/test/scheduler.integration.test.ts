// Scheduled backups, retention and stalled-operation sweeping against a real database and a
// scripted agent on a real socket.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { auditLogs, backups, databases, organizations } from "@db/schema";
import { applyRetention } from "../src/modules/retention/service";
import { runDueBackups } from "../src/modules/scheduler/service";
import { waitUntil } from "../../testkit/wait-until";
import { announceAgentDisconnection, startTestServer, type TestServer } from "./harness";
import { registerScriptedAgent } from "./scripted-agent";

const HOUR = 3_600_000;
let server: TestServer;
let base: string;

beforeAll(async () => {
  server = await startTestServer();
  base = server.listen();
});
afterAll(() => server.close());

async function userWithDatabase(name = "orders") {
  const user = await server.registerUser();
  const agent = await registerScriptedAgent(base, user.apiKey, [name]);
  const [database] = await server.ctx.db
    .select()
    .from(databases)
    .where(and(eq(databases.organizationId, user.id), eq(databases.name, name)));
  return { user, agent, database: database! };
}

const backupsOf = (userId: string) => server.ctx.db.select().from(backups).where(eq(backups.organizationId, userId));

describe("scheduled backups", () => {
  test("a newly registered database is due at once; a run starts it once and schedules the next", async () => {
    const { user, agent, database } = await userWithDatabase();
    await agent.connect();
    expect(database.nextBackupAt!.getTime()).toBeLessThanOrEqual(Date.now());
    await runDueBackups(server.ctx);
    const command = await agent.waitFor("backup");
    const [backup] = await backupsOf(user.id);
    expect(backup).toMatchObject({ id: command.backupId, type: "auto", status: "pending" });
    const [after] = await server.ctx.db.select().from(databases).where(eq(databases.id, database.id));
    expect(after!.nextBackupAt!.getTime()).toBeGreaterThan(Date.now() + 23 * HOUR);
    await runDueBackups(server.ctx);
    expect(await backupsOf(user.id)).toHaveLength(1);
  });

  test("after a long outage a missed slot runs once, not once per missed day", async () => {
    const { user, agent, database } = await userWithDatabase();
    await agent.connect();
    await server.ctx.db
      .update(databases)
      .set({ nextBackupAt: new Date(Date.now() - 72 * HOUR) })
      .where(eq(databases.id, database.id));
    await runDueBackups(server.ctx);
    await runDueBackups(server.ctx);
    expect(await backupsOf(user.id)).toHaveLength(1);
    const [after] = await server.ctx.db.select().from(databases).where(eq(databases.id, database.id));
    expect(after!.nextBackupAt!.getTime()).toBeGreaterThan(Date.now() + 23 * HOUR);
  });

  test("runs racing for the same due database start one backup", async () => {
    const { user, agent } = await userWithDatabase();
    await agent.connect();
    await Promise.all([runDueBackups(server.ctx), runDueBackups(server.ctx), runDueBackups(server.ctx)]);
    expect(await backupsOf(user.id)).toHaveLength(1);
  });

  test("a database waits for its agent's first connection: no backup, no failure, no mail before it", async () => {
    const { user, agent, database } = await userWithDatabase("billing");
    await runDueBackups(server.ctx);
    expect(await backupsOf(user.id)).toHaveLength(0);
    await server.ctx.pendingWork.settled(); // mail goes out through the outbox, in the background
    // The only mail is the notice that an agent was set up with the account's key (issue 28).
    expect(server.sentMail.filter((m) => m.to === user.email).map((m) => m.subject)).toEqual(["A new DBVault agent was set up"]);
    // Still due: the first backup runs at the first tick after the agent connects.
    const [waiting] = await server.ctx.db.select().from(databases).where(eq(databases.id, database.id));
    expect(waiting!.nextBackupAt!.getTime()).toBeLessThanOrEqual(Date.now());
    await agent.connect();
    await runDueBackups(server.ctx);
    expect(await agent.waitFor("backup")).toMatchObject({ databaseName: "billing" });
    expect((await backupsOf(user.id)).map((b) => b.type)).toEqual(["auto"]);
  });

  test("with its agent offline a slot is skipped, not failed, with one notice per outage", async () => {
    const { user, agent, database } = await userWithDatabase("billing");
    await agent.connect();
    await agent.disconnect();
    await waitUntil(async () => (await server.call("GET", "/api/settings/system-status", { token: user.token })).body.agents[0].status === "offline", {
      message: "the agent to be offline",
    });
    await announceAgentDisconnection(server, agent.agentId); // an outage past the grace period
    const skippedMail = () => server.sentMail.filter((m) => m.to === user.email && m.subject === "Scheduled backups paused: agent test-agent is offline");
    for (let slot = 0; slot < 3; slot++) {
      await server.ctx.db
        .update(databases)
        .set({ nextBackupAt: new Date(Date.now() - HOUR) })
        .where(eq(databases.id, database.id));
      await runDueBackups(server.ctx);
    }
    expect(await backupsOf(user.id)).toHaveLength(0);
    await server.ctx.pendingWork.settled(); // mail goes out through the outbox, in the background
    expect(skippedMail()).toHaveLength(1);
    expect(skippedMail()[0]!.text).toContain('The scheduled backup of "billing" was skipped');
    const skips = await server.ctx.db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.organizationId, user.id), eq(auditLogs.action, "BACKUP_SKIPPED")));
    expect(skips).toHaveLength(1);
    expect(skips[0]!.details).toMatchObject({ databases: ["billing"], reason: "agent offline" });
    // The skipped slot moved on to the next one (the last slot was an hour ago: 23 hours from now).
    const [after] = await server.ctx.db.select().from(databases).where(eq(databases.id, database.id));
    expect(after!.nextBackupAt!.getTime()).toBeGreaterThan(Date.now() + 22 * HOUR);

    // Back online, then a new outage: told again, once.
    await agent.connect();
    await agent.disconnect();
    await waitUntil(async () => (await server.call("GET", "/api/settings/system-status", { token: user.token })).body.agents[0].status === "offline", {
      message: "the agent to be offline again",
    });
    await announceAgentDisconnection(server, agent.agentId);
    await server.ctx.db
      .update(databases)
      .set({ nextBackupAt: new Date(Date.now() - HOUR) })
      .where(eq(databases.id, database.id));
    await runDueBackups(server.ctx);
    await server.ctx.pendingWork.settled();
    expect(skippedMail()).toHaveLength(2);
    expect(await backupsOf(user.id)).toHaveLength(0);
  });

  test("disabled databases are not backed up; a frequency change moves the next slot", async () => {
    const { user, database } = await userWithDatabase();
    await server.ctx.db.update(databases).set({ isActive: false }).where(eq(databases.id, database.id));
    await runDueBackups(server.ctx);
    expect(await backupsOf(user.id)).toHaveLength(0);
    await server.ctx.db.update(databases).set({ isActive: true }).where(eq(databases.id, database.id));
    await server.call("PUT", "/api/settings", { token: user.token, body: { frequency: "weekly" } });
    const [after] = await server.ctx.db.select().from(databases).where(eq(databases.id, database.id));
    expect(after!.nextBackupAt!.getTime()).toBeGreaterThan(Date.now() + 167 * HOUR);
  });
});

describe("retention", () => {
  test("deletes backups older than the retention, keeping the newest completed one", async () => {
    const { user, agent } = await userWithDatabase();
    await agent.connect();
    await server.ctx.db.update(organizations).set({ storageUsed: 0 }).where(eq(organizations.id, user.id));
    // Three real completed backups, then aged: 10 days, 5 days and 1 hour old. Retention is 3 days.
    const ids: string[] = [];
    for (const age of [240, 120, 1]) {
      await server.ctx.db
        .update(backups)
        .set({ createdAt: new Date(Date.now() - 1000 * HOUR) })
        .where(eq(backups.organizationId, user.id));
      await server.call("POST", "/api/backups", { token: user.token, body: { databaseName: "orders" } });
      const { backupId } = await agent.waitFor("backup");
      expect((await agent.upload(backupId, randomBytes(1000))).status).toBe(200);
      ids.push(backupId);
      await server.ctx.db
        .update(backups)
        .set({ createdAt: new Date(Date.now() - age * HOUR) })
        .where(eq(backups.id, backupId));
    }
    expect((await server.call("GET", "/api/user/profile", { token: user.token })).body.storageUsed).toBe(3000);
    const deleted = await applyRetention(server.ctx, { organizationId: user.id });
    expect(deleted).toBe(2);
    expect((await backupsOf(user.id)).map((b) => b.id)).toEqual([ids[2]!]);
    expect((await server.call("GET", "/api/user/profile", { token: user.token })).body.storageUsed).toBe(1000);
    const logs = await server.ctx.db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.organizationId, user.id), eq(auditLogs.action, "BACKUP_DELETED_AUTO")));
    expect(logs).toHaveLength(2);
    expect(logs[0]!.details).toMatchObject({ type: "auto" });
  });

  test("never deletes the only backup of a database, however old", async () => {
    const { user, agent } = await userWithDatabase();
    await agent.connect();
    await server.call("POST", "/api/backups", { token: user.token, body: { databaseName: "orders" } });
    const { backupId } = await agent.waitFor("backup");
    await agent.upload(backupId, randomBytes(10));
    await server.ctx.db
      .update(backups)
      .set({ createdAt: new Date(Date.now() - 5000 * HOUR) })
      .where(eq(backups.id, backupId));
    expect(await applyRetention(server.ctx, { organizationId: user.id })).toBe(0);
    expect(await backupsOf(user.id)).toHaveLength(1);
  });
});
