// Server-side failure paths of the real path (server + compiled agent + MongoDB test server over
// loopback): the server restarted while a backup is uploading (the agent resends the part that
// was cut and the backup completes intact, counted once), the server restarted while the agent is
// gone too (the stalled backup is failed with its reason, nothing left behind), and a backup that
// does not fit the plan's storage (STORAGE_LIMIT_EXCEEDED, storage released, the agent carries on), and the
// server restarted while it completes an upload (the agent asks again; the backup completes and verifies).
import { expect, test } from "bun:test";
import { createHash, randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { backupParts, plans, organizations } from "@db/schema";
import { summarizeArchive } from "../src/dump/mongodump-archive/index.ts";
import { snapshotDatabase } from "./support/database-snapshot.ts";
import { runSetup, startAgentProcess } from "./support/end-to-end.ts";
import { LARGE_DATABASE_BLOBS, seedLargeDatabase, sweepStalledOperationsLater, useEndToEndWorld, waitForBackupEnd } from "./support/end-to-end-world.ts";
import { BINARY_PATH, runAgent } from "./support/run-agent.ts";
import { apiFor, freezeUploadCompletion, freezeUploadPart, listStoredFiles } from "./support/server-faults.ts";
import { waitUntil } from "../../testkit/wait-until";

const world = useEndToEndWorld();
const { agents } = world;
// Backups here may wait out a server restart.
const BACKUP_END_TIMEOUT_MS = 60_000;

/** A user (optionally on `planId`, assigned by an admin) whose agent is set up for `databases` and running. */
async function startUserWithAgent(databases: Record<string, string>, planId?: string) {
  const user = await world.server.registerUser();
  if (planId) {
    const admin = await world.server.registerAdmin();
    const assigned = await apiFor(world.base, admin.token)("PUT", `/api/admin/users/${user.id}`, { plan: planId });
    expect(assigned.status).toBe(200);
  }
  const api = apiFor(world.base, user.token);
  const list = Object.entries(databases).map(([name, database]) => ({ name, uri: world.env.uriFor(database) }));
  const setup = await runSetup({ baseUrl: world.base, apiKey: user.apiKey, databases: list, directory: await world.env.makeTempDir() });
  expect(setup.exitCode).toBe(0);
  const agent = startAgentProcess(setup.configPath);
  agents.push(agent);
  await waitUntilOnline(api);
  return { user, api, agent, configPath: setup.configPath };
}

async function waitUntilOnline(api: ReturnType<typeof apiFor>) {
  await waitUntil(async () => (await api("GET", "/api/settings/system-status")).body.agents?.[0]?.status === "active", {
    message: "the agent to be online",
    timeout: 30_000,
  });
}

async function storageUsedOf(userId: string) {
  const [row] = await world.server.ctx.db.select({ storageUsed: organizations.storageUsed }).from(organizations).where(eq(organizations.id, userId));
  return Number(row!.storageUsed);
}

const partsOf = (backupId: string) => world.server.ctx.db.select().from(backupParts).where(eq(backupParts.backupId, backupId));

test("a server restarted mid-upload: the agent resends the cut part, the backup completes intact and is counted once", async () => {
  const database = world.env.uniqueDatabase("restarted");
  await seedLargeDatabase(world.env, database);
  const original = await snapshotDatabase(world.env.client.db(database));
  const { user, api, agent, configPath } = await startUserWithAgent({ main: database });

  const frozen = freezeUploadPart(world.server.ctx, 2);
  const created = await api("POST", "/api/backups", { databaseName: "main" });
  expect(created.status).toBe(201);
  const backupId = created.body._id;
  expect(await frozen).toBe(backupId);
  // Parts 0 and 1 are acknowledged; part 2 is only reserved (not stored) when the server goes down,
  // and so is part 3 if the agent had sent it too (it keeps two parts in flight). Part 1 can still
  // be on its way to being marked stored when part 2 reaches storage: wait for it, not for a time.
  const sortedParts = async () => (await partsOf(backupId)).sort((a, b) => a.partNumber - b.partNumber);
  const before = await waitUntil(
    async () => {
      const parts = await sortedParts();
      return parts[1]?.stored === true && parts;
    },
    { message: "part 1 to be stored" },
  );
  expect(before.slice(0, 3).map((p) => [p.partNumber, p.stored])).toEqual([
    [0, true],
    [1, true],
    [2, false],
  ]);
  expect(before.slice(3).map((p) => [p.partNumber, p.stored])).toEqual(before.length > 3 ? [[3, false]] : []);
  expect((await api("GET", `/api/backups/${backupId}`)).body.status).toBe("in-progress");

  await world.server.restart();
  const backup = await waitForBackupEnd(api, backupId, BACKUP_END_TIMEOUT_MS);
  expect(backup).toMatchObject({ status: "completed", error: null });
  const after = (await partsOf(backupId)).sort((a, b) => a.partNumber - b.partNumber);
  expect(after.map((p) => [p.partNumber, p.stored])).toEqual([0, 1, 2, 3, 4, 5].map((n) => [n, true]));
  // The acknowledged parts were not sent again: the agent resumed from the cut one.
  expect(after.slice(0, 2).map((p) => p.createdAt.getTime())).toEqual(before.slice(0, 2).map((p) => p.createdAt.getTime()));
  // Every byte counted once: the reservation of the part cut by the restart is not counted again.
  expect(await storageUsedOf(user.id)).toBe(backup.size);
  expect((await listStoredFiles(world.server.ctx)).filter((file) => file.includes(backupId) && file.startsWith(".uploads"))).toEqual([]);
  await waitUntilOnline(api);
  // The agent logs once the completion call has answered, a moment after the server recorded it.
  await waitUntil(() => agent.log().includes('"msg":"backup completed and uploaded"'), { message: "the agent to log the completed upload", timeout: 30_000 });
  expect(agent.log()).not.toContain('"msg":"backup failed"');

  // The stored file is the agent's ciphertext, whole: its checksum matches and it decrypts.
  const response = await fetch(`${world.base}/api/backups/${backupId}/download`, { headers: { authorization: `Bearer ${user.token}` } });
  expect(response.status).toBe(200);
  const bytes = Buffer.from(await response.arrayBuffer());
  expect(bytes.length).toBe(backup.size);
  expect(createHash("sha256").update(bytes).digest("hex")).toBe(backup.sha256);
  const directory = await world.env.makeTempDir();
  await writeFile(join(directory, "download.enc.dbvault"), bytes);
  const decrypted = await runAgent(
    ["decrypt", "--in", join(directory, "download.enc.dbvault"), "--out", join(directory, "download.archive"), "--config", configPath],
    { command: [BINARY_PATH] },
  );
  expect(decrypted.exitCode).toBe(0);
  const summary = await summarizeArchive([await Bun.file(join(directory, "download.archive")).bytes()]);
  expect(summary.namespaces.map((n) => [n.namespace, n.documentCount])).toEqual([[`${database}.blobs`, LARGE_DATABASE_BLOBS]]);

  // And a restore after losing the data brings back every document byte for byte.
  await world.env.client.db(database).dropDatabase();
  const requested = await api("POST", `/api/backups/${backupId}/restore`, { databaseName: "main" });
  expect(requested.status).toBe(201);
  const restoreId = requested.body.restore._id;
  const restore = await waitUntil(
    async () => {
      const found = (await api("GET", "/api/backups/restores/all")).body.find((r: { _id: string }) => r._id === restoreId);
      return found && (found.status === "completed" || found.status === "failed") ? found : undefined;
    },
    { message: "the restore to end", timeout: 30_000 },
  );
  expect(restore).toMatchObject({ status: "completed" });
  expect(await snapshotDatabase(world.env.client.db(database))).toEqual(original);
}, 180_000);

test("a server restarted while completing the upload: the agent asks again and the backup completes, read back and verified", async () => {
  const database = world.env.uniqueDatabase("completing");
  await seedLargeDatabase(world.env, database);
  const { user, api, agent } = await startUserWithAgent({ main: database });

  const frozen = freezeUploadCompletion(world.server.ctx);
  const created = await api("POST", "/api/backups", { databaseName: "main" });
  expect(created.status).toBe(201);
  const backupId = created.body._id;
  // Every part is stored; the server dies while it puts them together.
  expect(await frozen).toBe(backupId);
  expect((await partsOf(backupId)).every((part) => part.stored)).toBe(true);
  await world.server.restart();

  const backup = await waitForBackupEnd(api, backupId, BACKUP_END_TIMEOUT_MS);
  expect(backup).toMatchObject({ status: "completed", error: null });
  expect(await storageUsedOf(user.id)).toBe(backup.size);
  expect((await listStoredFiles(world.server.ctx)).filter((file) => file.includes(backupId) && file.startsWith(".uploads"))).toEqual([]);
  // Proven readable: the agent read the stored file back through the restarted server.
  const verified = await waitUntil(
    async () => {
      const found = (await api("GET", `/api/backups/${backupId}`)).body;
      return found.verifiedAt ? found : undefined;
    },
    { message: "the backup to be verified", timeout: 60_000 },
  );
  expect(verified.verification).toMatchObject({ status: "ok", namespaces: { [`${database}.blobs`]: LARGE_DATABASE_BLOBS } });
  expect(agent.log()).not.toContain('"msg":"backup failed"');
}, 180_000);

test("a server restarted while the agent is gone too fails the stalled backup with its reason, leaving nothing behind", async () => {
  const database = world.env.uniqueDatabase("orphaned");
  await seedLargeDatabase(world.env, database);
  const { user, api, agent } = await startUserWithAgent({ main: database });
  const frozen = freezeUploadPart(world.server.ctx, 2);
  const created = await api("POST", "/api/backups", { databaseName: "main" });
  const backupId = created.body._id;
  expect(await frozen).toBe(backupId);
  await agent.stop("SIGKILL");
  await world.server.restart();
  expect((await api("GET", `/api/backups/${backupId}`)).body.status).toBe("in-progress");
  expect((await listStoredFiles(world.server.ctx)).some((file) => file.includes(backupId))).toBe(true);

  // The new process's sweeper (every 15 s in production) runs once, its clock past the stall timeout.
  await sweepStalledOperationsLater(world.server);
  expect((await api("GET", `/api/backups/${backupId}`)).body).toMatchObject({
    status: "failed",
    error: "The agent stopped reporting during the backup (disconnected or stopped).",
  });
  expect(await partsOf(backupId)).toEqual([]);
  expect(await storageUsedOf(user.id)).toBe(0);
  expect((await listStoredFiles(world.server.ctx)).filter((file) => file.includes(backupId))).toEqual([]);
}, 120_000);

test("a backup past the plan's storage fails with STORAGE_LIMIT_EXCEEDED, frees what it used, and the agent carries on", async () => {
  const MiB = 1024 * 1024;
  // 20 MiB: the ~40 MiB backup stores parts 0 and 1 (8 MiB each), then part 2 does not fit.
  const [tiny] = await world.server.ctx.db
    .insert(plans)
    .values({ name: `Tiny ${randomBytes(3).toString("hex")}`, price: 0, storageLimit: 20 * MiB, dbLimit: 2, retentionLimit: 168, frequencyLimit: 24 })
    .returning();
  const small = world.env.uniqueDatabase("small");
  await world.env.client
    .db(small)
    .collection("orders")
    .insertMany([
      { _id: 1, total: 10 },
      { _id: 2, total: 20 },
    ] as never[]);
  const big = world.env.uniqueDatabase("big");
  await seedLargeDatabase(world.env, big);
  const { user, api, agent } = await startUserWithAgent({ small, big }, tiny!.id);

  const first = await api("POST", "/api/backups", { databaseName: "small" });
  expect(first.status).toBe(201);
  const kept = await waitForBackupEnd(api, first.body._id, BACKUP_END_TIMEOUT_MS);
  expect(kept.status).toBe("completed");
  expect((await api("GET", "/api/user/plan")).body).toMatchObject({ storageLimit: 20 * MiB, storageUsed: kept.size });
  const filesBefore = await listStoredFiles(world.server.ctx);

  const refused = await api("POST", "/api/backups", { databaseName: "big" });
  expect(refused.status).toBe(201);
  const failed = await waitForBackupEnd(api, refused.body._id, BACKUP_END_TIMEOUT_MS);
  const reason = `Storage limit exceeded: this backup does not fit in your ${tiny!.name} plan's storage. Delete old backups, shorten retention or upgrade your plan.`;
  expect(failed).toMatchObject({ status: "failed", error: reason });
  const audit = (await api("GET", "/api/user/audit-logs")).body.logs as { action: string; details: Record<string, unknown> }[];
  expect(audit.find((entry) => entry.action === "STORAGE_LIMIT_EXCEEDED")?.details).toMatchObject({ backupId: failed._id, databaseName: "big" });
  expect(audit.find((entry) => entry.action === "BACKUP_FAILED")?.details).toMatchObject({ backupId: failed._id, reason });
  expect((await api("GET", "/api/user/plan")).body.storageUsed).toBe(kept.size);
  expect(await partsOf(failed._id)).toEqual([]);
  // The staged parts are deleted just after the failure is recorded: give that a moment, not more.
  const sameFiles = async () => JSON.stringify(await listStoredFiles(world.server.ctx)) === JSON.stringify(filesBefore);
  await waitUntil(sameFiles, { message: "the failed backup's staged parts to be deleted", timeout: 5_000 });
  await waitUntil(() => agent.log().includes('"msg":"backup failed"'), { message: "the agent to log the refusal", timeout: 30_000 });
  expect(agent.log()).toContain("Storage limit exceeded");

  // Still connected: once the plan allows it, the same agent backs the database up.
  await waitUntilOnline(api);
  await world.server.ctx.db
    .update(plans)
    .set({ storageLimit: 1024 * MiB })
    .where(eq(plans.id, tiny!.id));
  const retried = await api("POST", "/api/backups", { databaseName: "big" });
  expect(retried.status).toBe(201);
  const done = await waitForBackupEnd(api, retried.body._id, BACKUP_END_TIMEOUT_MS);
  expect(done).toMatchObject({ status: "completed", error: null });
  expect(done.size).toBeGreaterThan(LARGE_DATABASE_BLOBS * MiB);
  expect((await api("GET", "/api/user/plan")).body.storageUsed).toBe(kept.size + done.size);
}, 180_000);
