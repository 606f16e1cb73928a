// The disaster-recovery story of the README, end to end with the compiled agent: the machine that
// made the backups is gone with its config; a new machine imports the saved master key, runs
// `setup --force` against the same account, and restores the backup through the server.
import { expect, test } from "bun:test";
import { rm } from "node:fs/promises";
import { waitUntil } from "../../testkit/wait-until";
import { runSetup, startAgentProcess } from "./support/end-to-end.ts";
import { useEndToEndWorld, waitForBackupEnd } from "./support/end-to-end-world.ts";
import { BINARY_PATH, runAgent } from "./support/run-agent.ts";
import { apiFor } from "./support/server-faults.ts";

const world = useEndToEndWorld();
const agentCli = (args: string[], stdin?: string) =>
  runAgent(args, { command: [BINARY_PATH], ...(stdin === undefined ? {} : { stdin: new TextEncoder().encode(stdin) }) });

test("new machine: key import, setup --force, restore the old machine's backup", async () => {
  const user = await world.server.registerUser();
  const api = apiFor(world.base, user.token);
  const source = "dr_source";
  await world.env.client
    .db(source)
    .collection<{ _id: number; total: number }>("orders")
    .insertMany(Array.from({ length: 300 }, (_, i) => ({ _id: i, total: i })));

  // The old machine: set up, back up, and the user saves the key as told.
  const oldDir = await world.env.makeTempDir();
  const old = await runSetup({
    baseUrl: world.base,
    apiKey: user.apiKey,
    databases: [{ name: "shop", uri: world.env.uriFor(source) }],
    directory: oldDir,
    name: "old-machine",
  });
  expect(old.exitCode).toBe(0);
  const savedKey = (await agentCli(["key", "export", "--config", old.configPath])).stdout.trim();
  const oldAgent = startAgentProcess(old.configPath);
  world.agents.push(oldAgent);
  await waitUntil(async () => (await api("GET", "/api/settings/system-status")).body.agents?.[0]?.status === "active", { message: "the old agent online" });
  const created = await api("POST", "/api/backups", { databaseName: "shop" });
  expect(created.status).toBe(201);
  expect((await waitForBackupEnd(api, created.body._id)).status).toBe("completed");

  // Disaster: the machine and its config are gone; the data too.
  await oldAgent.stop("SIGKILL");
  await rm(oldDir, { recursive: true, force: true });
  await world.env.client.db(source).dropDatabase();

  // The new machine.
  const newDir = await world.env.makeTempDir();
  const configPath = `${newDir}/agent.json`;
  const imported = await agentCli(["key", "import", "--config", configPath], `${savedKey}\n`);
  expect(imported.exitCode).toBe(0);
  const setup = await runSetup({
    baseUrl: world.base,
    apiKey: user.apiKey,
    databases: [{ name: "shop", uri: world.env.uriFor(source) }],
    directory: newDir,
    name: "new-machine",
    extraArgs: ["--force"],
  });
  expect(setup.exitCode).toBe(0);
  expect((await agentCli(["key", "export", "--config", configPath])).stdout.trim()).toBe(savedKey); // setup kept the imported key
  const newAgent = startAgentProcess(configPath);
  world.agents.push(newAgent);
  await waitUntil(
    async () =>
      ((await api("GET", "/api/settings/system-status")).body.agents ?? []).some(
        (a: { name: string; status: string }) => a.name === "new-machine" && a.status === "active",
      ),
    { message: "the new agent online" },
  );

  const requested = await api("POST", `/api/backups/${created.body._id}/restore`, { databaseName: "shop" });
  expect(requested.status).toBeLessThan(300);
  const restored = await waitUntil(
    async () => {
      const [latest] = (await api("GET", "/api/backups/restores/all")).body;
      return latest && ["completed", "failed"].includes(latest.status) ? latest : undefined;
    },
    { message: "the restore to end", timeout: 60_000 },
  );
  expect(restored).toMatchObject({ status: "completed" });
  const documents = await world.env.client.db(source).collection<{ _id: number; total: number }>("orders").find().sort({ _id: 1 }).toArray();
  expect(documents).toEqual(Array.from({ length: 300 }, (_, i) => ({ _id: i, total: i })));
});
