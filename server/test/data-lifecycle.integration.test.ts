// Deleting things while work still uses them: a backup deleted (by its user or by retention)
// while a restore or a drill reads it, and an account deleted by an admin while its agent is
// connected and uploading. Over real HTTP and WebSockets with scripted agents.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { agents, auditLogs, backups, databases, restores } from "@db/schema";
import { AGENT_REMOVED_CLOSE_CODE, agentApi } from "@protocol/agent-protocol";
import { backupStorage } from "../src/modules/stored-files/keys";
import { applyRetention } from "../src/modules/retention/service";
import type { FileStorage } from "../src/storage/file-storage";
import { stagedUploadPath } from "../src/storage/file-uploads";
import { waitUntil } from "../../testkit/wait-until";
import { startTestServer, type TestServer, type TestUser } from "./harness";
import { registerScriptedAgent, type ScriptedAgent } from "./scripted-agent";

let server: TestServer;
let base: string;

beforeAll(async () => {
  server = await startTestServer();
  base = server.listen();
});
afterAll(() => server.close());

const HOUR = 3_600_000;

async function userWithAgent(databaseNames = ["orders"]) {
  const user = await server.registerUser();
  const agent = await registerScriptedAgent(base, user.apiKey, databaseNames);
  await agent.connect();
  return { user, agent };
}

async function completedBackup(user: TestUser, agent: ScriptedAgent, bytes: Uint8Array, databaseName = "orders") {
  const created = await server.call("POST", "/api/backups", { token: user.token, body: { databaseName } });
  expect(created.status).toBe(201);
  const { backupId } = await agent.waitFor("backup");
  expect((await agent.upload(backupId, bytes)).status).toBe(200);
  // Moved back past the plan's one manual backup per period, so the test may take another.
  await server.ctx.db
    .update(backups)
    .set({ createdAt: new Date(Date.now() - 25 * HOUR) })
    .where(eq(backups.id, backupId));
  return backupId;
}

/** An agent socket of our own (it replaces the scripted agent's), to see how the server closes it. */
async function openAgentSocket(agent: ScriptedAgent) {
  const socket = new WebSocket(`${base.replace(/^http/, "ws")}${agentApi.socket}`, { headers: agent.headers() } as unknown as string[]);
  const closed = new Promise<{ code: number; reason: string }>((resolve) => (socket.onclose = (event) => resolve({ code: event.code, reason: event.reason })));
  await new Promise<void>((resolve) => (socket.onmessage = (event) => JSON.parse(String(event.data)).type === "welcome" && resolve()));
  return { closed };
}

const storageUsed = async (user: TestUser) => (await server.call("GET", "/api/user/profile", { token: user.token })).body.storageUsed as number;
const backupFileExists = (user: TestUser, backupId: string) => server.ctx.storage.stat(backupStorage.file(user.id, backupId));

describe("a backup deleted while a restore or drill reads it", () => {
  test("the user's delete is refused while a restore of it runs, and allowed once it finished", async () => {
    const { user, agent } = await userWithAgent();
    const bytes = randomBytes(30_000);
    const backupId = await completedBackup(user, agent, bytes);
    expect((await server.call("POST", `/api/backups/${backupId}/restore`, { token: user.token, body: { databaseName: "orders" } })).status).toBe(201);
    const { restoreId } = await agent.waitFor("restore");

    const refused = await server.call("DELETE", `/api/backups/${backupId}`, { token: user.token });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe("This backup is being restored. Wait until the restore finishes, then delete it.");
    // The agent can still read the whole file, and nothing was released or audited.
    const download = await fetch(`${base}${agentApi.download(backupId)}`, { headers: agent.headers() });
    expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);
    expect(await storageUsed(user)).toBe(bytes.byteLength);
    const audit = await server.ctx.db.select().from(auditLogs).where(eq(auditLogs.organizationId, user.id));
    expect(audit.map((row) => row.action)).not.toContain("BACKUP_DELETED_MANUAL");

    agent.send({ type: "restore.completed", restoreId, stats: { "orders.items": { restored: 1, failed: 0 } } });
    await waitUntil(async () => (await server.ctx.db.select().from(restores).where(eq(restores.id, restoreId)))[0]?.status === "completed", {
      message: "the restore to be recorded completed",
    });
    expect((await server.call("DELETE", `/api/backups/${backupId}`, { token: user.token })).status).toBe(200);
    expect(await backupFileExists(user, backupId)).toBeNull();
    expect(await storageUsed(user)).toBe(0);
  });

  test("the user's delete is refused while a drill reads it", async () => {
    const { user, agent } = await userWithAgent();
    const backupId = await completedBackup(user, agent, randomBytes(1000));
    expect((await server.call("POST", "/api/drills", { token: user.token, body: { databaseName: "orders" } })).status).toBe(201);
    await agent.waitFor("drill");
    const refused = await server.call("DELETE", `/api/backups/${backupId}`, { token: user.token });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe("A restore drill is reading this backup. Wait until the drill finishes, then delete it.");
    expect(await backupFileExists(user, backupId)).not.toBeNull();
  });

  test("retention keeps an expired backup while a restore of it runs, and deletes it at the next pass after", async () => {
    const { user, agent } = await userWithAgent();
    const old = await completedBackup(user, agent, randomBytes(2000));
    const newest = await completedBackup(user, agent, randomBytes(3000));
    // The old one is past the default 3-day retention; the newest is always kept.
    await server.ctx.db
      .update(backups)
      .set({ createdAt: new Date(Date.now() - 10 * 24 * HOUR) })
      .where(eq(backups.id, old));
    await server.ctx.db
      .update(backups)
      .set({ createdAt: new Date(Date.now() - 9 * 24 * HOUR) })
      .where(eq(backups.id, newest));
    expect((await server.call("POST", `/api/backups/${old}/restore`, { token: user.token, body: { databaseName: "orders" } })).status).toBe(201);
    const { restoreId } = await agent.waitFor("restore");

    expect(await applyRetention(server.ctx, { organizationId: user.id })).toBe(0);
    expect(await backupFileExists(user, old)).not.toBeNull();
    expect((await server.ctx.db.select().from(restores).where(eq(restores.id, restoreId)))[0]?.backupId).toBe(old);

    agent.send({ type: "restore.failed", restoreId, error: "wrong key" });
    await waitUntil(async () => (await server.ctx.db.select().from(restores).where(eq(restores.id, restoreId)))[0]?.status === "failed", {
      message: "the restore to be recorded failed",
    });
    expect(await applyRetention(server.ctx, { organizationId: user.id })).toBe(1);
    expect(await backupFileExists(user, old)).toBeNull();
    expect(await storageUsed(user)).toBe(3000);
  });
});

describe("an account deleted by an admin", () => {
  test("its agent is told to stop, and a backup it was uploading leaves no staged file behind", async () => {
    const admin = await server.registerAdmin();
    const { user, agent } = await userWithAgent();
    await completedBackup(user, agent, randomBytes(4000));
    expect((await server.call("POST", "/api/backups", { token: user.token, body: { databaseName: "orders" } })).status).toBe(201);
    const { backupId } = await agent.waitFor("backup");
    expect((await agent.uploadPart(backupId, 0, randomBytes(5000))).status).toBe(200);
    const staged = stagedUploadPath((server.ctx.storage as FileStorage).root, backupId);
    expect(existsSync(staged)).toBe(true);

    const live = await openAgentSocket(agent);
    expect((await server.call("DELETE", `/api/admin/users/${user.id}`, { token: admin.token })).status).toBe(200);

    const close = await Promise.race([live.closed, Bun.sleep(10_000).then(() => ({ code: 0, reason: "still open after 10 s" }))]);
    expect(close.code).toBe(AGENT_REMOVED_CLOSE_CODE);
    expect(close.reason).toBe("This DBVault account was deleted.");
    expect(existsSync(staged)).toBe(false);
    expect(existsSync(join((server.ctx.storage as FileStorage).root, backupStorage.userPrefix(user.id)))).toBe(false);
    expect(await server.ctx.db.select().from(agents).where(eq(agents.organizationId, user.id))).toEqual([]);
    expect(await server.ctx.db.select().from(databases).where(eq(databases.organizationId, user.id))).toEqual([]);
    expect(await server.ctx.db.select().from(backups).where(eq(backups.organizationId, user.id))).toEqual([]);
    // A part sent after the deletion is refused (the agent is gone: 410, so it stops) and stores nothing.
    expect((await agent.uploadPart(backupId, 1, randomBytes(5000))).status).toBe(410);
    expect(existsSync(staged)).toBe(false);
  });
});
