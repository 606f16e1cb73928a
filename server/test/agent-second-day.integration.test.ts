// The second day with agents: a machine set up again (`setup --force`) stays one agent with new
// credentials; a database belongs to whichever connected agent holds it, so removing or losing
// one agent leaves it with another that has it; the user chooses among agents holding the same
// database; agents have names that tell them apart, and can be renamed.
import { describe, expect, test } from "bun:test";
import { agentApi } from "@protocol/agent-protocol";
import { waitUntil } from "../../testkit/wait-until";
import { type TestUser, useListeningTestServer } from "./harness";
import { registerScriptedAgent, type ScriptedAgent } from "./scripted-agent";

const world = useListeningTestServer();

type AgentView = { id: string; name: string; status: string };
type DatabaseView = { id: string; name: string; agentId: string | null; agents: AgentView[] };

const agentsOf = async (user: TestUser) => (await world.server.call("GET", "/api/settings/system-status", { token: user.token })).body.agents as AgentView[];
const databasesOf = async (user: TestUser) => (await world.server.call("GET", "/api/settings/databases", { token: user.token })).body as DatabaseView[];
const databaseNamed = async (user: TestUser, name: string) => (await databasesOf(user)).find((database) => database.name === name)!;

/** A scripted agent of `user` on its own "machine", connected and saying which databases it holds. */
async function connectedAgent(user: TestUser, databases: string[], hostname = "db-host.internal") {
  const agent = await registerScriptedAgent(world.base, user.apiKey, databases, hostname, { hostname });
  await agent.connect({ hostname, databases });
  await waitUntil(async () => (await agentsOf(user)).find((a) => a.id === agent.agentId)?.status === "active", { message: "the agent to be online" });
  return agent;
}

/** Which agent a backup of `name` goes to: the one that receives the backup command. */
async function backupGoesTo(user: TestUser, name: string, candidates: ScriptedAgent[]) {
  const res = await world.server.call("POST", "/api/backups", { token: user.token, body: { databaseName: name } });
  expect(res.status).toBeLessThan(300);
  return waitUntil(() => candidates.find((agent) => agent.received.some((message) => message.type === "backup")), {
    message: "an agent to receive the backup",
  });
}

describe("setup --force on a machine already set up", () => {
  test("registers the same agent again: one entry, new credentials, the old ones refused and the old socket closed", async () => {
    const user = await world.server.registerUser();
    const first = await registerScriptedAgent(world.base, user.apiKey, ["shop"], "vm", { hostname: "vm" });
    const oldSocket = new WebSocket(`${world.base.replace(/^http/, "ws")}${agentApi.socket}`, { headers: first.headers() } as unknown as string[]);
    const closed = new Promise<{ code: number; reason: string }>(
      (resolve) => (oldSocket.onclose = (event) => resolve({ code: event.code, reason: event.reason })),
    );
    await new Promise((resolve) => (oldSocket.onopen = resolve));
    await waitUntil(async () => (await agentsOf(user))[0]?.status === "active", { message: "the agent to be online" });

    const again = await registerScriptedAgent(world.base, user.apiKey, ["shop"], "vm", { hostname: "vm", agentId: first.agentId }, first.headers());
    expect(again.agentId).toBe(first.agentId);
    expect(again.agentToken).not.toBe(first.agentToken);
    expect((await agentsOf(user)).map((agent) => agent.id)).toEqual([first.agentId]);

    expect((await closed).reason).toContain("set up again");
    const oldCall = await fetch(`${world.base}${agentApi.uploadStatus("0".repeat(24))}`, { headers: first.headers() });
    expect(oldCall.status).toBe(401);
    await again.connect({ hostname: "vm", databases: ["shop"] });
    await waitUntil(async () => (await agentsOf(user))[0]?.status === "active", { message: "the agent back online with its new credentials" });
    expect((await databaseNamed(user, "shop")).agentId).toBe(first.agentId);
  });

  test("an agent id of another account registers a new agent of one's own, and leaves the other alone", async () => {
    const owner = await world.server.registerUser();
    const theirs = await registerScriptedAgent(world.base, owner.apiKey, ["shop"]);
    const intruder = await world.server.registerUser();
    const mine = await registerScriptedAgent(world.base, intruder.apiKey, ["shop"], "test-agent", { agentId: theirs.agentId });
    expect(mine.agentId).not.toBe(theirs.agentId);
    const stillTheirs = await fetch(`${world.base}${agentApi.uploadStatus("0".repeat(24))}`, { headers: theirs.headers() });
    expect(stillTheirs.status).not.toBe(401);
  });
});

describe("agent names", () => {
  test("two machines with the same host name get names that differ (host name plus a short id), and a rename sticks through setup --force", async () => {
    const user = await world.server.registerUser();
    const one = await registerScriptedAgent(world.base, user.apiKey, ["shop"], "vm", { hostname: "vm" });
    const two = await registerScriptedAgent(world.base, user.apiKey, ["shop"], "vm", { hostname: "vm" });
    const names = (await agentsOf(user)).map((agent) => agent.name);
    expect(names).toEqual([`vm-${one.agentId.slice(-4)}`, `vm-${two.agentId.slice(-4)}`]);
    expect(new Set(names).size).toBe(2);

    const renamed = await world.server.call("PATCH", `/api/agents/${one.agentId}`, { token: user.token, body: { name: "  shop primary " } });
    expect(renamed.status).toBe(200);
    expect(renamed.body.name).toBe("shop primary");
    await registerScriptedAgent(world.base, user.apiKey, ["shop"], "vm", { hostname: "vm", agentId: one.agentId }, one.headers());
    expect((await agentsOf(user)).find((agent) => agent.id === one.agentId)?.name).toBe("shop primary");

    // An explicit --name is taken as given.
    const named = await registerScriptedAgent(world.base, user.apiKey, ["shop"], "backup box", { hostname: "vm" });
    expect((await agentsOf(user)).find((agent) => agent.id === named.agentId)?.name).toBe("backup box");
  });

  test("a rename is checked: blank or too long is a 400 with a message, another account's agent a 404", async () => {
    const user = await world.server.registerUser();
    const agent = await registerScriptedAgent(world.base, user.apiKey, ["shop"]);
    for (const name of ["   ", "", "x".repeat(101)]) {
      const res = await world.server.call("PATCH", `/api/agents/${agent.agentId}`, { token: user.token, body: { name } });
      expect(res.status).toBe(400);
      expect(res.body.message).toContain("name must be 1 to 100 characters");
    }
    const other = await world.server.registerUser();
    expect((await world.server.call("PATCH", `/api/agents/${agent.agentId}`, { token: other.token, body: { name: "mine now" } })).status).toBe(404);
  });
});

describe("a database held by several agents", () => {
  test("removing the agent that runs it leaves it with the other online agent that holds it", async () => {
    const user = await world.server.registerUser();
    const oldMachine = await connectedAgent(user, ["shop"], "old-vm");
    const newMachine = await connectedAgent(user, ["shop"], "new-vm");
    const runner = (await databaseNamed(user, "shop")).agentId;
    const [removed, kept] = runner === oldMachine.agentId ? [oldMachine, newMachine] : [newMachine, oldMachine];

    expect((await world.server.call("DELETE", `/api/agents/${removed.agentId}`, { token: user.token })).status).toBe(200);
    const shop = await databaseNamed(user, "shop");
    expect(shop.agentId).toBe(kept.agentId);
    expect(shop.agents.map((agent) => agent.id)).toEqual([kept.agentId]);
    expect(await backupGoesTo(user, "shop", [kept])).toBe(kept);
  });

  test("an agent connecting with a database whose runner is offline takes it over; while the runner is online, it stays", async () => {
    const user = await world.server.registerUser();
    const first = await connectedAgent(user, ["shop"], "first-vm");
    const second = await registerScriptedAgent(world.base, user.apiKey, [], "second-vm", { hostname: "second-vm" });
    await second.connect({ hostname: "second-vm", databases: ["shop"] });
    await waitUntil(async () => (await databaseNamed(user, "shop")).agents.length === 2, { message: "both agents to hold shop" });
    expect((await databaseNamed(user, "shop")).agentId).toBe(first.agentId);

    await first.disconnect();
    await waitUntil(async () => (await databaseNamed(user, "shop")).agentId === second.agentId, { message: "shop to pass to the agent still online" });
    expect(await backupGoesTo(user, "shop", [first, second])).toBe(second);
  });

  test("an agent whose config no longer holds the database it runs leaves it to one that does", async () => {
    const user = await world.server.registerUser();
    const runner = await connectedAgent(user, ["shop"], "first-vm");
    const holder = await connectedAgent(user, ["shop"], "second-vm");
    expect((await databaseNamed(user, "shop")).agentId).toBe(runner.agentId);
    await holder.disconnect();
    await waitUntil(async () => (await agentsOf(user)).find((a) => a.id === holder.agentId)?.status === "offline", { message: "the holder offline" });
    // The runner is restarted after shop was taken out of its config.
    await runner.disconnect();
    const back = await registerScriptedAgent(world.base, user.apiKey, ["crm"], "first-vm", { agentId: runner.agentId, hostname: "first-vm" }, runner.headers());
    await back.connect({ hostname: "first-vm", databases: ["crm"] });
    await waitUntil(async () => (await databaseNamed(user, "crm")).agentId === runner.agentId, { message: "crm declared" });
    const shop = await databaseNamed(user, "shop");
    expect(shop.agents.map((agent) => agent.id)).toEqual([holder.agentId]);
    expect(shop.agentId).toBe(holder.agentId);
  });

  test("the user sees both agents and chooses which runs it; an agent that does not hold it is refused", async () => {
    const user = await world.server.registerUser();
    const first = await connectedAgent(user, ["shop"], "first-vm");
    const second = await connectedAgent(user, ["shop", "crm"], "second-vm");
    const shop = await databaseNamed(user, "shop");
    expect(shop.agents.map((agent) => agent.id)).toEqual([first.agentId, second.agentId]);
    const other = shop.agentId === first.agentId ? second : first;

    const chosen = await world.server.call("PUT", `/api/settings/databases/${shop.id}/agent`, { token: user.token, body: { agentId: other.agentId } });
    expect(chosen.status).toBe(200);
    expect((chosen.body as DatabaseView[]).find((database) => database.name === "shop")!.agentId).toBe(other.agentId);
    expect(await backupGoesTo(user, "shop", [first, second])).toBe(other);

    const crm = await databaseNamed(user, "crm");
    const refused = await world.server.call("PUT", `/api/settings/databases/${crm.id}/agent`, { token: user.token, body: { agentId: first.agentId } });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe('That agent does not have "crm" in its configuration. Add it there first: dbvault-agent db add.');
    const stranger = await world.server.registerUser();
    expect(
      (await world.server.call("PUT", `/api/settings/databases/${shop.id}/agent`, { token: stranger.token, body: { agentId: first.agentId } })).status,
    ).toBe(404);
    expect((await world.server.call("PUT", `/api/settings/databases/${shop.id}/agent`, { token: user.token, body: {} })).status).toBe(400);
  });
});
