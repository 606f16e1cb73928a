// Removing an agent (Settings → Agents → Remove Agent, or the admin console): the agent is gone
// after a reload, its token stops working, its live socket is told to stop (and so is a later
// reconnection), unfinished work fails with a reason, and its past backups stay.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { auditLogs, backups } from "@db/schema";
import { AGENT_REMOVED_CLOSE_CODE, agentApi } from "@protocol/agent-protocol";
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

/** An agent socket of our own, to see how the server closes it. */
async function openAgentSocket(agent: ScriptedAgent) {
  const socket = new WebSocket(`${base.replace(/^http/, "ws")}${agentApi.socket}`, { headers: agent.headers() } as unknown as string[]);
  const closed = new Promise<{ code: number; reason: string }>((resolve) => (socket.onclose = (event) => resolve({ code: event.code, reason: event.reason })));
  const welcomed = new Promise<boolean>((resolve) => {
    socket.onmessage = (event) => resolve(JSON.parse(String(event.data)).type === "welcome");
    void closed.then(() => resolve(false));
  });
  return { socket, closed, welcomed };
}

async function userWithAgent(databases = ["orders"]) {
  const user = await server.registerUser();
  const agent = await registerScriptedAgent(base, user.apiKey, databases);
  return { user, agent };
}

const removeAs = (user: TestUser, agentId: string) => server.call("DELETE", `/api/agents/${agentId}`, { token: user.token });
const agentsOf = async (user: TestUser) =>
  (await server.call("GET", "/api/settings/system-status", { token: user.token })).body.agents as { id: string; status: string }[];

describe("DELETE /api/agents/{id}", () => {
  test("removes the agent for good: gone after a reload, socket told to stop, token revoked, audited", async () => {
    const { user, agent } = await userWithAgent();
    const live = await openAgentSocket(agent);
    expect(await live.welcomed).toBe(true);
    await waitUntil(async () => (await agentsOf(user))[0]?.status === "active", { message: "the agent to be online" });

    const res = await removeAs(user, agent.agentId);
    expect(res.status).toBe(200);
    expect(res.body.message).toBe('The agent "test-agent" was removed. Its backups are kept.');

    const closed = await live.closed;
    expect(closed.code).toBe(AGENT_REMOVED_CLOSE_CODE);
    expect(closed.reason).toContain("This agent was removed from DBVault");
    expect(await agentsOf(user)).toEqual([]);

    // A reconnection is let in only to be told the same, so the agent stops instead of retrying.
    const again = await openAgentSocket(agent);
    expect(await again.welcomed).toBe(false);
    expect((await again.closed).code).toBe(AGENT_REMOVED_CLOSE_CODE);
    // Its HTTP calls are refused with the reason.
    const call = await fetch(`${base}${agentApi.databases}`, {
      method: "POST",
      headers: { ...agent.headers(), "content-type": "application/json" },
      body: JSON.stringify({ name: "more" }),
    });
    expect(call.status).toBe(410);
    expect((await call.json()).message).toBe("This agent was removed from DBVault: run dbvault-agent setup --force to connect this machine again.");

    const audit = await server.ctx.db.select().from(auditLogs).where(eq(auditLogs.organizationId, user.id));
    expect(audit.find((row) => row.action === "AGENT_REMOVED")?.details).toMatchObject({ agentId: agent.agentId, name: "test-agent", removedBy: user.id });
    expect((await removeAs(user, agent.agentId)).status).toBe(404);
  });

  test("keeps past backups, fails the one in progress with a reason", async () => {
    const { user, agent } = await userWithAgent();
    await agent.connect();
    await server.call("POST", "/api/backups", { token: user.token, body: { databaseName: "orders" } });
    const first = await agent.waitFor("backup");
    expect((await agent.upload(first.backupId, randomBytes(5000))).status).toBe(200);
    // A second one, started and not finished (the first moved back past the plan's manual-backup interval).
    await server.ctx.db
      .update(backups)
      .set({ createdAt: new Date(Date.now() - 25 * 3_600_000) })
      .where(eq(backups.id, first.backupId));
    const pending = await server.call("POST", "/api/backups", { token: user.token, body: { databaseName: "orders" } });
    expect(pending.status).toBe(201);

    expect((await removeAs(user, agent.agentId)).status).toBe(200);
    const list = (await server.call("GET", "/api/backups", { token: user.token })).body as { _id: string; status: string; error?: string }[];
    const byId = Object.fromEntries(list.map((b) => [b._id, b]));
    expect(byId[first.backupId]?.status).toBe("completed");
    expect(byId[pending.body._id]?.status).toBe("failed");
    const download = await fetch(`${base}/api/backups/${first.backupId}/download`, { headers: { authorization: `Bearer ${user.token}` } });
    expect(download.status).toBe(200);
  });

  test("another user cannot remove it (404), nor an admin through this route; the admin console's route does", async () => {
    const { user, agent } = await userWithAgent();
    const stranger = await server.registerUser();
    expect((await removeAs(stranger, agent.agentId)).status).toBe(404);
    expect(await agentsOf(user)).toHaveLength(1);
    const admin = await server.registerAdmin();
    expect((await removeAs(admin, agent.agentId)).status).toBe(404);
    expect(await agentsOf(user)).toHaveLength(1);
    expect((await server.call("DELETE", `/api/admin/agents/${agent.agentId}`, { token: admin.token })).status).toBe(200);
    expect(await agentsOf(user)).toEqual([]);
  });

  test("needs a session", async () => {
    const { agent } = await userWithAgent();
    expect((await fetch(`${base}/api/agents/${agent.agentId}`, { method: "DELETE" })).status).toBe(401);
  });
});
