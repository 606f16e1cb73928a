// A user's storage used is always the sizes of their completed backups plus the part rows of
// their running uploads (modules/organizations/storage-quota.ts), whatever happens at once: parts
// uploaded and resent, backups completed, failed and deleted side by side.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { and, eq, inArray, sql } from "drizzle-orm";
import { backupParts, backups, plans, organizations } from "@db/schema";
import { agentApi, UPLOAD_PART_SIZE } from "@protocol/agent-protocol";
import { startTestServer, type TestServer, type TestUser } from "./harness";
import { registerScriptedAgent, type ScriptedAgent } from "./scripted-agent";

let server: TestServer;
let base: string;

beforeAll(async () => {
  server = await startTestServer();
  base = server.listen();
});
afterAll(() => server.close());

/** storage_used as recorded, and as the rows say it must be. */
async function storageOf(userId: string) {
  const [user] = await server.ctx.db.select({ used: organizations.storageUsed }).from(organizations).where(eq(organizations.id, userId));
  const [completed] = await server.ctx.db
    .select({ bytes: sql<string>`coalesce(sum(${backups.size}), 0)` })
    .from(backups)
    .where(and(eq(backups.organizationId, userId), eq(backups.status, "completed")));
  const [inFlight] = await server.ctx.db
    .select({ bytes: sql<string>`coalesce(sum(${backupParts.size}), 0)` })
    .from(backupParts)
    .innerJoin(backups, eq(backups.id, backupParts.backupId))
    .where(and(eq(backups.organizationId, userId), inArray(backups.status, ["pending", "in-progress"])));
  return { recorded: Number(user!.used), expected: Number(completed!.bytes) + Number(inFlight!.bytes) };
}

async function startBackups(user: TestUser, agent: ScriptedAgent, names: string[]) {
  for (const databaseName of names) {
    expect((await server.call("POST", "/api/backups", { token: user.token, body: { databaseName } })).status).toBe(201);
  }
  const ids: Record<string, string> = {};
  for (const _ of names) {
    const command = await agent.waitFor("backup");
    ids[command.databaseName] = command.backupId;
  }
  return ids;
}

const failUpload = (agent: ScriptedAgent, backupId: string) =>
  fetch(`${base}${agentApi.fail(backupId)}`, {
    method: "POST",
    headers: { ...agent.headers(), "content-type": "application/json" },
    body: JSON.stringify({ error: "the dump failed" }),
  });

test("storage used equals completed backups plus parts in flight after concurrent uploads, failures and deletions", async () => {
  const user = await server.registerUser();
  // Five databases, and room for everything: the test is about the count, not the limit.
  const [roomy] = await server.ctx.db
    .insert(plans)
    .values({ name: `Roomy ${Date.now()}`, price: 0, storageLimit: 1e12, dbLimit: 10, retentionLimit: 168, frequencyLimit: 1 })
    .returning();
  await server.ctx.db.update(organizations).set({ planId: roomy!.id }).where(eq(organizations.id, user.id));
  const agent = await registerScriptedAgent(base, user.apiKey, ["kept", "deleted", "failed", "running", "resent"]);
  await agent.connect();
  const ids = await startBackups(user, agent, ["kept", "deleted", "failed", "running", "resent"]);
  const twoParts = randomBytes(UPLOAD_PART_SIZE + 300_000);
  const onePart = randomBytes(200_000);

  await Promise.all([
    // Completed and kept.
    agent.upload(ids.kept!, twoParts).then((res) => expect(res.status).toBe(200)),
    // Completed, then deleted by the user.
    agent.upload(ids.deleted!, onePart).then(async (res) => {
      expect(res.status).toBe(200);
      expect((await server.call("DELETE", `/api/backups/${ids.deleted}`, { token: user.token })).status).toBe(200);
    }),
    // A part stored, then the agent reports the dump failed: its part is released.
    agent.uploadPart(ids.failed!, 0, twoParts.subarray(0, UPLOAD_PART_SIZE)).then(async (res) => {
      expect(res.ok).toBe(true);
      expect((await failUpload(agent, ids.failed!)).ok).toBe(true);
    }),
    // One part stored, still running: counted as in flight.
    agent.uploadPart(ids.running!, 0, twoParts.subarray(0, UPLOAD_PART_SIZE)).then((res) => expect(res.ok).toBe(true)),
    // The same part sent twice with different sizes (a retry after a change): counted once, at its last size.
    agent.uploadPart(ids.resent!, 0, onePart).then(async (res) => {
      expect(res.ok).toBe(true);
      expect((await agent.uploadPart(ids.resent!, 0, onePart.subarray(0, 50_000))).ok).toBe(true);
    }),
  ]);

  const after = await storageOf(user.id);
  expect(after.recorded).toBe(after.expected);
  expect(after.recorded).toBe(twoParts.byteLength + UPLOAD_PART_SIZE + 50_000);

  // The running uploads end: one completes, one fails; the invariant still holds and only
  // completed backups remain counted.
  expect((await agent.uploadPart(ids.running!, 1, twoParts.subarray(UPLOAD_PART_SIZE))).ok).toBe(true);
  expect((await agent.complete(ids.running!, twoParts, 2)).status).toBe(200);
  expect((await failUpload(agent, ids.resent!)).ok).toBe(true);
  const end = await storageOf(user.id);
  expect(end.recorded).toBe(end.expected);
  expect(end.recorded).toBe(2 * twoParts.byteLength);
  await agent.disconnect();
});
