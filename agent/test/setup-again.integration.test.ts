// `setup --force` on a machine whose agent is running, as a user does on the second day (a new API
// key, a changed database): the machine stays one agent in the web app, with new credentials, and
// the running daemon, whose old socket the server closes, reconnects with the new ones from its
// config file and keeps backing up; the databases it holds are its to run.
import { expect, test } from "bun:test";
import { waitUntil } from "../../testkit/wait-until";
import { runSetup, startAgentProcess } from "./support/end-to-end.ts";
import { useEndToEndWorld, waitForBackupEnd } from "./support/end-to-end-world.ts";
import { apiFor } from "./support/server-faults.ts";

const world = useEndToEndWorld();

test("setup --force re-registers the same agent; the running daemon picks up its new credentials and backs up", async () => {
  const user = await world.server.registerUser();
  const api = apiFor(world.base, user.token);
  const directory = await world.env.makeTempDir();
  const databases = [{ name: "shop", uri: world.env.uriFor("shop_setup_again") }];
  const first = await runSetup({ baseUrl: world.base, apiKey: user.apiKey, databases, directory });
  expect(first.exitCode).toBe(0);
  const agent = startAgentProcess(first.configPath);
  world.agents.push(agent);
  const agents = async () => (await api("GET", "/api/settings/system-status")).body.agents as { id: string; status: string; name: string }[];
  const [online] = await waitUntil(async () => ((await agents())[0]?.status === "active" ? agents() : undefined), { message: "the agent to be online" });

  const again = await runSetup({ baseUrl: world.base, apiKey: user.apiKey, databases, directory, extraArgs: ["--force"] });
  expect(again.exitCode).toBe(0);
  expect(again.stderr).toContain(`registered agent "e2e-agent" again (its old credentials no longer work) (id ${online!.id})`);
  expect((await agents()).map((a) => a.id)).toEqual([online!.id]);

  // The server closed the daemon's old socket; it reconnects with the config's new token.
  await waitUntil(() => agent.log().includes("set up again"), { message: "the daemon to hear that it was set up again" });
  await waitUntil(async () => (await agents())[0]?.status === "active", { message: "the daemon back online with its new credentials" });
  const started = await api("POST", "/api/backups", { databaseName: "shop" });
  expect(started.status).toBe(201);
  const backup = await waitForBackupEnd(api, started.body._id);
  expect(backup.status).toBe("completed");
  expect((await agents()).map((a) => a.id)).toEqual([online!.id]);
}, 120_000);
