// An agent killed mid-backup (or mid-restore) and back within seconds: its hello names the jobs
// its new process holds, and the server fails at once the one it had in progress and that is
// not named, instead of keeping it "in-progress" (and "Back up now" refused, its parts counted
// in quota) until the stall sweep 10 minutes on. Over real HTTP and WebSockets with a scripted
// agent, whose disconnect and new hello are what a killed and restarted agent's are.
import { describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { backupParts, databases } from "@db/schema";
import { waitUntil } from "../../testkit/wait-until";
import { startBackup } from "../src/modules/backups/service";
import { RESTARTED_BACKUP_MESSAGE, RESTARTED_RESTORE_MESSAGE } from "../src/modules/agent-link/lost-jobs";
import { type TestUser, useListeningTestServer } from "./harness";
import { registerScriptedAgent, type ScriptedAgent } from "./scripted-agent";

const world = useListeningTestServer();
const noJobs = { backupIds: [], restoreIds: [] };

async function userWithAgent() {
  const user = await world.server.registerUser();
  const agent = await registerScriptedAgent(world.base, user.apiKey, ["shop"]);
  await agent.connect({ databases: ["shop"], jobs: noJobs });
  return { user, agent };
}

const backUpNow = (user: TestUser) => world.server.call("POST", "/api/backups", { token: user.token, body: { databaseName: "shop" } });
const getBackup = async (user: TestUser, backupId: string) => (await world.server.call("GET", `/api/backups/${backupId}`, { token: user.token })).body;
const storageUsed = async (user: TestUser) => (await world.server.call("GET", "/api/user/profile", { token: user.token })).body.storageUsed as number;

/** A scheduled backup the agent started and uploaded a first part of. */
async function backupInProgress(user: TestUser, agent: ScriptedAgent) {
  const [shop] = await world.server.ctx.db
    .select()
    .from(databases)
    .where(and(eq(databases.agentId, agent.agentId), eq(databases.name, "shop")));
  await startBackup(world.server.ctx, shop!, "auto");
  const { backupId } = await agent.waitFor("backup");
  agent.send({ type: "backup.progress", backupId, progress: { current: 1, total: 10, percentage: 10, collection: "shop.orders" } });
  expect((await agent.uploadPart(backupId, 0, randomBytes(4000))).status).toBe(200);
  await waitUntil(async () => (await getBackup(user, backupId)).status === "in-progress", { message: "the backup to run" });
  expect(await storageUsed(user)).toBe(4000);
  return backupId;
}

/** Waits until the hello was handled: the agent shows online with the hostname it said. */
async function helloHandled(user: TestUser, hostname: string) {
  await waitUntil(
    async () => {
      const agents = (await world.server.call("GET", "/api/settings/system-status", { token: user.token })).body.agents as { hostname: string }[];
      return agents[0]?.hostname === hostname;
    },
    { message: "the hello to be recorded" },
  );
}

describe("an agent that comes back without the job it was running", () => {
  test("a backup it ran fails at once, its parts released, and Back up now works again", async () => {
    const { user, agent } = await userWithAgent();
    const backupId = await backupInProgress(user, agent);
    expect((await backUpNow(user)).body.message).toBe('A backup of "shop" is already running.');

    // Killed: the socket drops; the new process says hello holding nothing.
    await agent.disconnect();
    await agent.connect({ databases: ["shop"], jobs: noJobs });

    await waitUntil(async () => (await getBackup(user, backupId)).status === "failed", { message: "the lost backup to fail" });
    expect(await getBackup(user, backupId)).toMatchObject({ status: "failed", error: RESTARTED_BACKUP_MESSAGE });
    expect(await world.server.ctx.db.select().from(backupParts).where(eq(backupParts.backupId, backupId))).toEqual([]);
    expect(await storageUsed(user)).toBe(0);
    expect((await backUpNow(user)).status).toBe(201);
  });

  test("a backup its hello names goes on (a network blip, not a restart)", async () => {
    const { user, agent } = await userWithAgent();
    const backupId = await backupInProgress(user, agent);
    await agent.disconnect();
    await agent.connect({ databases: ["shop"], hostname: "after-blip", jobs: { backupIds: [backupId], restoreIds: [] } });

    await helloHandled(user, "after-blip");
    expect((await getBackup(user, backupId)).status).toBe("in-progress");
    expect(await storageUsed(user)).toBe(4000);
  });

  test("an older agent, whose hello names no jobs, is left to the stall sweep", async () => {
    const { user, agent } = await userWithAgent();
    const backupId = await backupInProgress(user, agent);
    await agent.disconnect();
    await agent.connect({ databases: ["shop"], hostname: "older-agent" });

    await helloHandled(user, "older-agent");
    expect((await getBackup(user, backupId)).status).toBe("in-progress");
  });

  test("a restore it ran fails at once, saying what the database may hold", async () => {
    const { user, agent } = await userWithAgent();
    expect((await backUpNow(user)).status).toBe(201);
    const { backupId } = await agent.waitFor("backup");
    expect((await agent.upload(backupId, randomBytes(3000))).status).toBe(200);
    const requested = await world.server.call("POST", `/api/backups/${backupId}/restore`, { token: user.token, body: { databaseName: "shop" } });
    expect(requested.status).toBe(201);
    const { restoreId } = await agent.waitFor("restore");
    agent.send({ type: "restore.started", restoreId });
    const restoreStatus = async () =>
      (
        (await world.server.call("GET", "/api/backups/restores/all", { token: user.token })).body as { _id: string; status: string; error: string | null }[]
      ).find((restore) => restore._id === restoreId);
    await waitUntil(async () => (await restoreStatus())?.status === "in-progress", { message: "the restore to start" });

    await agent.disconnect();
    await agent.connect({ databases: ["shop"], jobs: noJobs });
    await waitUntil(async () => (await restoreStatus())?.status === "failed", { message: "the lost restore to fail" });
    expect((await restoreStatus())?.error).toBe(RESTARTED_RESTORE_MESSAGE);
  });
});
