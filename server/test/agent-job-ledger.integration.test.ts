// The agent job ledger (modules/agent-jobs/): a command is a row, the cluster bus only says "agent
// X has work", and the agent's hello brings every job it has not acknowledged. Over real HTTP and
// WebSockets with a scripted agent (test/scripted-agent.ts) whose `intercept` loses commands as a
// closing socket would.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { type AgentJobKind, agentJobs, agents, databases } from "@db/schema";
import type { ServerMessage } from "@protocol/agent-protocol";
import { waitUntil } from "../../testkit/wait-until";
import { startBackup } from "../src/modules/backups/service";
import { expireLeases, PENDING_TIMEOUT_MS } from "../src/modules/agent-jobs/lease-rules";
import { KEEP_SETTLED_JOBS_MS } from "../src/modules/agent-jobs/service";
import { runMaintenance } from "../src/modules/scheduler/service";
import { advanceServerClock, startTestServer, type TestServer, type TestUser, useListeningTestServer } from "./harness";
import { consistentBackup, uploadSlice, userShippingPitr } from "./pitr-support";
import { registerScriptedAgent, type ScriptedAgent } from "./scripted-agent";

const world = useListeningTestServer();

type RestoreCommand = Extract<ServerMessage, { type: "restore" }>;

/** A user's agent holding "shop", online, with one completed backup of it. */
async function agentWithBackup() {
  const user = await world.server.registerUser();
  const agent = await registerScriptedAgent(world.base, user.apiKey, ["shop"]);
  await agent.connect({ databases: ["shop"] });
  const [shop] = await world.server.ctx.db
    .select()
    .from(databases)
    .where(and(eq(databases.organizationId, user.id), eq(databases.name, "shop")));
  await waitUntil(
    async () =>
      await startBackup(world.server.ctx, shop!, "auto")
        .then(() => true)
        .catch(() => false),
    { message: "the agent to take backups" },
  );
  const { backupId } = await agent.waitFor("backup");
  const bytes = randomBytes(1500);
  expect((await agent.uploadPart(backupId, 0, bytes)).status).toBe(200);
  expect((await agent.complete(backupId, bytes, 1, { collections: { "shop.orders": 3 } })).status).toBe(200);
  return { user, agent, backupId };
}

const askRestore = (user: TestUser, backupId: string, body: Record<string, unknown> = {}) =>
  world.server.call("POST", `/api/backups/${backupId}/restore`, { token: user.token, body: { databaseName: "shop", ...body } });

const restoreStatus = async (user: TestUser, restoreId: string) =>
  ((await world.server.call("GET", "/api/backups/restores/all", { token: user.token })).body as { id: string; status: string }[]).find(
    (row) => row.id === restoreId,
  )?.status;

const jobOf = async (subjectId: string, kind?: AgentJobKind) =>
  (
    await world.server.ctx.db
      .select()
      .from(agentJobs)
      .where(and(eq(agentJobs.subjectId, subjectId), ...(kind ? [eq(agentJobs.kind, kind)] : [])))
  )[0];

/** The agent's socket swaps: it goes, and comes back saying hello (`before` runs while it is away), to `base` if given. */
async function reconnect(agent: ScriptedAgent, before?: () => Promise<void>, base?: string) {
  await agent.disconnect();
  agent.intercept = undefined;
  await before?.();
  await agent.connect({ databases: ["shop"] }, base ? { base } : {});
}

/** Waits until the server handled a message the agent sent after everything before it (messages of a socket are handled in order). */
async function settled(agent: ScriptedAgent) {
  const marker = `${Date.now()}-${Math.random()}`;
  // "waiting": a status that neither starts nor settles an update's job.
  agent.send({ type: "update.status", status: "waiting", message: marker });
  await waitUntil(
    async () => {
      const [row] = await world.server.ctx.db.select({ message: agents.updateMessage }).from(agents).where(eq(agents.id, agent.agentId));
      return row?.message === marker;
    },
    { message: "the agent's messages to be handled" },
  );
}

describe("the agent job ledger", () => {
  test("a restore of 200 chosen collections reaches the agent: the bus carries no command", async () => {
    const { user, agent, backupId } = await agentWithBackup();
    // 200 names of 60 characters: about 13 kB of command, past the 8,000 bytes NOTIFY takes.
    const collections = Array.from({ length: 200 }, (_, n) => `orders_${String(n).padStart(3, "0")}_${"x".repeat(49)}`);
    const asked = await askRestore(user, backupId, { collections });
    expect(asked.status).toBe(201);
    const command = await agent.waitFor("restore");
    expect(command.restoreId).toBe(asked.body.restore.id);
    expect(command.collections).toEqual(collections);
    expect(JSON.stringify(command).length).toBeGreaterThan(8_000);
  });

  test("a point-in-time restore across 100 slices reaches the agent", async () => {
    const { user, agent, databaseId } = await userShippingPitr(world.server, world.base, "shop");
    const T = 1_790_000_000;
    const chain = "c".repeat(32);
    for (let sequence = 0; sequence < 100; sequence++) {
      await uploadSlice(world.server.ctx, world.base, agent, "shop", { chain, sequence, start: `${T + sequence * 10},1`, end: `${T + sequence * 10 + 10},1` });
    }
    await consistentBackup(world.server.ctx, agent, databaseId, { t: T + 5, i: 0 });
    // The last second the slices cover: every one of them is needed.
    const at = new Date((T + 999) * 1000).toISOString().replace(".000Z", "Z");
    const asked = await world.server.call("POST", "/api/restores/point-in-time", { token: user.token, body: { databaseId, at, confirmation: "shop" } });
    expect(asked.status).toBe(201);
    const command = await agent.waitFor("restore");
    expect(command.restoreId).toBe(asked.body.restore.id);
    expect(command.pointInTime).toBeDefined();
  });

  test("a restore lost in a socket swap comes again on hello, once; taken, again (its agent may have restarted); started, never again", async () => {
    const { user, agent, backupId } = await agentWithBackup();
    const lost: RestoreCommand[] = [];
    agent.intercept = (message) => message.type === "restore" && lost.push(message) > 0;
    const asked = await askRestore(user, backupId);
    expect(asked.status).toBe(201);
    const restoreId = asked.body.restore.id as string;
    await waitUntil(() => lost.length === 1, { message: "the restore command to be lost" });
    expect(lost[0]!.jobId).toBeString();

    await reconnect(agent);
    const again = await agent.waitFor("restore");
    expect(again).toEqual(lost[0]!);
    expect((await jobOf(restoreId))?.attempts).toBe(2);
    expect((await jobOf(restoreId))?.agentId).toBe(agent.agentId);
    agent.send({ type: "job.taken", jobId: again.jobId });
    await waitUntil(async () => (await jobOf(restoreId))?.state === "leased", { message: "the job to be acknowledged" });

    // Taken but not started: the next hello brings it again, in case the agent's queue went with
    // its process (an agent that still holds it ignores it).
    await reconnect(agent);
    expect((await agent.waitFor("restore")).jobId).toBe(again.jobId);
    agent.send({ type: "restore.started", restoreId });
    await waitUntil(async () => (await jobOf(restoreId))?.state === "running", { message: "the job to run" });
    // Started: never again.
    await reconnect(agent);
    await settled(agent);
    expect(agent.received.filter((message) => message.type === "restore")).toEqual([]);
    agent.send({ type: "restore.completed", restoreId, stats: { "shop.orders": { restored: 3, failed: 0 } } });
    await waitUntil(async () => (await restoreStatus(user, restoreId)) === "completed", { message: "the restore to complete" });
    expect((await jobOf(restoreId))?.state).toBe("done");
  });

  test("an agent too old to acknowledge: a started restore is not sent again", async () => {
    const { user, agent, backupId } = await agentWithBackup();
    const asked = await askRestore(user, backupId);
    const restoreId = asked.body.restore.id as string;
    await agent.waitFor("restore");
    agent.send({ type: "restore.started", restoreId });
    await waitUntil(async () => (await restoreStatus(user, restoreId)) === "in-progress", { message: "the restore to start" });
    await reconnect(agent);
    await settled(agent);
    expect(agent.received.filter((message) => message.type === "restore")).toEqual([]);
  });

  test("a job survives a server restart: the restore lost with the old server's socket comes from the new one", async () => {
    const { user, agent, backupId } = await agentWithBackup();
    const lost: RestoreCommand[] = [];
    agent.intercept = (message) => message.type === "restore" && lost.push(message) > 0;
    const asked = await askRestore(user, backupId);
    const restoreId = asked.body.restore.id as string;
    await waitUntil(() => lost.length === 1, { message: "the restore command to be lost" });

    await reconnect(agent, () => world.server.restart());
    const again = await agent.waitFor("restore");
    expect(again.restoreId).toBe(restoreId);
    expect(again.jobId).toBe(lost[0]!.jobId);
    agent.send({ type: "job.taken", jobId: again.jobId });
    agent.send({ type: "restore.started", restoreId });
    await waitUntil(async () => (await restoreStatus(user, restoreId)) === "in-progress", { message: "the restore to start" });
  });
});

describe("two server instances sharing one database, the agent moving between them", () => {
  let second: TestServer;
  let secondBase: string;
  beforeAll(async () => {
    second = await startTestServer({}, { instanceOf: world.server });
    secondBase = second.listen();
  }, 60_000);
  afterAll(() => second?.close());

  test("no job is lost and none is sent again once started", async () => {
    const { user, agent, backupId } = await agentWithBackup();
    const restoresOf = (restoreId: string) => agent.received.filter((message) => message.type === "restore" && message.restoreId === restoreId);
    const lost: RestoreCommand[] = [];
    agent.intercept = (message) => message.type === "restore" && lost.push(message) > 0;
    // Asked on the second instance; the agent's socket is on the first, which the bus tells.
    const asked = await second.call("POST", `/api/backups/${backupId}/restore`, { token: user.token, body: { databaseName: "shop" } });
    expect(asked.status).toBe(201);
    const restoreId = asked.body.restore.id as string;
    await waitUntil(() => lost.length === 1, { message: "the restore command to reach the first instance's socket, and be lost" });

    // The agent moves to the second instance: its hello brings the job again.
    await reconnect(agent, undefined, secondBase);
    const again = await agent.waitFor("restore");
    expect(again.jobId).toBe(lost[0]!.jobId);
    agent.send({ type: "job.taken", jobId: again.jobId });
    await waitUntil(async () => (await jobOf(restoreId))?.state === "leased", { message: "the job to be acknowledged" });

    agent.send({ type: "restore.started", restoreId });
    await waitUntil(async () => (await jobOf(restoreId))?.state === "running", { message: "the job to run" });

    // And back to the first: started, it is not sent again.
    await reconnect(agent);
    await settled(agent);
    expect(restoresOf(restoreId)).toEqual([]);
    agent.send({ type: "restore.completed", restoreId, stats: { "shop.orders": { restored: 3, failed: 0 } } });
    await waitUntil(async () => (await restoreStatus(user, restoreId)) === "completed", { message: "the restore to complete" });
    expect((await jobOf(restoreId))?.state).toBe("done");

    // A job asked on the first instance while the agent is on the second: the second sends it, once.
    await reconnect(agent, undefined, secondBase);
    const next = await askRestore(user, backupId);
    expect(next.status).toBe(201);
    const nextCommand = await agent.waitFor("restore");
    expect(nextCommand.restoreId).toBe(next.body.restore.id);
    await settled(agent);
    expect(restoresOf(next.body.restore.id)).toEqual([]);
  });

  type Kind = "backup" | "restore" | "drill" | "verify" | "update";
  /** Asks for one job of the kind for the user's "shop" (or its agent); its subject's id. */
  const ask: Record<Kind, (user: TestUser, backupId: string, agent: ScriptedAgent) => Promise<string>> = {
    async backup(user) {
      const [shop] = await world.server.ctx.db
        .select()
        .from(databases)
        .where(and(eq(databases.organizationId, user.id), eq(databases.name, "shop")));
      return (await startBackup(world.server.ctx, shop!, "auto")).id;
    },
    async restore(user, backupId) {
      const asked = await askRestore(user, backupId);
      expect(asked.status).toBe(201);
      return asked.body.restore.id;
    },
    async drill(user) {
      const asked = await world.server.call("POST", "/api/drills", { token: user.token, body: { databaseName: "shop" } });
      expect(asked.status).toBe(201);
      return asked.body.restore.id;
    },
    async verify(user, backupId) {
      expect((await world.server.call("POST", `/api/backups/${backupId}/verify`, { token: user.token })).status).toBe(202);
      return backupId;
    },
    async update(user, _backupId, agent) {
      expect((await world.server.call("POST", `/api/agents/manage/${agent.agentId}`, { token: user.token, body: { action: "update" } })).status).toBe(200);
      return agent.agentId;
    },
  };
  /** The message that starts (or, for a verification, settles) the job: the job is never sent again after it. */
  const start: Record<Kind, (subjectId: string) => Parameters<ScriptedAgent["send"]>[0]> = {
    backup: (backupId) => ({ type: "backup.progress", backupId, progress: { current: 1, total: 10, percentage: 10, collection: "shop.orders" } }),
    restore: (restoreId) => ({ type: "restore.started", restoreId }),
    drill: (restoreId) => ({ type: "restore.started", restoreId }),
    verify: (backupId) => ({ type: "backup.verified", backupId, verification: { status: "ok", namespaces: { "shop.orders": 3 } } }),
    update: () => ({ type: "update.status", status: "checking", message: "checking for a new version" }),
  };
  const subjectOf = (message: ServerMessage, agent: ScriptedAgent) =>
    message.type === "update" ? agent.agentId : "restoreId" in message ? message.restoreId : "backupId" in message ? message.backupId : undefined;
  const faults: Record<string, (agent: ScriptedAgent) => Promise<void>> = {
    "a socket swap": (agent) => reconnect(agent),
    "a server restart": (agent) => reconnect(agent, () => world.server.restart()),
    "a move to another instance": (agent) => reconnect(agent, undefined, secondBase),
  };

  for (const kind of ["backup", "restore", "drill", "verify", "update"] as const) {
    for (const [fault, happen] of Object.entries(faults)) {
      test(`a ${kind} command lost in ${fault} comes again on hello, once, and never after it started`, async () => {
        const { user, agent, backupId } = await agentWithBackup();
        const ofSubject = (subjectId: string) => agent.received.filter((message) => message.type === kind && subjectOf(message, agent) === subjectId);
        const lost: ServerMessage[] = [];
        agent.intercept = (message) => message.type === kind && lost.push(message) > 0;
        const subjectId = await ask[kind](user, backupId, agent);
        await waitUntil(() => lost.length === 1, { message: `the ${kind} command to be lost` });
        expect(subjectOf(lost[0]!, agent)).toBe(subjectId);

        await happen(agent);
        const again = await agent.waitFor(kind);
        expect(again).toEqual(lost[0]! as typeof again);
        expect((again as { jobId?: string }).jobId).toBeString();
        await settled(agent);
        expect(ofSubject(subjectId)).toEqual([]);
        agent.send({ type: "job.taken", jobId: (again as { jobId: string }).jobId });
        await waitUntil(async () => (await jobOf(subjectId, kind))?.state === "leased", { message: "the job to be acknowledged" });
        agent.send(start[kind](subjectId));
        await waitUntil(async () => (await jobOf(subjectId, kind))?.state === (kind === "verify" ? "done" : "running"), { message: "the job to run" });

        await reconnect(agent);
        await settled(agent);
        expect(ofSubject(subjectId)).toEqual([]);
      });
    }
  }

  test("a verification asked again is a new job: the agent, which ran the first, runs it too", async () => {
    const { user, agent, backupId } = await agentWithBackup();
    await ask.verify(user, backupId, agent);
    const first = await agent.waitFor("verify");
    agent.send(start.verify(backupId));
    await waitUntil(async () => (await jobOf(backupId, "verify"))?.state === "done", { message: "the verification's job to be settled" });
    await ask.verify(user, backupId, agent);
    const second = await agent.waitFor("verify");
    expect(second.jobId).toBeString();
    expect(second.jobId).not.toBe(first.jobId!);
  });
});

// Last: the server's clock stays moved on.
describe("leases and pruning, on a clock moved on", () => {
  test("its heartbeats extend the lease: after the first one ran out, a hello (the agent restarted) still brings it", async () => {
    const { user, agent, backupId } = await agentWithBackup();
    const asked = await askRestore(user, backupId);
    const restoreId = asked.body.restore.id as string;
    const command = await agent.waitFor("restore");
    agent.send({ type: "job.taken", jobId: command.jobId });
    await waitUntil(async () => (await jobOf(restoreId))?.state === "leased", { message: "the job to be acknowledged" });

    advanceServerClock(world.server, PENDING_TIMEOUT_MS - 20_000);
    agent.send({ type: "heartbeat", queued: { backupIds: [], restoreIds: [restoreId] } });
    await settled(agent);
    advanceServerClock(world.server, 40_000);
    await reconnect(agent);
    expect((await agent.waitFor("restore")).jobId).toBe(command.jobId);
    expect(await restoreStatus(user, restoreId)).toBe("pending");
  });

  test("one sweep of the leases: a restore never started fails saying so; a verification unheard of past its lease is given up, asked again it is new", async () => {
    const { user, agent, backupId } = await agentWithBackup();
    const asked = await askRestore(user, backupId);
    const restoreId = asked.body.restore.id as string;
    await agent.waitFor("restore");
    expect((await world.server.call("POST", `/api/backups/${backupId}/verify`, { token: user.token })).status).toBe(202);
    const verify = await agent.waitFor("verify");
    agent.send({ type: "job.taken", jobId: verify.jobId });
    await waitUntil(async () => (await jobOf(backupId, "verify"))?.state === "leased", { message: "the verification to be acknowledged" });

    advanceServerClock(world.server, PENDING_TIMEOUT_MS + 60_000);
    expect(await expireLeases(world.server.ctx)).toBeGreaterThanOrEqual(1);
    const history = (await world.server.call("GET", "/api/backups/restores/all", { token: user.token })).body as {
      id: string;
      status: string;
      error: string;
    }[];
    expect(history.find((row) => row.id === restoreId)).toMatchObject({ status: "failed", error: "The agent did not start the restore." });
    expect((await jobOf(restoreId))?.state).toBe("failed");
    expect((await jobOf(backupId, "verify"))?.state).toBe("failed");
    // Not sent again on hello: given up.
    await reconnect(agent);
    await settled(agent);
    expect(agent.received.filter((message) => message.type === "verify" || message.type === "restore")).toEqual([]);
    // Asked again: a new job, delivered.
    expect((await world.server.call("POST", `/api/backups/${backupId}/verify`, { token: user.token })).status).toBe(202);
    expect((await agent.waitFor("verify")).jobId).not.toBe(verify.jobId!);
  });

  test("settled jobs are deleted a week after, by the maintenance pass; others are kept", async () => {
    const { user, agent, backupId } = await agentWithBackup();
    const asked = await askRestore(user, backupId);
    const restoreId = asked.body.restore.id as string;
    await agent.waitFor("restore");
    agent.send({ type: "restore.started", restoreId });
    agent.send({ type: "restore.completed", restoreId, stats: { "shop.orders": { restored: 3, failed: 0 } } });
    await waitUntil(async () => (await jobOf(restoreId))?.state === "done", { message: "the job to be settled" });
    const [shop] = await world.server.ctx.db
      .select()
      .from(databases)
      .where(and(eq(databases.organizationId, user.id), eq(databases.name, "shop")));
    const running = (await startBackup(world.server.ctx, shop!, "auto")).id;
    await agent.waitFor("backup");
    agent.send({ type: "backup.progress", backupId: running, progress: { current: 1, total: 10, percentage: 10, collection: "shop.orders" } });
    await waitUntil(async () => (await jobOf(running))?.state === "running", { message: "the backup's job to run" });

    advanceServerClock(world.server, KEEP_SETTLED_JOBS_MS + 60_000);
    await runMaintenance(world.server.ctx);
    expect(await jobOf(restoreId)).toBeUndefined();
    // Failed by the sweep as stalled (its agent silent all that time): settled now, kept a week.
    expect((await jobOf(running))?.state).toBe("failed");
  });
});
