// Taking an agent over with the organization's API key and its id: `POST /api/agent/register
// {agentId}` gave that agent new credentials, cutting the real agent off. Now the API key alone
// registers only new agents (with random 128-bit ids); registering an existing one again takes
// its own credentials, or a one-time code that a user approves from a re-authenticated session.
import { describe, expect, test } from "bun:test";
import { agentApi } from "@protocol/agent-protocol";
import { useListeningTestServer } from "./harness";
import { registerScriptedAgent, type ScriptedAgent } from "./scripted-agent";

const world = useListeningTestServer();

const register = (apiKey: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  fetch(`${world.base}${agentApi.register}`, {
    method: "POST",
    headers: { ...headers, authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "thief", hostname: "thief-box", platform: "linux-x64", version: "1.0.0", databases: ["shop"], ...body }),
  });
/** Whether the agent's own credentials still work (an agent route answering for it). */
const stillWorks = async (agent: ScriptedAgent) => (await fetch(`${world.base}/api/agent/backup-keys`, { headers: agent.headers() })).status === 200;

describe("an agent's id and the organization's API key", () => {
  test("new agents get random 128-bit ids", async () => {
    const user = await world.server.registerUser();
    const one = await registerScriptedAgent(world.base, user.apiKey, ["shop"]);
    const two = await registerScriptedAgent(world.base, user.apiKey, ["shop"]);
    expect(one.agentId).toMatch(/^[0-9a-f]{32}$/);
    expect(two.agentId).toMatch(/^[0-9a-f]{32}$/);
    // Nothing shared at the front, as ObjectIds made a second apart share their time and process.
    expect(one.agentId.slice(0, 8)).not.toBe(two.agentId.slice(0, 8));
  });

  test("do not register that agent again: the real agent keeps its credentials", async () => {
    const user = await world.server.registerUser();
    const real = await registerScriptedAgent(world.base, user.apiKey, ["shop"]);
    const taken = await register(user.apiKey, { agentId: real.agentId });
    expect(taken.status).toBe(409);
    const body = (await taken.json()) as { code: string; message: string; setupCode: string };
    expect(body.code).toBe("AGENT_SETUP_APPROVAL_REQUIRED");
    expect(body.message).toContain(`setup --force --setup-code ${body.setupCode}`);
    expect(body).not.toHaveProperty("agentToken");
    expect(await stillWorks(real)).toBe(true);
    // An unapproved code does not do it either.
    expect((await register(user.apiKey, { agentId: real.agentId, setupCode: body.setupCode })).status).toBe(409);
    expect(await stillWorks(real)).toBe(true);
  });

  test("with the agent's own credentials, the same agent is registered again", async () => {
    const user = await world.server.registerUser();
    const real = await registerScriptedAgent(world.base, user.apiKey, ["shop"]);
    const again = await register(user.apiKey, { agentId: real.agentId }, real.headers());
    expect(again.status).toBe(201);
    expect(((await again.json()) as { agentId: string }).agentId).toBe(real.agentId);
    expect(await stillWorks(real)).toBe(false);
  });

  test("without them, a code approved by a re-authenticated user lets the machine register it again, once", async () => {
    const user = await world.server.registerUser();
    const real = await registerScriptedAgent(world.base, user.apiKey, ["shop"]);
    const { setupCode } = (await (await register(user.apiKey, { agentId: real.agentId })).json()) as { setupCode: string };
    const approve = (body: Record<string, unknown>, token = user.token) =>
      world.server.call("POST", `/api/agents/${real.agentId}/setup-approval`, { token, body });

    // A session alone (it may be stolen) does not approve, nor does a wrong code.
    const unconfirmed = await approve({ setupCode });
    expect(unconfirmed.status).toBe(403);
    expect(unconfirmed.body.code).toBe("REAUTHENTICATION_REQUIRED");
    expect((await approve({ setupCode: "AAAAA-AAAAA", password: user.password })).status).toBe(400);
    // Another organization's user cannot approve it.
    const stranger = await world.server.registerUser();
    expect((await approve({ setupCode, password: stranger.password }, stranger.token)).status).toBe(404);

    expect((await approve({ setupCode: setupCode.toLowerCase(), password: user.password })).status).toBe(200);
    // A thief's try meanwhile does not void the approved code.
    expect((await register(user.apiKey, { agentId: real.agentId })).status).toBe(409);
    const again = await register(user.apiKey, { agentId: real.agentId, setupCode });
    expect(again.status).toBe(201);
    expect(((await again.json()) as { agentId: string }).agentId).toBe(real.agentId);
    expect(await stillWorks(real)).toBe(false);
    // Used up.
    expect((await register(user.apiKey, { agentId: real.agentId, setupCode })).status).toBe(409);
  });
});
