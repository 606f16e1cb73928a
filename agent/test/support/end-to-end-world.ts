// The world the agent's end-to-end failure files share: the MongoDB test server, a DBVault test
// server listening on loopback, the compiled agent, and the daemons a file starts (killed at the end).
import { afterAll, beforeAll } from "bun:test";
import { randomBytes } from "node:crypto";
import { Binary } from "mongodb";
import { buildReleasePublicKey } from "../../../testkit/signed-agent-release.ts";
import { startTestServer, type TestServer } from "../../../server/test/harness.ts";
import { STALLED_TIMEOUT_MS } from "../../../server/src/modules/agent-jobs/lease-rules.ts";
import { expireLeases } from "../../../server/src/modules/agent-jobs/lease-rules.ts";
import { expect } from "bun:test";
import { ensureFreshBinary, type RunningAgent, runSetup, startAgentProcess } from "./end-to-end.ts";
import { apiFor } from "./server-faults.ts";
import { type AgentTestEnv, openAgentTestEnv } from "./test-env.ts";
import { waitUntil } from "../../../testkit/wait-until";

export type EndToEndWorld = { env: AgentTestEnv; server: TestServer; base: string; agents: RunningAgent[] };

/**
 * Sets the world up before the file's tests and tears it down after; its fields are set once
 * beforeAll ran. `serverEnv` is read then (after the file's own earlier beforeAll hooks).
 */
export function useEndToEndWorld(options: { serverEnv?: () => Record<string, string> } = {}): EndToEndWorld {
  const world = { agents: [] as RunningAgent[] } as EndToEndWorld;
  beforeAll(async () => {
    await ensureFreshBinary();
    world.env = await openAgentTestEnv();
    // The server trusts the key this checkout's builds are signed with (dist/ and test builds).
    world.server = await startTestServer({ RELEASE_PUBLIC_KEY: buildReleasePublicKey(), ...options.serverEnv?.() });
    world.base = world.server.listen();
  });
  afterAll(async () => {
    for (const agent of world.agents) await agent.stop("SIGKILL");
    await world.server.close();
    await world.env.close();
  });
  return world;
}

/** Blobs in a large database: ~40 MiB of incompressible documents, five upload parts and a short sixth. */
export const LARGE_DATABASE_BLOBS = 40;

/** Fills `database` with LARGE_DATABASE_BLOBS documents of 1 MiB random bytes, so an upload can be caught midway. */
export async function seedLargeDatabase(env: AgentTestEnv, database: string) {
  const documents = Array.from({ length: LARGE_DATABASE_BLOBS }, (_, i) => ({ _id: i, blob: new Binary(randomBytes(1024 * 1024)) }));
  await env.client
    .db(database)
    .collection("blobs")
    .insertMany(documents as never[]);
}

/** The backup once it is completed or failed; a minute by default (a dump, upload and read-back on a loaded machine). */
export async function waitForBackupEnd(api: ReturnType<typeof apiFor>, backupId: string, timeoutMs = 60_000) {
  return waitUntil(
    async () => {
      const backup = (await api("GET", `/api/backups/${backupId}`)).body;
      return backup.status === "completed" || backup.status === "failed" ? backup : undefined;
    },
    { message: "the backup to end", timeout: timeoutMs },
  );
}

/** Runs the stalled-operation sweeper once with the server's clock past the stall timeout (in production it runs every 15 s). */
export async function sweepStalledOperationsLater(server: TestServer) {
  const realNow = server.ctx.now;
  server.ctx.now = () => new Date(Date.now() + STALLED_TIMEOUT_MS + 60_000);
  try {
    await expireLeases(server.ctx);
  } finally {
    server.ctx.now = realNow;
  }
}

/**
 * A new user whose agent is set up for one database (named "main" in the agent); `start()` runs
 * the agent (again, after a test stopped it) and resolves once the server shows it online.
 */
export async function setUpUserWithAgent(world: EndToEndWorld, database: string, setupArgs: string[] = []) {
  const user = await world.server.registerUser();
  const api = apiFor(world.base, user.token);
  const setup = await runSetup({
    baseUrl: world.base,
    apiKey: user.apiKey,
    databases: [{ name: "main", uri: world.env.uriFor(database) }],
    directory: await world.env.makeTempDir(),
    extraArgs: setupArgs,
  });
  expect(setup.exitCode).toBe(0);
  const start = async () => {
    const agent = startAgentProcess(setup.configPath);
    world.agents.push(agent);
    await waitUntil(async () => (await api("GET", "/api/settings/system-status")).body.agents[0]?.status === "active", {
      message: "the agent to be online",
      timeout: 30_000,
    });
    return agent;
  };
  return { user, api, configPath: setup.configPath, setupStderr: setup.stderr, start };
}
