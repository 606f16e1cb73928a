// "Check for Updates" for real, on linux-x64: the compiled agent at version N (dist/dbvault-agent,
// copied into a folder of its own as an install would put it) is connected to a server whose
// AGENT_DIR offers N+1 (the same sources built with another version string, signed by the build).
// A release signed with another key, a server whose trusted key was changed and a binary altered
// in the server's storage are refused while N keeps running;
// then the update waits for a running backup, replaces the binary, restarts in place (same process)
// and reconnects as N+1. The Windows way of restarting (a relauncher process) runs here too.
import { beforeAll, describe, expect, test } from "bun:test";
import { createHash, randomBytes } from "node:crypto";
import { copyFileSync, mkdtempSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PRODUCT_VERSION } from "../../protocol/version";
import { SIGNED_RELEASE_FILE } from "../../protocol/signed-release";
import { createTestReleaseKey, signAgentDir } from "../../testkit/signed-agent-release";
import { waitUntil } from "../../testkit/wait-until";
import { type RunningAgent, runSetup, startAgentProcess } from "./support/end-to-end.ts";
import { seedLargeDatabase, useEndToEndWorld } from "./support/end-to-end-world.ts";
import { BINARY_PATH, REPO_ROOT } from "./support/run-agent.ts";
import { apiFor } from "./support/server-faults.ts";

/** N+1: the patch number after this checkout's version. */
const [major, minor, patch] = PRODUCT_VERSION.split(/[.-]/).map(Number) as [number, number, number];
const NEXT_VERSION = `${major}.${minor}.${patch + 1}-update-test`;

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const agentDir = mkdtempSync(join(tmpdir(), "dbvault-update-agent-dir-"));
const offeredFile = join(agentDir, "dbvault-agent-linux-x64");
// Whole seconds: put back after a change, the file's mtime is exactly what the server saw.
const STORAGE_TIME = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);

beforeAll(() => {
  const build = Bun.spawnSync(
    [process.execPath, join(REPO_ROOT, "scripts/build-agent.ts"), "--target", "linux-x64", "--version", NEXT_VERSION, "--outdir", agentDir],
    { stdout: "pipe", stderr: "pipe" },
  );
  if (build.exitCode !== 0) throw new Error(`building N+1 failed: ${build.stderr.toString()}`);
  utimesSync(offeredFile, STORAGE_TIME, STORAGE_TIME);
});
const world = useEndToEndWorld({ serverEnv: () => ({ AGENT_DIR: agentDir }) });

type Agent = { id: string; version: string; status: string; lastUpdate: { status: string; message: string; version: string | null } | null };

/** An installed agent N of its own (binary copy, config, database), connected and online. */
async function connectAgentN(api: ReturnType<typeof apiFor>, apiKey: string, name: string, env: Record<string, string> = {}) {
  const directory = await world.env.makeTempDir();
  const binary = join(directory, "dbvault-agent");
  copyFileSync(BINARY_PATH, binary);
  const database = world.env.uniqueDatabase(name);
  await world.env.client.db(database).collection("items").insertOne({ name });
  const setup = await runSetup({ baseUrl: world.base, apiKey, databases: [{ name, uri: world.env.uriFor(database) }], directory, name });
  expect(setup.exitCode).toBe(0);
  const releaseKey = (await (await fetch(`${world.base}/api/agent/releases`)).json()).publicKey;
  expect(setup.stderr).toContain(`release signing key ${releaseKey}: updates are installed only when this key signed them`);
  expect(JSON.parse(readFileSync(setup.configPath, "utf8")).server.releaseKey).toBe(releaseKey);
  const process = startAgentProcess(setup.configPath, [binary], env);
  world.agents.push(process);
  const agent = await agentNamed(api, name, (a) => a.status === "active" && a.version === PRODUCT_VERSION);
  return { binary, process, agent, database, configPath: setup.configPath };
}

function agentNamed(api: ReturnType<typeof apiFor>, name: string, until: (agent: Agent) => boolean, timeout = 60_000): Promise<Agent> {
  return waitUntil(
    async () => {
      const agents = (await api("GET", "/api/settings/system-status")).body.agents as (Agent & { name: string })[];
      const agent = agents.find((a) => a.name === name);
      if (agent && until(agent)) return agent;
      // What the timeout reports if it comes to that.
      throw new Error(`agent ${name} is ${JSON.stringify(agent)}`);
    },
    { message: `agent ${name} to reach the expected state`, timeout },
  );
}

async function checkForUpdates(api: ReturnType<typeof apiFor>, agentId: string) {
  const sent = await api("POST", `/api/agents/manage/${agentId}`, { action: "update" });
  expect(sent).toEqual({ status: 200, body: { message: "Update check command sent to agent" } });
}

function expectStillN(process: RunningAgent, binary: string, originalSha: string) {
  expect(process.running()).toBe(true);
  expect(sha256(readFileSync(binary))).toBe(originalSha);
}

describe("Check for Updates", () => {
  test("refuses a release signed with another key, a changed server key and an altered binary (N keeps running), then waits for a backup, replaces itself and comes back as N+1", async () => {
    const user = await world.server.registerUser();
    const api = apiFor(world.base, user.token);
    const { binary, process, agent, database } = await connectAgentN(api, user.apiKey, "updating");
    const originalSha = sha256(readFileSync(binary));

    // 1. Someone with write access to the server's files signs a release with a key of their own:
    // the server does not offer it, and the agent installs nothing.
    const signedRelease = readFileSync(join(agentDir, SIGNED_RELEASE_FILE));
    const attackerKey = createTestReleaseKey();
    await signAgentDir(agentDir, attackerKey, { "dbvault-agent-linux-x64": { platform: "linux-x64", version: NEXT_VERSION } });
    try {
      await checkForUpdates(api, agent.id);
      const failed = await agentNamed(api, "updating", (a) => a.lastUpdate?.status === "failed");
      expect(failed.lastUpdate!.message).toContain("the server offers no signed agent release: nothing was installed");
      expect(failed.lastUpdate!.message).toContain(`(dbvault-agent ${PRODUCT_VERSION} keeps running)`);

      // ...and changes the key the server trusts too: the agent's pinned key refuses it.
      const trusted = world.server.ctx.releaseKey;
      world.server.ctx.releaseKey = { publicKey: attackerKey.publicKey, source: "test" };
      try {
        await checkForUpdates(api, agent.id);
        const refused = await agentNamed(api, "updating", (a) => a.lastUpdate?.status === "failed" && a.lastUpdate.message.includes("another key"));
        expect(refused.lastUpdate!.message).toContain(
          `the server now signs releases with another key (${attackerKey.publicKey}) than the one this agent trusts (${trusted.publicKey}): nothing was installed`,
        );
      } finally {
        world.server.ctx.releaseKey = trusted;
      }
    } finally {
      writeFileSync(join(agentDir, SIGNED_RELEASE_FILE), signedRelease);
    }
    expectStillN(process, binary, originalSha);

    // 2. The offered binary is altered in the server's storage (same size and time).
    const good = readFileSync(offeredFile);
    const altered = Buffer.from(good);
    altered[altered.length - 100] = altered[altered.length - 100]! ^ 0xff;
    writeFileSync(offeredFile, altered);
    utimesSync(offeredFile, STORAGE_TIME, STORAGE_TIME);
    try {
      await checkForUpdates(api, agent.id);
      // The server no longer offers it (its hash is not the signed one): the download is refused.
      const failed = await agentNamed(
        api,
        "updating",
        (a) => a.lastUpdate?.status === "failed" && a.lastUpdate.message.includes("downloading dbvault-agent-linux-x64 failed"),
      );
      expect(failed.lastUpdate!.message).toContain("nothing was installed");
    } finally {
      writeFileSync(offeredFile, good);
      utimesSync(offeredFile, STORAGE_TIME, STORAGE_TIME);
    }
    expectStillN(process, binary, originalSha);
    expect((await agentNamed(api, "updating", (a) => a.status === "active")).version).toBe(PRODUCT_VERSION);

    // 3. The update asked for during a backup waits for it, then installs N+1 and restarts in place.
    await seedLargeDatabase(world.env, database);
    const backup = await api("POST", "/api/backups", { databaseName: "updating" });
    expect(backup.status).toBe(201);
    await waitUntil(async () => (await api("GET", `/api/backups/${backup.body._id}`)).body.status === "in-progress", {
      message: "the backup to be running",
    });
    await checkForUpdates(api, agent.id);
    await agentNamed(api, "updating", (a) => a.lastUpdate?.status === "waiting");
    const updated = await agentNamed(api, "updating", (a) => a.lastUpdate?.status === "updated" && a.status === "active", 120_000);
    expect(updated.version).toBe(NEXT_VERSION);
    expect(updated.lastUpdate).toMatchObject({ version: NEXT_VERSION, message: `Updated: dbvault-agent ${NEXT_VERSION} is running` });
    const finished = (await api("GET", `/api/backups/${backup.body._id}`)).body;
    expect(finished.status).toBe("completed");

    // The binary on disk is N+1 (its mode kept), and the same process runs it: restarted in place.
    expect(sha256(readFileSync(binary))).toBe(sha256(good));
    expect(statSync(binary).mode & 0o777).toBe(statSync(BINARY_PATH).mode & 0o777);
    expect(process.running()).toBe(true);
    const log = process.log();
    expect(log.indexOf("backup completed and uploaded")).toBeLessThan(log.indexOf("restarting into the new version"));
    expect(log).toContain(`"version":"${NEXT_VERSION}"`);

    // Asked again, N+1 is the newest.
    await checkForUpdates(api, agent.id);
    const again = await agentNamed(api, "updating", (a) => a.lastUpdate?.status === "up-to-date");
    expect(again.lastUpdate!.message).toBe(`dbvault-agent ${NEXT_VERSION} is up to date (the server offers ${NEXT_VERSION})`);
    expect(await process.stop()).toBe(0);
  }, 240_000);

  test("the Windows way (a relauncher starts the new binary and stays its parent) also comes back as N+1", async () => {
    const user = await world.server.registerUser();
    const api = apiFor(world.base, user.token);
    const { binary, process, agent } = await connectAgentN(api, user.apiKey, "relaunched", { DBVAULT_RESTART: "relaunch" });
    await checkForUpdates(api, agent.id);
    const updated = await agentNamed(api, "relaunched", (a) => a.lastUpdate?.status === "updated" && a.status === "active", 120_000);
    expect(updated.version).toBe(NEXT_VERSION);
    expect(sha256(readFileSync(binary))).toBe(sha256(readFileSync(offeredFile)));
    expect(process.running()).toBe(true);
    // A stop reaches the child through the relauncher, and both end cleanly.
    expect(await process.stop()).toBe(0);
    expect(process.log()).toContain("stopped");
    await agentNamed(api, "relaunched", (a) => a.status === "offline");
  }, 240_000);
});
