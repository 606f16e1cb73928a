// Failure paths of a restore requested through the server (server + compiled agent + MongoDB test
// server over loopback): a restore that waits in the agent's queue behind a running backup is not
// failed as "never started" by the server while the agent still holds it (it used to be failed
// after two minutes, and then run anyway: the history said failed, the database was replaced);
// an agent stopped with SIGTERM mid-restore says so in the history ("the operation was
// cancelled" had the user look for a cancel they never made) and changes nothing.
import { expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { agents as agentRows, databases } from "@db/schema";
import { startBackup } from "../../server/src/modules/backups/service.ts";
import { PENDING_TIMEOUT_MS } from "../../server/src/modules/agent-jobs/lease-rules.ts";
import { expireLeases } from "../../server/src/modules/agent-jobs/lease-rules.ts";
import type { AppContext } from "../../server/src/context.ts";
import { snapshotDatabase } from "./support/database-snapshot.ts";
import { openBrowserSocket } from "./support/end-to-end.ts";
import { seedLargeDatabase, setUpUserWithAgent, useEndToEndWorld, waitForBackupEnd } from "./support/end-to-end-world.ts";
import { holdUploadPart } from "./support/server-faults.ts";
import { waitUntil } from "../../testkit/wait-until";

const world = useEndToEndWorld();

/** A user whose agent is set up for one database and running. */
async function startUserWithAgent(database: string) {
  const { user, api, start } = await setUpUserWithAgent(world, database);
  const agent = await start();
  const [row] = await world.server.ctx.db.select({ id: agentRows.id }).from(agentRows).where(eq(agentRows.organizationId, user.id));
  return { user, api, agent, agentId: row!.id };
}

/**
 * Lets the server's clock run `aheadMs` ahead until the agent's next heartbeat was recorded at
 * that time, then runs the stalled-operation sweeper: what the server does once that much time has
 * passed with the agent connected (in production the sweeper runs every 15 s).
 */
async function sweepAfter(agentId: string, aheadMs: number) {
  const realNow = world.server.ctx.now;
  const ahead = () => new Date(Date.now() + aheadMs);
  world.server.ctx.now = ahead;
  try {
    const from = ahead().getTime();
    await waitUntil(
      async () => {
        const [row] = await world.server.ctx.db.select({ lastSeen: agentRows.lastSeen }).from(agentRows).where(eq(agentRows.id, agentId));
        return (row?.lastSeen?.getTime() ?? 0) >= from;
      },
      { message: "a heartbeat at the later time", timeout: 40_000 },
    );
    await expireLeases(world.server.ctx);
  } finally {
    world.server.ctx.now = realNow;
  }
}

test("a restore queued behind a running backup waits for it (not failed as never started), then runs and completes", async () => {
  const database = world.env.uniqueDatabase("queued");
  await seedLargeDatabase(world.env, database);
  await world.env.client
    .db(database)
    .collection("orders")
    .insertOne({ _id: 1, total: 10 } as never);
  const { user, api, agentId } = await startUserWithAgent(database);
  const first = await api("POST", "/api/backups", { databaseName: "main" });
  expect(first.status).toBe(201);
  expect(await waitForBackupEnd(api, first.body._id, 60_000)).toMatchObject({ status: "completed" });
  const backedUp = await snapshotDatabase(world.env.client.db(database));
  await world.env.client
    .db(database)
    .collection("orders")
    .insertOne({ _id: 2, total: 20, addedAfterBackup: true } as never);

  // A scheduled backup is under way (its upload held on the server) when the restore is asked for.
  const held = holdUploadPart(world.server.ctx, 1);
  const [databaseRow] = await world.server.ctx.db.select().from(databases).where(eq(databases.organizationId, user.id));
  const second = await startBackup(world.server.ctx, databaseRow!, "auto");
  await held.reached;
  const socket = await openBrowserSocket(world.base, user.token);
  const requested = await api("POST", `/api/backups/${first.body._id}/restore`, { databaseName: "main" });
  expect(requested.status).toBe(201);
  const restoreId = requested.body.restore._id;

  // Past the pending timeout, with the agent connected and still holding the restore in its queue.
  await sweepAfter(agentId, PENDING_TIMEOUT_MS + 30_000);
  const waiting = (await api("GET", "/api/backups/restores/all")).body.find((r: { _id: string }) => r._id === restoreId);
  expect(waiting).toMatchObject({ status: "pending", error: null });

  held.release();
  expect(await waitForBackupEnd(api, second.id, 60_000)).toMatchObject({ status: "completed" });
  const done = await socket.waitFor(
    "the restore's end",
    (e) => e.type === "restoreProgress" && e.restoreId === restoreId && ["completed", "failed"].includes(String(e.status)),
    60_000,
  );
  socket.close();
  expect(done).toMatchObject({ status: "completed", error: null });
  expect(socket.events.some((e) => e.restoreId === restoreId && e.status === "failed")).toBe(false);
  expect(await snapshotDatabase(world.env.client.db(database))).toEqual(backedUp);
}, 180_000);

/**
 * Makes the server's answer to the next backup download stop after `bytes` bytes without closing,
 * as a stalled link does: the agent's restore is caught in its verification pass. Resolves when
 * those bytes went out.
 */
function stallDownloadAfter(ctx: AppContext, bytes: number): Promise<void> {
  const storage = ctx.storage;
  const source = storage.httpSource.bind(storage);
  return new Promise((sent) => {
    storage.httpSource = async (key, range) => {
      const answer = await source(key, range);
      storage.httpSource = source;
      if (answer.kind !== "blob") throw new Error("stallDownloadAfter needs the filesystem storage backend");
      const head = new Uint8Array(await answer.blob.slice(0, bytes).arrayBuffer());
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(head);
          sent();
        },
      });
      return { ...answer, blob: body as unknown as Blob };
    };
  });
}

test("an agent stopped (SIGTERM) mid-restore reports the restore failed at once, saying why, and changes nothing", async () => {
  const database = world.env.uniqueDatabase("stopped");
  await seedLargeDatabase(world.env, database);
  const { user, api, agent } = await startUserWithAgent(database);
  const created = await api("POST", "/api/backups", { databaseName: "main" });
  expect(await waitForBackupEnd(api, created.body._id, 60_000)).toMatchObject({ status: "completed" });
  await world.env.client
    .db(database)
    .collection("orders")
    .insertOne({ _id: 1, addedAfterBackup: true } as never);
  const before = await snapshotDatabase(world.env.client.db(database));

  const stalled = stallDownloadAfter(world.server.ctx, 4 * 1024 * 1024);
  const socket = await openBrowserSocket(world.base, user.token);
  const requested = await api("POST", `/api/backups/${created.body._id}/restore`, { databaseName: "main" });
  expect(requested.status).toBe(201);
  const restoreId = requested.body.restore._id;
  await stalled;
  await socket.waitFor("the verification's progress", (e) => e.type === "restoreProgress" && e.restoreId === restoreId && e.status === "in-progress");
  expect(await agent.stop("SIGTERM")).toBe(0);
  const failed = await socket.waitFor("the restore to fail", (e) => e.type === "restoreProgress" && e.restoreId === restoreId && e.status === "failed", 30_000);
  socket.close();
  expect(failed.error).toBe("the agent was stopped (dbvault-agent run received a stop signal); nothing was changed");
  const history = (await api("GET", "/api/backups/restores/all")).body;
  expect(history[0]).toMatchObject({ _id: restoreId, status: "failed", error: failed.error });
  expect(await snapshotDatabase(world.env.client.db(database))).toEqual(before);
}, 120_000);
