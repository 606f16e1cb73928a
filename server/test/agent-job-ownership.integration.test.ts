// An agent reports only on the jobs it was given. Two agents of one organization, over real HTTP
// and WebSockets: agent A runs "shop" and holds a completed backup, a pending backup, a pending
// restore and a pending drill; agent B runs "crm". B sends every agent message that names a job,
// naming A's: nothing of A's jobs changes, no audit entry is written and no mail goes out. Then A
// sends the same verification and it is recorded (the table's rows are refused for who sent
// them, not for their shape).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { and, eq, inArray } from "drizzle-orm";
import { auditLogs, backupCopies, backups, databases, restores } from "@db/schema";
import { startBackup } from "../src/modules/backups/service";
import { waitUntil } from "../../testkit/wait-until";
import { startTestServer, type TestServer, type TestUser } from "./harness";
import { registerScriptedAgent, type ScriptedAgent } from "./scripted-agent";

let server: TestServer;
let base: string;
let user: TestUser;
let owner: ScriptedAgent;
let stranger: ScriptedAgent;
type Jobs = { completed: string; pending: string; restore: string; drill: string };
let jobs: Jobs;
/** A pending backup of the stranger's own database: its progress proves its earlier messages were handled. */
let strangersBackup: string;

async function databaseOf(agent: ScriptedAgent, name: string) {
  const [database] = await server.ctx.db
    .select()
    .from(databases)
    .where(and(eq(databases.agentId, agent.agentId), eq(databases.name, name)));
  return database!;
}

async function pendingBackup(agent: ScriptedAgent, name: string) {
  const started = await startBackup(server.ctx, await databaseOf(agent, name), "auto");
  expect((await agent.waitFor("backup")).backupId).toBe(started.id);
  return started.id;
}

async function insertRestore(kind: "restore" | "drill", backupId: string) {
  const [row] = await server.ctx.db
    .insert(restores)
    .values({ organizationId: user.id, backupId, databaseName: "shop", agentId: owner.agentId, kind, status: "pending" })
    .returning();
  return row!.id;
}

beforeAll(async () => {
  server = await startTestServer();
  base = server.listen();
  user = await server.registerUser();
  owner = await registerScriptedAgent(base, user.apiKey, ["shop"], "agent-a");
  await owner.connect({ databases: ["shop"] });
  stranger = await registerScriptedAgent(base, user.apiKey, ["crm"], "agent-b");
  await stranger.connect({ databases: ["crm"] });

  const completed = await pendingBackup(owner, "shop");
  const bytes = randomBytes(1000);
  expect((await owner.uploadPart(completed, 0, bytes)).status).toBe(200);
  expect((await owner.complete(completed, bytes, 1, { collections: { "shop.orders": 2 } })).status).toBe(200);
  const pending = await pendingBackup(owner, "shop");
  jobs = { completed, pending, restore: await insertRestore("restore", completed), drill: await insertRestore("drill", completed) };
  strangersBackup = await pendingBackup(stranger, "crm");
}, 60_000);
afterAll(() => server.close());

/** Everything of the owner's jobs a message could change, and what would announce a change. */
async function snapshot() {
  await server.ctx.pendingWork.settled();
  const db = server.ctx.db;
  return {
    backups: await db
      .select()
      .from(backups)
      .where(inArray(backups.id, [jobs.completed, jobs.pending]))
      .orderBy(backups.id),
    restores: await db
      .select()
      .from(restores)
      .where(inArray(restores.id, [jobs.restore, jobs.drill]))
      .orderBy(restores.id),
    copies: await db.select().from(backupCopies).where(eq(backupCopies.backupId, jobs.completed)),
    audit: (await db.select({ action: auditLogs.action }).from(auditLogs).where(eq(auditLogs.organizationId, user.id))).length,
    mail: server.sentMail.length,
  };
}

let probe = 0;
/** Sends the stranger's own progress after its other messages and waits for it: those were handled (in order). */
async function strangerMessagesHandled() {
  const percentage = ++probe;
  stranger.send({ type: "backup.progress", backupId: strangersBackup, progress: { current: percentage, total: 100, percentage, collection: "crm.a" } });
  await waitUntil(
    async () => {
      const [row] = await server.ctx.db.select({ progress: backups.progress }).from(backups).where(eq(backups.id, strangersBackup));
      return row?.progress?.percentage === percentage;
    },
    { message: "the stranger's own progress to be recorded" },
  );
}

const progress = { current: 5, total: 10, percentage: 50, collection: "shop.orders" };
const stats = { "shop.orders": { restored: 2, failed: 0 } };
const drill = { durationMs: 10, documents: { expected: 2, restored: 2 }, indexes: { expected: 1, found: 1 }, scratchDropped: true };

/** Every agent message that names a backup, restore, drill or copy, naming one of the owner's. */
const hostileMessages: [string, (jobs: Jobs) => Record<string, unknown>][] = [
  ["backup.progress", (j) => ({ type: "backup.progress", backupId: j.pending, progress })],
  ["backup.failed", (j) => ({ type: "backup.failed", backupId: j.pending, error: "forged https://evil.example/fix" })],
  [
    "backup.verified (failed)",
    (j) => ({ type: "backup.verified", backupId: j.completed, verification: { status: "failed", namespaces: {}, error: "forged https://evil.example/fix" } }),
  ],
  ["backup.verified (ok)", (j) => ({ type: "backup.verified", backupId: j.completed, verification: { status: "ok", namespaces: { "shop.orders": 2 } } })],
  [
    "backup.copied",
    (j) => ({
      type: "backup.copied",
      backupId: j.completed,
      destination: "s3://evil/prefix/",
      key: "k",
      status: "failed",
      error: "forged https://evil.example",
    }),
  ],
  ["restore.started", (j) => ({ type: "restore.started", restoreId: j.restore })],
  ["restore.progress", (j) => ({ type: "restore.progress", restoreId: j.restore, progress })],
  ["restore.completed", (j) => ({ type: "restore.completed", restoreId: j.restore, stats })],
  ["restore.failed", (j) => ({ type: "restore.failed", restoreId: j.restore, error: "forged https://evil.example/fix" })],
  ["drill started", (j) => ({ type: "restore.started", restoreId: j.drill })],
  ["drill progress", (j) => ({ type: "restore.progress", restoreId: j.drill, progress })],
  ["drill completed", (j) => ({ type: "restore.completed", restoreId: j.drill, stats, drill })],
  ["drill failed", (j) => ({ type: "restore.failed", restoreId: j.drill, error: "forged", drill })],
  ["heartbeat naming queued jobs", (j) => ({ type: "heartbeat", queued: { backupIds: [j.pending], restoreIds: [j.restore, j.drill] } })],
];

describe("an agent of the same organization that was not given the job", () => {
  test.each(hostileMessages)("%s changes nothing of it", async (_kind, message) => {
    const before = await snapshot();
    stranger.send(message(jobs));
    await strangerMessagesHandled();
    expect(await snapshot()).toEqual(before);
  });

  /** The agent routes that name a backup, answered as for a backup of another organization. */
  const hostileRequests: [string, (j: Jobs) => [string, string, BodyInit | undefined]][] = [
    ["upload status", (j) => ["GET", `/api/agent/backups/${j.pending}/upload`, undefined]],
    ["upload a part", (j) => ["PUT", `/api/agent/backups/${j.pending}/parts/0`, "forged"]],
    ["complete", (j) => ["POST", `/api/agent/backups/${j.pending}/complete`, JSON.stringify({ partCount: 1, size: 6, sha256: "0".repeat(64) })]],
    ["fail", (j) => ["POST", `/api/agent/backups/${j.pending}/fail`, JSON.stringify({ error: "forged" })]],
    ["download", (j) => ["GET", `/api/agent/backups/${j.completed}/download`, undefined]],
    ["read the header", (j) => ["GET", `/api/agent/backups/${j.completed}/header`, undefined]],
  ];
  test.each(hostileRequests)("%s over HTTP changes nothing and reads nothing", async (_kind, request) => {
    const before = await snapshot();
    const [method, path, body] = request(jobs);
    const res = await fetch(`${base}${path}`, { method, headers: { ...stranger.headers(), "content-type": "application/json" }, body });
    // "fail" answers as for any backup the agent does not hold: recorded as nothing.
    if (!path.endsWith("/fail")) expect(res.status).toBeGreaterThanOrEqual(400);
    expect(await res.arrayBuffer().then((b) => b.byteLength < 1000)).toBe(true);
    expect(await snapshot()).toEqual(before);
  });
});

test("the agent that made the backup has its verification recorded", async () => {
  owner.send({ type: "backup.verified", backupId: jobs.completed, verification: { status: "ok", namespaces: { "shop.orders": 2 } } });
  await waitUntil(
    async () => {
      const [row] = await server.ctx.db.select({ verification: backups.verification }).from(backups).where(eq(backups.id, jobs.completed));
      return row?.verification?.status === "ok";
    },
    { message: "the owner's verification to be recorded" },
  );
});
