// The trust events reach webhooks as the others do: backup.verified and
// backup.verification_failed when an agent reports reading a stored backup back,
// backup.anomaly when a backup comes in far smaller than the ones before it, and
// drill.completed / drill.failed when a test restore ends. Each signed, each with its facts.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { databases } from "@db/schema";
import { startBackup } from "../src/modules/backups/service";
import { isSignedBy, startWebhookReceiver, type WebhookReceiver } from "../../testkit/webhook-receiver";
import { waitUntil } from "../../testkit/wait-until";
import { startTestServer, type TestServer, type TestUser } from "./harness";
import { registerScriptedAgent, type ScriptedAgent } from "./scripted-agent";

let server: TestServer;
let base: string;
let receiver: WebhookReceiver;

beforeAll(async () => {
  server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE: "true" });
  base = server.listen();
  receiver = startWebhookReceiver();
});
afterAll(async () => {
  receiver.close();
  await server.close();
});

const TRUST_EVENTS = ["backup.verified", "backup.verification_failed", "backup.anomaly", "drill.completed", "drill.failed"];

type World = { user: TestUser; agent: ScriptedAgent; secret: string; path: string };

async function subscribedUser(path: string): Promise<World> {
  const user = await server.registerUser();
  const hook = await server.call("POST", "/api/settings/webhooks", { token: user.token, body: { url: `${receiver.url}${path}`, events: TRUST_EVENTS } });
  expect(hook.status).toBe(201);
  const agent = await registerScriptedAgent(base, user.apiKey, ["shop"]);
  await agent.connect();
  return { user, agent, secret: hook.body.secret, path };
}

/** A scheduled backup of "shop" with `size` bytes and the dumped counts, completed by the agent. */
async function completeBackup({ user, agent }: World, size: number, collections: Record<string, number>) {
  const [database] = await server.ctx.db
    .select()
    .from(databases)
    .where(and(eq(databases.organizationId, user.id), eq(databases.name, "shop")));
  await startBackup(server.ctx, database!, "auto");
  const { backupId } = await agent.waitFor("backup");
  const bytes = randomBytes(size);
  expect((await agent.uploadPart(backupId, 0, bytes)).status).toBe(200);
  expect((await agent.complete(backupId, bytes, 1, { collections })).status).toBe(200);
  return backupId;
}

/** The deliveries at the world's path once there are `count`, each checked against its secret. */
async function deliveries(world: World, count: number) {
  const received = await waitUntil(
    () => {
      const at = receiver.received.filter((d) => d.path === world.path);
      return at.length >= count && at;
    },
    { message: `${count} deliveries at ${world.path}` },
  );
  for (const delivery of received) {
    expect(isSignedBy(world.secret, delivery.rawBody, delivery.signature)).toBe(true);
    expect(delivery.body.event).toBe(delivery.event);
  }
  return received;
}

describe("trust events", () => {
  test("verification reports reach webhooks as backup.verified and backup.verification_failed, with the result", async () => {
    const world = await subscribedUser("/verification");
    const counts = { "shop.orders": 7 };
    const good = await completeBackup(world, 3000, counts);
    world.agent.send({ type: "backup.verified", backupId: good, verification: { status: "ok", namespaces: counts } });
    const bad = await completeBackup(world, 3000, counts);
    world.agent.send({ type: "backup.verified", backupId: bad, verification: { status: "failed", namespaces: {}, error: "chunk 3 failed authentication" } });

    const [verified, failed] = (await deliveries(world, 2)).map((d) => d.body);
    expect(verified).toMatchObject({
      event: "backup.verified",
      backup: { id: good, databaseName: "shop", status: "completed", verification: { status: "ok", namespaces: counts } },
    });
    expect(failed).toMatchObject({
      event: "backup.verification_failed",
      backup: { id: bad, databaseName: "shop", verification: { status: "failed", error: "chunk 3 failed authentication" } },
    });
  });

  test("a backup far smaller than the ones before it reaches webhooks as backup.anomaly", async () => {
    const world = await subscribedUser("/anomaly");
    const counts = { "shop.orders": 1000 };
    for (let i = 0; i < 3; i++) await completeBackup(world, 4000, counts);
    const dropped = await completeBackup(world, 1000, counts);
    const [anomaly] = (await deliveries(world, 1)).map((d) => d.body);
    expect(anomaly).toMatchObject({ event: "backup.anomaly", backup: { id: dropped, size: 1000, anomaly: { kind: "size_drop" } } });
  });

  test("drills reach webhooks as drill.completed and drill.failed, with the drill's report", async () => {
    const world = await subscribedUser("/drills");
    const latest = await completeBackup(world, 900, { "shop.a": 2 });
    expect((await server.call("POST", "/api/drills", { token: world.user.token, body: { databaseName: "shop" } })).status).toBe(201);
    const first = await world.agent.waitFor("drill");
    const report = { durationMs: 1500, documents: { expected: 2, restored: 2 }, indexes: { expected: 1, found: 1 }, scratchDropped: true };
    world.agent.send({ type: "restore.completed", restoreId: first.restoreId, stats: { "shop_dbvault_drill.a": { restored: 2, failed: 0 } }, drill: report });
    await deliveries(world, 1);
    expect((await server.call("POST", "/api/drills", { token: world.user.token, body: { databaseName: "shop" } })).status).toBe(201);
    const second = await world.agent.waitFor("drill");
    world.agent.send({ type: "restore.failed", restoreId: second.restoreId, error: "drill failed: the stored file is gone" });

    const [completed, failed] = (await deliveries(world, 2)).map((d) => d.body);
    expect(completed).toMatchObject({
      event: "drill.completed",
      restore: { id: first.restoreId, backupId: latest, targetDatabase: "shop_dbvault_drill", status: "completed", drill: report },
    });
    expect(failed).toMatchObject({
      event: "drill.failed",
      restore: { id: second.restoreId, status: "failed", error: "drill failed: the stored file is gone" },
    });
  });
});
