// Killing the server, or moving the agent to another instance, at every point of a job's life
// loses no job and runs none twice (issue 42, "Done when"): a table over job kinds × fault points
// × the two faults. Two server instances share one database; a scripted agent (test/scripted-
// agent.ts) plays the daemon's side. "Runs none twice": every command the agent gets for the
// subject carries the one job id (the daemon's queue never runs a job id twice: agent/src/daemon/
// job-queue.test.ts), and none comes once its subject started. "Loses none": the job is settled
// done, its subject completed, whatever fault came between.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { type AgentJobKind, agentJobs, agents, backups, databases, restores } from "@db/schema";
import type { ServerMessage } from "@protocol/agent-protocol";
import { waitUntil } from "../../testkit/wait-until";
import { startBackup } from "../src/modules/backups/service";
import type { BusMessage } from "../src/lib/cluster-bus";
import { startTestServer, type TestServer, type TestUser, useListeningTestServer } from "./harness";
import { registerScriptedAgent, type ScriptedAgent } from "./scripted-agent";

const world = useListeningTestServer();
let second: TestServer;
let secondBase: string;

const shopOf = async (user: TestUser) =>
  (
    await world.server.ctx.db
      .select()
      .from(databases)
      .where(and(eq(databases.organizationId, user.id), eq(databases.name, "shop")))
  )[0]!;

/** A user's agent holding "shop", online on the first instance, with one completed backup of it. */
async function agentWithBackup() {
  const user = await world.server.registerUser();
  const agent = await registerScriptedAgent(world.base, user.apiKey, ["shop"]);
  await agent.connect({ databases: ["shop"] });
  const shop = await shopOf(user);
  const backup = await waitUntil(() => startBackup(world.server.ctx, shop, "auto").catch(() => undefined), { message: "the agent to take backups" });
  await agent.waitFor("backup");
  const bytes = randomBytes(1500);
  expect((await agent.upload(backup.id, bytes)).status).toBe(200);
  agent.received.length = 0;
  return { user, agent, backupId: backup.id };
}

/** Waits until the server handled a message the agent sent after everything before it (a socket's messages are handled in order). */
async function settled(agent: ScriptedAgent) {
  const marker = `${Date.now()}-${Math.random()}`;
  agent.send({ type: "update.status", status: "waiting", message: marker });
  await waitUntil(
    async () => (await world.server.ctx.db.select({ message: agents.updateMessage }).from(agents).where(eq(agents.id, agent.agentId)))[0]?.message === marker,
    { message: "the agent's messages to be handled" },
  );
}

type Kind = "backup" | "restore" | "drill" | "verify";
const KINDS: Kind[] = ["backup", "restore", "drill", "verify"];

/** Asks for one job of the kind; its subject's id. */
const ask: Record<Kind, (user: TestUser, backupId: string) => Promise<string>> = {
  backup: async (user) => (await startBackup(world.server.ctx, await shopOf(user), "auto")).id,
  async restore(user, backupId) {
    const asked = await world.server.call("POST", `/api/backups/${backupId}/restore`, { token: user.token, body: { databaseName: "shop" } });
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
};

/** The agent's first word of running it (a verification has none: it reports when done). */
const start: Record<Kind, ((subjectId: string) => Record<string, unknown>) | null> = {
  backup: (backupId) => ({ type: "backup.progress", backupId, progress: { current: 1, total: 10, percentage: 10, collection: "shop.orders" } }),
  restore: (restoreId) => ({ type: "restore.started", restoreId }),
  drill: (restoreId) => ({ type: "restore.started", restoreId }),
  verify: null,
};

/** The agent's report that it ran it: over HTTP for a backup's upload, on the socket for the others. */
async function finish(kind: Kind, agent: ScriptedAgent, subjectId: string) {
  if (kind === "backup") return void expect((await agent.upload(subjectId, randomBytes(900))).status).toBe(200);
  if (kind === "verify") return agent.send({ type: "backup.verified", backupId: subjectId, verification: { status: "ok", namespaces: {} } });
  agent.send({ type: "restore.completed", restoreId: subjectId, stats: { "shop.orders": { restored: 3, failed: 0 } } });
}

const subjectStatus = async (kind: Kind, subjectId: string) => {
  if (kind === "verify")
    return (await world.server.ctx.db.select().from(backups).where(eq(backups.id, subjectId)))[0]?.verification ? "completed" : "unverified";
  const table = kind === "backup" ? backups : restores;
  return (await world.server.ctx.db.select({ status: table.status }).from(table).where(eq(table.id, subjectId)))[0]?.status;
};

const jobOf = async (kind: AgentJobKind, subjectId: string) =>
  (
    await world.server.ctx.db
      .select()
      .from(agentJobs)
      .where(and(eq(agentJobs.kind, kind), eq(agentJobs.subjectId, subjectId)))
  )[0];

const subjectOf = (message: ServerMessage) => ("restoreId" in message ? message.restoreId : "backupId" in message ? message.backupId : undefined);

/** Where a job's life is cut. */
const POINTS = ["before send", "after send, before ack", "after ack, before start", "during run", "before the done report"] as const;
type Point = (typeof POINTS)[number];
/** The points at which the job has started (a verification never says so: it runs under its lease). */
const started = (kind: Kind, point: Point) => kind !== "verify" && (point === "during run" || point === "before the done report");

/** The two faults: the agent's first instance killed and started again, or the agent moving to the second. */
const FAULTS = {
  "the server killed": async (agent: ScriptedAgent) => {
    await agent.disconnect();
    await world.server.restart();
    await agent.connect({ databases: ["shop"] });
  },
  "the agent moving to another instance": async (agent: ScriptedAgent) => {
    await agent.disconnect();
    await agent.connect({ databases: ["shop"] }, { base: secondBase });
  },
};

describe("every fault point of every job kind loses no job and runs none twice", () => {
  beforeAll(async () => {
    second = await startTestServer({}, { instanceOf: world.server });
    secondBase = second.listen();
  }, 60_000);
  afterAll(() => second?.close());

  for (const kind of KINDS) {
    for (const point of POINTS) {
      for (const [fault, happen] of Object.entries(FAULTS)) {
        test(`${kind}, ${point}: ${fault}`, async () => {
          const { user, agent, backupId } = await agentWithBackup();
          const commandsFor = (subjectId: string) => agent.received.filter((message) => message.type === kind && subjectOf(message) === subjectId);
          // Before send: the job is committed, and the server dies before its signal goes out.
          const bus = world.server.ctx.bus;
          const publish = bus.publish.bind(bus);
          if (point === "before send") bus.publish = async (message: BusMessage) => (message.kind === "agent.work" ? undefined : publish(message));
          const subjectId = await ask[kind](user, backupId);
          bus.publish = publish;

          let jobId: string | undefined;
          if (point !== "before send") {
            jobId = (await agent.waitFor(kind)).jobId;
            expect(jobId).toBeString();
          }
          if (point === "after ack, before start" || point === "during run" || point === "before the done report") {
            agent.send({ type: "job.taken", jobId });
            await waitUntil(async () => (await jobOf(kind, subjectId))?.state === "leased", { message: "the job to be acknowledged" });
          }
          if (started(kind, point)) {
            agent.send(start[kind]!(subjectId));
            await waitUntil(async () => (await jobOf(kind, subjectId))?.state === "running", { message: "the job to run" });
          }
          await settled(agent);
          agent.received.length = 0;

          await happen(agent);
          if (started(kind, point)) {
            // Running on the agent: never sent again.
            await settled(agent);
            expect(commandsFor(subjectId)).toEqual([]);
          } else {
            // Not started (or a verification, which runs under its lease): the hello brings it
            // again, once, under the one job id the agent may already hold and then ignores.
            const again = await agent.waitFor(kind);
            expect(subjectOf(again)).toBe(subjectId);
            if (jobId) expect(again.jobId).toBe(jobId);
            jobId = again.jobId;
            await settled(agent);
            expect(commandsFor(subjectId)).toEqual([]);
            agent.send({ type: "job.taken", jobId });
            if (start[kind]) agent.send(start[kind]!(subjectId));
          }
          await finish(kind, agent, subjectId);
          await waitUntil(async () => (await jobOf(kind, subjectId))?.state === "done", { message: "the job to be settled done" });
          expect(await subjectStatus(kind, subjectId)).toBe("completed");
          expect((await jobOf(kind, subjectId))?.id).toBe(jobId!);

          // Settled: no hello, on either instance, brings it again.
          agent.received.length = 0;
          await FAULTS["the agent moving to another instance"](agent);
          await settled(agent);
          expect(commandsFor(subjectId)).toEqual([]);
          await agent.disconnect();
        });
      }
    }
  }
});
