// Remove Agent, as the real agent lives it: `dbvault-agent run` is connected, the user removes the
// agent in the web app (DELETE /api/agents/{id}); the daemon stops with a clear message and exit
// status 78 (which the systemd unit does not restart on) instead of reconnecting forever; started
// again, it stops the same way at once.
import { expect, test } from "bun:test";
import { waitUntil } from "../../testkit/wait-until";
import { runSetup, startAgentProcess } from "./support/end-to-end.ts";
import { useEndToEndWorld } from "./support/end-to-end-world.ts";
import { apiFor } from "./support/server-faults.ts";

const world = useEndToEndWorld();

test("a removed agent's run stops with exit status 78 and says why, now and when started again", async () => {
  const user = await world.server.registerUser();
  const api = apiFor(world.base, user.token);
  const directory = await world.env.makeTempDir();
  const setup = await runSetup({ baseUrl: world.base, apiKey: user.apiKey, databases: [{ name: "shop", uri: world.env.uriFor("shop_removal") }], directory });
  expect(setup.exitCode).toBe(0);
  const agent = startAgentProcess(setup.configPath);
  world.agents.push(agent);
  const online = await waitUntil(
    async () => (await api("GET", "/api/settings/system-status")).body.agents?.find((a: { status: string }) => a.status === "active"),
    { message: "the agent to be online" },
  );

  expect((await api("DELETE", `/api/agents/${online.id}`)).status).toBe(200);
  expect(await agent.exited).toBe(78);
  expect(agent.log()).toContain("this agent was removed from DBVault");
  expect(agent.log()).toContain("hint: run dbvault-agent setup --force to connect this machine again");
  expect((await api("GET", "/api/settings/system-status")).body.agents).toEqual([]);

  // A service manager (or a user) starting it again gets the same answer at once.
  const again = startAgentProcess(setup.configPath);
  world.agents.push(again);
  expect(await again.exited).toBe(78);
  expect(again.log()).toContain("this agent was removed from DBVault");
});
