// Jobs that wait their turn on the agent (server + compiled agent + MongoDB test server over
// loopback). The daemon runs one job at a time, so a user with two databases (both due at the
// same scheduled tick) has one backup pending behind the other for as long as the first takes.
// The server's sweeper fails a backup that stays pending past PENDING_TIMEOUT_MS as never
// started; a backup the agent holds in its queue must not be taken for one.
import { expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { randomBytes } from "node:crypto";
import { agentJobs, agents as agentRows, plans, organizations } from "@db/schema";
import { PENDING_TIMEOUT_MS } from "../../server/src/modules/agent-jobs/lease-rules.ts";
import { expireLeases } from "../../server/src/modules/agent-jobs/lease-rules.ts";
import { runSetup, startAgentProcess } from "./support/end-to-end.ts";
import { seedLargeDatabase, useEndToEndWorld, waitForBackupEnd } from "./support/end-to-end-world.ts";
import { apiFor, holdUploadPart } from "./support/server-faults.ts";
import { waitUntil } from "../../testkit/wait-until";

const world = useEndToEndWorld();

test("a backup queued behind a long one stays pending while the agent holds it, then runs and completes", async () => {
  const busy = world.env.uniqueDatabase("busy");
  await seedLargeDatabase(world.env, busy);
  const queued = world.env.uniqueDatabase("queued");
  await world.env.client
    .db(queued)
    .collection("orders")
    .insertMany([
      { _id: 1, total: 10 },
      { _id: 2, total: 20 },
    ] as never[]);
  const user = await world.server.registerUser();
  // A plan with room for both databases (the free plan backs up one).
  const [plan] = await world.server.ctx.db
    .insert(plans)
    .values({ name: `Two ${randomBytes(3).toString("hex")}`, price: 0, storageLimit: 1024 ** 3, dbLimit: 2, retentionLimit: 168, frequencyLimit: 24 })
    .returning();
  await world.server.ctx.db.update(organizations).set({ planId: plan!.id }).where(eq(organizations.id, user.id));
  const api = apiFor(world.base, user.token);
  const setup = await runSetup({
    baseUrl: world.base,
    apiKey: user.apiKey,
    databases: [
      { name: "busy", uri: world.env.uriFor(busy) },
      { name: "queued", uri: world.env.uriFor(queued) },
    ],
    directory: await world.env.makeTempDir(),
  });
  expect(setup.exitCode).toBe(0);
  const agent = startAgentProcess(setup.configPath);
  world.agents.push(agent);
  await waitUntil(async () => (await api("GET", "/api/settings/system-status")).body.agents?.[0]?.status === "active", {
    message: "the agent to be online",
    timeout: 30_000,
  });
  const agentId = JSON.parse(await Bun.file(setup.configPath).text()).server.agentId as string;

  // The first backup is kept running (its part 1 is held on the server), the second waits behind it.
  const held = holdUploadPart(world.server.ctx, 1);
  const first = await api("POST", "/api/backups", { databaseName: "busy" });
  expect(first.status).toBe(201);
  expect(await held.reached).toBe(first.body._id);
  const second = await api("POST", "/api/backups", { databaseName: "queued" });
  expect(second.status).toBe(201);
  expect(second.body.status).toBe("pending");
  // The agent acknowledged the waiting backup's job (job.taken): the ledger sends it no more.
  const jobState = async (backupId: string) =>
    (await world.server.ctx.db.select({ state: agentJobs.state }).from(agentJobs).where(eq(agentJobs.subjectId, backupId)))[0]?.state;
  await waitUntil(async () => (await jobState(second.body._id)) === "leased", { message: "the agent to acknowledge the queued backup" });

  // Minutes pass on the server's clock while the first backup is still running (it reported a
  // moment ago); the agent stays connected and says so with its heartbeats.
  const realNow = world.server.ctx.now;
  const offsetMs = PENDING_TIMEOUT_MS + 60_000;
  world.server.ctx.now = () => new Date(Date.now() + offsetMs);
  try {
    const shiftedAt = world.server.ctx.now().getTime();
    const lastSeen = async () =>
      (await world.server.ctx.db.select({ lastSeen: agentRows.lastSeen }).from(agentRows).where(eq(agentRows.id, agentId)))[0]?.lastSeen;
    await waitUntil(async () => ((await lastSeen())?.getTime() ?? 0) >= shiftedAt, { message: "a heartbeat after the clock moved", timeout: 40_000 });
    await expireLeases(world.server.ctx);
  } finally {
    world.server.ctx.now = realNow;
  }
  expect((await api("GET", `/api/backups/${first.body._id}`)).body.status).toBe("in-progress");
  expect((await api("GET", `/api/backups/${second.body._id}`)).body).toMatchObject({ status: "pending", error: null });

  held.release();
  expect(await waitForBackupEnd(api, first.body._id, 60_000)).toMatchObject({ status: "completed", error: null });
  expect(await waitForBackupEnd(api, second.body._id, 60_000)).toMatchObject({ status: "completed", error: null });
  expect(await jobState(second.body._id)).toBe("done");
  expect(agent.log()).not.toContain('"msg":"backup failed"');
}, 180_000);
