// The attack: someone copied an account's API key (from a screen, a shell history, an agent's
// config file). What it can do: register agents (the owner is mailed about each) and check
// itself. What it cannot: read or change anything of the account, or speak for an agent already
// set up. And the owner's answer, a password change, replaces the key in the same step while the
// agents already set up keep running on their own credentials.
import { randomBytes } from "node:crypto";
import { describe, expect, test } from "bun:test";
import { AgentHeaders, agentApi } from "@protocol/agent-protocol";
import { waitUntil } from "../../testkit/wait-until";
import { useListeningTestServer } from "./harness";
import { registerScriptedAgent } from "./scripted-agent";

const world = useListeningTestServer();

/** The only routes the account's API key opens. */
const KEY_ROUTES = new Set([`POST ${agentApi.register}`, `GET ${agentApi.checkKey}`]);
const fill = (path: string) => path.replace(/:[a-zA-Z]+/g, "0123456789abcdef01234567");

const register = (apiKey: string, hostname = "attacker-box") =>
  fetch(`${world.base}${agentApi.register}`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ name: hostname, hostname, platform: "linux-x64", version: "1.0.0", databases: [] }),
  });
const checkKey = (apiKey: string) => fetch(`${world.base}${agentApi.checkKey}`, { headers: { authorization: `Bearer ${apiKey}` } });

/** Opens the agent socket with these headers; resolves with how it went. */
function openSocket(headers: Record<string, string>): Promise<"open" | { closed: number }> {
  const socket = new WebSocket(`${world.base.replace(/^http/, "ws")}${agentApi.socket}`, { headers } as unknown as string[]);
  return new Promise((resolve) => {
    socket.onopen = () => {
      resolve("open");
      socket.close();
    };
    socket.onclose = (event) => resolve({ closed: event.code });
  });
}

describe("a stolen API key", () => {
  test("opens no route but registration and its own check, on any method, with any body", async () => {
    const owner = await world.server.registerUser();
    const routes = world.server.app.routes
      .filter((r) => r.path.startsWith("/api/") && !["HEAD", "OPTIONS", "ALL", "WS"].includes(r.method))
      .map((r) => `${r.method} ${r.path.length > 1 ? r.path.replace(/\/$/, "") : r.path}`)
      .filter((route) => !KEY_ROUTES.has(route));
    expect(routes.length).toBeGreaterThan(40);
    const keyedStatus = new Map<string, number>();
    for (const route of routes) {
      const [method, path] = route.split(" ") as [string, string];
      const anonymous = await world.server.call(method, fill(path), { body: {} });
      const keyed = await world.server.call(method, fill(path), { token: owner.apiKey, body: {}, headers: { "x-api-key": owner.apiKey } });
      keyedStatus.set(route, keyed.status);
      // The key changes nothing: a route answers it exactly as it answers nobody (public routes
      // their public answer, every other one 401), and never with the account's data.
      expect(`${route} -> ${keyed.status}`).toBe(`${route} -> ${anonymous.status}`);
      expect(JSON.stringify(keyed.body ?? "")).not.toContain(owner.email);
    }
    // The agent's own routes refuse the key without the agent's id and token (a body of the
    // wrong shape is refused first, with 400).
    const agentRoutes = routes.filter((r) => r.includes("/api/agent/backups") || r.endsWith(agentApi.databases));
    expect(agentRoutes.length).toBeGreaterThan(5);
    for (const route of agentRoutes) expect(`${route} -> ${[400, 401].includes(keyedStatus.get(route)!)}`).toBe(`${route} -> true`);
    const addDatabase = await world.server.call("POST", agentApi.databases, { token: owner.apiKey, body: { name: "shop" } });
    expect(addDatabase.status).toBe(401);
  });

  test("cannot open the agent socket of an agent already set up, nor of any agent without its token", async () => {
    const owner = await world.server.registerUser();
    const agent = await registerScriptedAgent(world.base, owner.apiKey, ["shop"]);
    expect(await openSocket({ authorization: `Bearer ${owner.apiKey}` })).toEqual({ closed: expect.any(Number) });
    expect(
      await openSocket({ authorization: `Bearer ${owner.apiKey}`, [AgentHeaders.agentId]: agent.agentId, [AgentHeaders.agentToken]: "dbvt_guess" }),
    ).toEqual({
      closed: expect.any(Number),
    });
    expect(await openSocket(agent.headers())).toBe("open");
  });

  test("registers an agent, and the owner is mailed about it (also after signing out everywhere)", async () => {
    const owner = await world.server.registerUser();
    expect((await world.server.call("POST", "/api/auth/logout", { token: owner.token })).status).toBe(200);
    const res = await register(owner.apiKey, "attacker-box");
    expect(res.status).toBe(201);
    await waitUntil(() => world.server.sentMail.some((m) => m.to === owner.email && m.subject === "A new DBVault agent was set up"), { timeout: 10_000 });
    const notice = world.server.sentMail.find((m) => m.to === owner.email && m.subject === "A new DBVault agent was set up")!;
    expect(notice.text).toContain("on host attacker-box");
    expect(notice.text).toContain("remove the agent in Settings → Agents");
    expect(notice.text).not.toContain(owner.apiKey);
  });
  test("an agent it registers downloads none of the account's backups; the agent that made one does", async () => {
    const owner = await world.server.registerUser();
    const agent = await registerScriptedAgent(world.base, owner.apiKey, ["orders"]);
    await agent.connect();
    expect((await world.server.call("POST", "/api/backups", { token: owner.token, body: { databaseName: "orders" } })).status).toBe(201);
    const { backupId } = await agent.waitFor("backup");
    expect((await agent.upload(backupId, randomBytes(3000))).status).toBe(200);
    const rogue = await registerScriptedAgent(world.base, owner.apiKey, [], "attacker-box");
    const download = (headers: Record<string, string>) => fetch(`${world.base}${agentApi.download(backupId)}`, { headers });
    const stolen = await download(rogue.headers());
    expect([stolen.status, (await stolen.json()).message]).toEqual([404, "Backup not found."]);
    const own = await download(agent.headers());
    expect([own.status, (await own.arrayBuffer()).byteLength]).toEqual([200, 3000]);
    await agent.disconnect();
  });
});

describe("the owner's answer: a password change replaces the key", () => {
  test("the stolen key stops registering; the agent already set up keeps its socket and uploads", async () => {
    const owner = await world.server.registerUser();
    const agent = await registerScriptedAgent(world.base, owner.apiKey, ["shop"]);
    const stolen = owner.apiKey;

    const changed = await world.server.call("PUT", "/api/user/password", {
      token: owner.token,
      body: { currentPassword: owner.password, newPassword: "a-new-password-1" },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.apiKey).toStartWith("dbv_");
    expect(changed.body.apiKey).not.toBe(stolen);

    expect((await register(stolen)).status).toBe(401);
    expect((await checkKey(stolen)).status).toBe(401);
    expect((await checkKey(changed.body.apiKey)).status).toBe(200);
    // Still sending the old key in its Authorization header, as agents set up before do.
    expect(await openSocket(agent.headers())).toBe("open");
    const status = await fetch(`${world.base}${agentApi.uploadStatus("0123456789abcdef01234567")}`, { headers: agent.headers() });
    expect(status.status).toBe(404);
    const profile = await world.server.call("GET", "/api/user/profile", { token: changed.body.token });
    expect(profile.body.apiKey).toBe(changed.body.apiKey);
  });

  test("rotateApiKey: false keeps the key; a value that is not a boolean is refused naming the field", async () => {
    const owner = await world.server.registerUser();
    const kept = await world.server.call("PUT", "/api/user/password", {
      token: owner.token,
      body: { currentPassword: owner.password, newPassword: "a-new-password-1", rotateApiKey: false },
    });
    expect(kept.status).toBe(200);
    expect(kept.body.apiKey).toBeUndefined();
    expect((await checkKey(owner.apiKey)).status).toBe(200);
    const refused = await world.server.call("PUT", "/api/user/password", {
      token: kept.body.token,
      body: { currentPassword: "a-new-password-1", newPassword: "a-new-password-2", rotateApiKey: "yes" },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain("rotateApiKey");
  });

  test("Regenerate (Settings) leaves agents already set up running", async () => {
    const owner = await world.server.registerUser();
    const agent = await registerScriptedAgent(world.base, owner.apiKey, ["shop"]);
    await agent.connect();
    const res = await world.server.call("POST", "/api/settings/regenerate-api-key", { token: owner.token, body: { password: owner.password } });
    expect(res.status).toBe(200);
    expect((await register(owner.apiKey)).status).toBe(401);
    expect(await openSocket(agent.headers())).toBe("open");
    const { [AgentHeaders.agentId]: id, [AgentHeaders.agentToken]: token } = agent.headers();
    // No API key at all: the agent's own id and token are its credentials.
    expect(await openSocket({ [AgentHeaders.agentId]: id!, [AgentHeaders.agentToken]: token! })).toBe("open");
    await agent.disconnect();
  });
});
