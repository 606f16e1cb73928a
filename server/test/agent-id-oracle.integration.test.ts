// Agent ids cannot be found by guessing (issue 41): an unknown id and a known id with a wrong
// token get the same answer, on the HTTP routes and the socket. Only a removed agent presenting
// its own token is told it was removed (410, close code AGENT_REMOVED_CLOSE_CODE), so it stops
// for good; that holds for an agent removed on its own, with its account, or with its team.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { removedAgents } from "@db/schema";
import { AGENT_REMOVED_CLOSE_CODE, AgentHeaders, agentApi } from "@protocol/agent-protocol";
import { startTestServer, type TestServer, type TestUser } from "./harness";
import { registerScriptedAgent } from "./scripted-agent";

let server: TestServer;
let base: string;

beforeAll(async () => {
  server = await startTestServer();
  base = server.listen();
});
afterAll(() => server.close());

const credentials = (agentId: string, agentToken: string) => ({ [AgentHeaders.agentId]: agentId, [AgentHeaders.agentToken]: agentToken });

/** An agent route (adding a database name) called with these credentials: status and body. */
async function callAs(headers: Record<string, string>) {
  const res = await fetch(`${base}${agentApi.databases}`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify({ name: "more" }),
  });
  return { status: res.status, body: await res.text() };
}

/** The agent socket's upgrade with these credentials: the handshake's status, or the close code. */
async function socketAs(headers: Record<string, string>) {
  const socket = new WebSocket(`${base.replace(/^http/, "ws")}${agentApi.socket}`, { headers } as unknown as string[]);
  return new Promise<{ opened: boolean; code: number }>((resolve) => {
    let opened = false;
    socket.onopen = () => (opened = true);
    socket.onclose = (event) => resolve({ opened, code: event.code });
  });
}

/** The upgrade request's HTTP answer (a refused handshake), status and body. */
async function upgradeAs(headers: Record<string, string>) {
  const res = await fetch(`${base}${agentApi.socket}`, {
    headers: {
      ...headers,
      connection: "Upgrade",
      upgrade: "websocket",
      "sec-websocket-version": "13",
      "sec-websocket-key": randomBytes(16).toString("base64"),
    },
  });
  return { status: res.status, body: await res.text() };
}

const freshToken = () => randomBytes(32).toString("base64url");

async function userWithAgent() {
  const user = await server.registerUser();
  return { user, agent: await registerScriptedAgent(base, user.apiKey, ["orders"]) };
}

describe("an unknown agent id and a known one with a wrong token", () => {
  test("get the same status and body on the HTTP routes", async () => {
    const { agent } = await userWithAgent();
    const unknown = await callAs(credentials(randomBytes(16).toString("hex"), freshToken()));
    const known = await callAs(credentials(agent.agentId, freshToken()));
    expect(unknown.status).toBe(401);
    expect(known).toEqual(unknown);
    // Its own token still works.
    expect((await callAs(credentials(agent.agentId, agent.agentToken))).status).toBe(200);
  });

  test("get the same refusal from the socket", async () => {
    const { agent } = await userWithAgent();
    const unknown = await upgradeAs(credentials(randomBytes(16).toString("hex"), freshToken()));
    const known = await upgradeAs(credentials(agent.agentId, freshToken()));
    expect(unknown.status).toBe(401);
    expect(known).toEqual(unknown);
    const [unknownSocket, knownSocket] = await Promise.all([
      socketAs(credentials(randomBytes(16).toString("hex"), freshToken())),
      socketAs(credentials(agent.agentId, freshToken())),
    ]);
    expect(unknownSocket.opened).toBe(false);
    expect(knownSocket).toEqual(unknownSocket);
  });

  test("a removed agent's id with someone else's token is no different from an unknown id", async () => {
    const { user, agent } = await userWithAgent();
    expect((await server.call("DELETE", `/api/agents/${agent.agentId}`, { token: user.token })).status).toBe(200);
    const unknown = await callAs(credentials(randomBytes(16).toString("hex"), freshToken()));
    expect(await callAs(credentials(agent.agentId, freshToken()))).toEqual(unknown);
    expect((await socketAs(credentials(agent.agentId, freshToken()))).code).not.toBe(AGENT_REMOVED_CLOSE_CODE);
  });
});

describe("a removed agent presenting its own token is told it was removed", () => {
  async function expectToldRemoved(agentId: string, agentToken: string) {
    const call = await callAs(credentials(agentId, agentToken));
    expect(call.status).toBe(410);
    expect(JSON.parse(call.body).message).toBe("This agent was removed from DBVault: run dbvault-agent setup --force to connect this machine again.");
    expect((await socketAs(credentials(agentId, agentToken))).code).toBe(AGENT_REMOVED_CLOSE_CODE);
  }

  test("removed on its own: its token's hash is kept, never the token", async () => {
    const { user, agent } = await userWithAgent();
    expect((await server.call("DELETE", `/api/agents/${agent.agentId}`, { token: user.token })).status).toBe(200);
    await expectToldRemoved(agent.agentId, agent.agentToken);
    const [kept] = await server.ctx.db.select().from(removedAgents).where(eq(removedAgents.agentId, agent.agentId));
    expect(kept).toMatchObject({ organizationId: user.id });
    expect(kept?.tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(kept?.tokenHash).not.toContain(agent.agentToken);
  });

  test("with its account, deleted by an admin", async () => {
    const admin = await server.registerAdmin();
    const { user, agent } = await userWithAgent();
    expect((await server.call("DELETE", `/api/admin/users/${user.id}`, { token: admin.token })).status).toBe(200);
    await expectToldRemoved(agent.agentId, agent.agentToken);
  });

  test("with its team, deleted by its owner", async () => {
    const owner: TestUser = await server.registerUser();
    const created = await server.call("POST", "/api/organizations", { token: owner.token, body: { name: "Doomed Ops" } });
    expect(created.status).toBe(201);
    const inTeam = { token: owner.token, headers: { "X-Organization-Id": created.body.id as string } };
    const teamKey = (await server.call("GET", "/api/user/profile", inTeam)).body.apiKey as string;
    const agent = await registerScriptedAgent(base, teamKey, ["orders"]);
    expect((await server.call("DELETE", "/api/organizations/current", inTeam)).status).toBe(200);
    await expectToldRemoved(agent.agentId, agent.agentToken);
  });
});
