// Failure paths of the real path (server + compiled agent + MongoDB test server over loopback):
// a restore with the wrong master key fails with a clear reason and leaves the data untouched,
// and an agent killed or stopped mid-upload leaves a failed backup with a reason, never one
// in progress forever.
import { expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { backupParts, organizations } from "@db/schema";
import { snapshotDatabase } from "./support/database-snapshot.ts";
import { runSetup } from "./support/end-to-end.ts";
import { seedLargeDatabase, setUpUserWithAgent, sweepStalledOperationsLater, useEndToEndWorld, waitForBackupEnd } from "./support/end-to-end-world.ts";
import { BINARY_PATH, runAgent } from "./support/run-agent.ts";
import { waitUntil } from "../../testkit/wait-until";
import { RESTARTED_BACKUP_MESSAGE } from "../../server/src/modules/agent-link/lost-jobs";

const world = useEndToEndWorld();

const startUserWithAgent = (database: string) => setUpUserWithAgent(world, database);

test("a restore with the wrong master key is refused with a clear reason and leaves the database untouched", async () => {
  const database = world.env.uniqueDatabase("wrongkey");
  await world.env.client
    .db(database)
    .collection("orders")
    .insertMany([
      { _id: 1, total: 10 },
      { _id: 2, total: 20 },
    ] as never[]);
  const { user, api, configPath, start } = await startUserWithAgent(database);
  let agent = await start();
  const created = await api("POST", "/api/backups", { databaseName: "main" });
  expect(created.status).toBe(201);
  expect(await waitForBackupEnd(api, created.body._id)).toMatchObject({ status: "completed" });

  // The machine's key is replaced (e.g. a reinstall without the saved key).
  expect(await agent.stop("SIGTERM")).toBe(0);
  const regenerated = await runAgent(["key", "generate", "--force", "--config", configPath], { command: [BINARY_PATH] });
  expect(regenerated.exitCode).toBe(0);
  await world.env.client
    .db(database)
    .collection("orders")
    .insertOne({ _id: 3, total: 30, addedAfterBackup: true } as never);
  const before = await snapshotDatabase(world.env.client.db(database));
  agent = await start();

  // The agent's hello names the key it holds now: no agent of the account can open the backup, so
  // the server refuses before any agent touches the database, saying which key and how to bring it.
  const requested = await api("POST", `/api/backups/${created.body._id}/restore`, { databaseName: "main" });
  expect(requested.status).toBe(409);
  expect(requested.body.message).toMatch(
    /^No agent can read this backup: none of this organization's agents holds the key [0-9a-f]{32}, so nothing was changed\./,
  );
  expect(requested.body.message).toContain("dbvault-agent key import (from what dbvault-agent key export saved)");
  expect((await api("GET", "/api/backups/restores/all")).body).toEqual([]);
  expect(await snapshotDatabase(world.env.client.db(database))).toEqual(before);
});

test("an agent killed mid-upload leaves a backup that the server fails with a reason, its parts released", async () => {
  const database = world.env.uniqueDatabase("killed");
  await seedLargeDatabase(world.env, database);
  const { user, api, start } = await startUserWithAgent(database);
  const agent = await start();
  const created = await api("POST", "/api/backups", { databaseName: "main" });
  expect(created.status).toBe(201);
  const backupId = created.body._id;
  await waitUntil(async () => (await world.server.ctx.db.select().from(backupParts).where(eq(backupParts.backupId, backupId))).length > 0, {
    message: "a first uploaded part",
    timeout: 60_000,
  });
  await agent.stop("SIGKILL");
  expect((await api("GET", `/api/backups/${backupId}`)).body.status).toBe("in-progress");

  await sweepStalledOperationsLater(world.server);
  const backup = (await api("GET", `/api/backups/${backupId}`)).body;
  expect(backup).toMatchObject({ status: "failed", error: "The agent stopped reporting during the backup (disconnected or stopped)." });
  expect(await world.server.ctx.db.select().from(backupParts).where(eq(backupParts.backupId, backupId))).toEqual([]);
  const [row] = await world.server.ctx.db.select({ storageUsed: organizations.storageUsed }).from(organizations).where(eq(organizations.id, user.id));
  expect(Number(row!.storageUsed)).toBe(0);
}, 120_000);

test("an agent killed mid-upload and started again fails that backup at once, its parts released, and backs up again", async () => {
  const database = world.env.uniqueDatabase("restarted");
  await seedLargeDatabase(world.env, database);
  const { user, api, start } = await startUserWithAgent(database);
  const agent = await start();
  const created = await api("POST", "/api/backups", { databaseName: "main" });
  expect(created.status).toBe(201);
  const backupId = created.body._id;
  await waitUntil(async () => (await world.server.ctx.db.select().from(backupParts).where(eq(backupParts.backupId, backupId))).length > 0, {
    message: "a first uploaded part",
    timeout: 60_000,
  });
  await agent.stop("SIGKILL");
  expect((await api("GET", `/api/backups/${backupId}`)).body.status).toBe("in-progress");

  // Back within seconds, with no sweep: its hello names no backup, so the one it ran is lost.
  await start();
  const backup = await waitForBackupEnd(api, backupId, 30_000);
  expect(backup).toMatchObject({ status: "failed", error: RESTARTED_BACKUP_MESSAGE });
  expect(await world.server.ctx.db.select().from(backupParts).where(eq(backupParts.backupId, backupId))).toEqual([]);
  const [row] = await world.server.ctx.db.select({ storageUsed: organizations.storageUsed }).from(organizations).where(eq(organizations.id, user.id));
  expect(Number(row!.storageUsed)).toBe(0);
  // "Back up now" is no longer refused as "already running" (failed manual backups do not count against the plan's limit).
  const again = await api("POST", "/api/backups", { databaseName: "main" });
  expect(again.status).toBe(201);
  expect(await waitForBackupEnd(api, again.body._id, 120_000)).toMatchObject({ status: "completed" });
}, 240_000);

test("an agent stopped (SIGTERM) mid-upload reports the backup failed at once and exits 0", async () => {
  const database = world.env.uniqueDatabase("stopped");
  await seedLargeDatabase(world.env, database);
  const { api, start } = await startUserWithAgent(database);
  const agent = await start();
  const created = await api("POST", "/api/backups", { databaseName: "main" });
  const backupId = created.body._id;
  await waitUntil(async () => (await world.server.ctx.db.select().from(backupParts).where(eq(backupParts.backupId, backupId))).length > 0, {
    message: "a first uploaded part",
    timeout: 60_000,
  });
  expect(await agent.stop("SIGTERM")).toBe(0);
  const backup = await waitForBackupEnd(api, backupId);
  expect(backup).toMatchObject({ status: "failed", error: "the agent was stopped during the backup (dbvault-agent run received a stop signal)" });
}, 120_000);

test("setup with a refused API key explains it and writes no config", async () => {
  const directory = await world.env.makeTempDir();
  const database = world.env.uniqueDatabase("refused");
  const setup = await runSetup({
    baseUrl: world.base,
    apiKey: "dbv_not-a-real-key",
    databases: [{ name: "main", uri: world.env.uriFor(database) }],
    directory,
  });
  expect(setup.stderr).toContain(`dbvault-agent: registering with ${world.base} failed: the DBVault server answered 401: This API key is not valid.`);
  expect(setup.stderr).toContain("dbvault-agent: hint: copy the API key again from Settings → Security");
  expect(setup.stderr).not.toContain("dbv_not-a-real-key");
  expect(setup.exitCode).toBe(1);
  expect(await Bun.file(setup.configPath).exists()).toBe(false);
});

test("a reset from the web app gives the agent new credentials, which it saves and reconnects with", async () => {
  const database = world.env.uniqueDatabase("reset");
  await world.env.client
    .db(database)
    .collection("x")
    .insertOne({ _id: 1 } as never);
  const { api, configPath, start } = await startUserWithAgent(database);
  const agent = await start();
  const before = JSON.parse(await Bun.file(configPath).text()).server;
  const connections = (log: string) => log.split("connected to the DBVault server").length - 1;
  const connectedBefore = connections(agent.log());
  const reset = await api("POST", `/api/agents/manage/${before.agentId}`, { action: "reset" });
  expect(reset.status).toBe(200);
  const after = await waitUntil(
    async () => {
      const server = JSON.parse(await Bun.file(configPath).text()).server;
      return server.agentToken !== before.agentToken ? server : undefined;
    },
    { message: "the new token in the config", timeout: 30_000 },
  );
  const newToken = String(after.agentToken);
  expect(newToken).toStartWith("dbvt_");
  expect(after).toMatchObject({ agentId: before.agentId, apiKey: before.apiKey });
  // Asked before the new socket is up, a backup can go to the closing one and wait for the
  // stalled-job sweep (2 min): reconnected means welcomed again, with the new token.
  // (It was online to be reset: once at least, even if its log had not said so yet.)
  const reconnected = Math.max(connectedBefore, 1) + 1;
  await waitUntil(async () => connections(agent.log()) >= reconnected || undefined, { message: "the agent connected again", timeout: 30_000 });
  const created = await waitUntil(
    async () => {
      const response = await api("POST", "/api/backups", { databaseName: "main" });
      return response.status === 201 ? response.body : undefined;
    },
    { message: "a backup accepted after the reconnection", timeout: 30_000 },
  );
  expect(await waitForBackupEnd(api, created._id)).toMatchObject({ status: "completed" });
  expect(agent.log()).not.toContain(newToken);
});
