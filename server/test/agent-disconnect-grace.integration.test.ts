// A closed agent socket is announced (AGENT_DISCONNECTED, "Agent disconnected" mail, agent.offline)
// only once it stays closed past the grace period: a server stopped or restarted closes every
// socket, and agents that are back within seconds must not alarm anyone.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { auditLogs } from "@db/schema";
import { DISCONNECT_GRACE_MS, sweepAgentStatuses } from "../src/modules/agents/service";
import { runDueBackups } from "../src/modules/scheduler/service";
import { waitUntil } from "../../testkit/wait-until";
import { type StoppedClock, startTestServer, stopServerClock, type TestServer, type TestUser } from "./harness";
import { registerScriptedAgent } from "./scripted-agent";

let server: TestServer;
let base: string;
let clock: StoppedClock;

beforeAll(async () => {
  server = await startTestServer();
  base = server.listen();
  clock = stopServerClock(server);
});
afterAll(() => server.close());

const disconnections = async (user: TestUser) =>
  (
    await server.ctx.db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.organizationId, user.id), eq(auditLogs.action, "AGENT_DISCONNECTED")))
  ).length;

async function mailsAbout(user: TestUser, name: string) {
  await server.ctx.pendingWork.settled();
  return server.sentMail.filter((mail) => mail.to === user.email && mail.subject === `Agent disconnected: ${name}`).length;
}

async function agentStatus(user: TestUser) {
  return (await server.call("GET", "/api/settings/system-status", { token: user.token })).body.agents[0]?.status;
}

test("an agent back within the grace period (a server restart) is never announced as disconnected", async () => {
  const user = await server.registerUser();
  const agent = await registerScriptedAgent(base, user.apiKey, ["shop"], "restart-survivor");
  await agent.connect();
  await waitUntil(async () => (await agentStatus(user)) === "active", { message: "the agent to be online" });

  await agent.disconnect(); // as the server's stop closes it
  await waitUntil(async () => (await agentStatus(user)) === "offline", { message: "the agent to show as offline at once" });
  clock.move(DISCONNECT_GRACE_MS - 1_000);
  await sweepAgentStatuses(server.ctx);
  expect(await disconnections(user)).toBe(0);

  await agent.connect();
  await waitUntil(async () => (await agentStatus(user)) === "active", { message: "the agent to be back" });
  clock.move(DISCONNECT_GRACE_MS + 1_000); // past the grace, not yet past the heartbeat timeout
  await sweepAgentStatuses(server.ctx);
  expect(await disconnections(user)).toBe(0);
  expect(await mailsAbout(user, "restart-survivor")).toBe(0);
  await agent.disconnect();
});

test("an agent still gone after the grace period is announced once, by mail and in the audit log", async () => {
  const user = await server.registerUser();
  const agent = await registerScriptedAgent(base, user.apiKey, ["shop"], "really-gone");
  await agent.connect();
  await waitUntil(async () => (await agentStatus(user)) === "active", { message: "the agent to be online" });
  await agent.disconnect();
  await waitUntil(async () => (await agentStatus(user)) === "offline", { message: "the agent to show as offline" });

  clock.move(DISCONNECT_GRACE_MS + 1_000);
  await sweepAgentStatuses(server.ctx);
  expect(await disconnections(user)).toBe(1);
  expect(await mailsAbout(user, "really-gone")).toBe(1);
  // Later passes do not announce it again.
  clock.move(DISCONNECT_GRACE_MS * 2);
  await sweepAgentStatuses(server.ctx);
  expect(await disconnections(user)).toBe(1);
  expect(await mailsAbout(user, "really-gone")).toBe(1);
});

test("a scheduled slot due while its agent is within the grace period waits for it, instead of being skipped with a notice", async () => {
  const user = await server.registerUser();
  const agent = await registerScriptedAgent(base, user.apiKey, ["shop"], "slot-keeper");
  await agent.connect();
  await waitUntil(async () => (await agentStatus(user)) === "active", { message: "the agent to be online" });
  await agent.disconnect(); // the server restarts just as the slot comes due
  await waitUntil(async () => (await agentStatus(user)) === "offline", { message: "the agent to show as offline" });
  clock.move(1_000);
  await runDueBackups(server.ctx);
  const skipped = await server.ctx.db
    .select()
    .from(auditLogs)
    .where(and(eq(auditLogs.organizationId, user.id), eq(auditLogs.action, "BACKUP_SKIPPED")));
  expect(skipped).toEqual([]);
  await server.ctx.pendingWork.settled();
  expect(server.sentMail.filter((mail) => mail.to === user.email && mail.subject.startsWith("Scheduled backups paused"))).toEqual([]);

  await agent.connect();
  await waitUntil(async () => (await agentStatus(user)) === "active", { message: "the agent to be back" });
  expect(await runDueBackups(server.ctx)).toBe(1);
  expect((await agent.waitFor("backup")).databaseName).toBe("shop");
  await agent.disconnect();
});
