// Webhooks end to end over real HTTP: a receiver on loopback gets each event that exists today
// (agent online/offline, backup completed/failed, restore completed/failed), signed with the
// webhook's secret (checked here with our own HMAC); a 500 is retried with the same bytes; the
// queue survives a restart; private addresses are refused without WEBHOOK_ALLOW_PRIVATE.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { databases, webhookDeliveries } from "@db/schema";
import { runDueBackups } from "../src/modules/scheduler/service";
import { WEBHOOK_EVENTS } from "../src/modules/webhooks/events";
import { FIRST_RETRY_MS, KEEP_FINISHED_MS, pruneFinishedDeliveries, RETRY_FOR_MS, RETRY_JITTER, sendDueDeliveries } from "../src/modules/webhooks/deliveries";
import { publishEvent } from "../src/modules/webhooks/service";
import { createContext } from "../src/bootstrap";
import { silentLogger } from "../src/lib/logger";
import { isSignedBy, startWebhookReceiver, type WebhookReceiver } from "../../testkit/webhook-receiver";
import { waitUntil } from "../../testkit/wait-until";
import { announceAgentDisconnection, startTestServer, type TestServer, type TestUser } from "./harness";
import { registerScriptedAgent, type ScriptedAgent } from "./scripted-agent";

/** When the first retry is due at the latest, whatever its jitter (plus a second of slack). */
const LATEST_FIRST_RETRY_MS = FIRST_RETRY_MS * (1 + RETRY_JITTER) + 1000;

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

type Created = { id: string; secret: string; url: string; events: string[]; format: string };

async function addWebhook(user: TestUser, body: Record<string, unknown>): Promise<Created> {
  const res = await server.call("POST", "/api/settings/webhooks", { token: user.token, body });
  expect(res.status).toBe(201);
  return res.body;
}

const receivedAt = (path: string) => receiver.received.filter((d) => d.path === path);
const waitForDeliveries = (path: string, count: number) =>
  waitUntil(() => receivedAt(path).length >= count && receivedAt(path), { message: `${count} deliveries at ${path}` });

async function completedBackup(user: TestUser, agent: ScriptedAgent, databaseName: string) {
  await server.call("POST", "/api/backups", { token: user.token, body: { databaseName } });
  const { backupId } = await agent.waitFor("backup");
  expect((await agent.upload(backupId, randomBytes(2048))).status).toBe(200);
  return backupId;
}

describe("deliveries of each event", () => {
  test("a subscribed receiver gets every event, signed with the webhook's secret, with the event in a header", async () => {
    const user = await server.registerUser();
    const hook = await addWebhook(user, { url: `${receiver.url}/all-events`, events: [...WEBHOOK_EVENTS] });
    expect(hook.secret).toMatch(/^whsec_/);
    expect(hook.format).toBe("json");

    const agent = await registerScriptedAgent(base, user.apiKey, ["orders"], "web-1");
    await agent.connect(); // agent.online
    await waitForDeliveries("/all-events", 1);
    // A failed manual backup does not count against the plan's limit, a completed one does: fail first.
    await server.call("POST", "/api/backups", { token: user.token, body: { databaseName: "orders" } });
    const failing = await agent.waitFor("backup");
    agent.send({ type: "backup.failed", backupId: failing.backupId, error: "mongodump: connection refused" }); // backup.failed
    await waitForDeliveries("/all-events", 2);
    const backupId = await completedBackup(user, agent, "orders"); // backup.completed
    await waitForDeliveries("/all-events", 3);

    await server.call("POST", `/api/backups/${backupId}/restore`, { token: user.token, body: { databaseName: "orders" } });
    const restore = await agent.waitFor("restore");
    agent.send({ type: "restore.completed", restoreId: restore.restoreId, stats: { "orders.items": { restored: 5, failed: 0 } } }); // restore.completed
    await waitForDeliveries("/all-events", 4);
    await server.call("POST", `/api/backups/${backupId}/restore`, { token: user.token, body: { databaseName: "orders" } });
    const second = await agent.waitFor("restore");
    agent.send({ type: "restore.failed", restoreId: second.restoreId, error: "wrong key" }); // restore.failed
    await waitForDeliveries("/all-events", 5);
    await agent.disconnect(); // agent.offline, once the grace period has passed
    await announceAgentDisconnection(server, agent.agentId);

    const deliveries = await waitForDeliveries("/all-events", 6);
    expect(deliveries.map((d) => d.event)).toEqual([
      "agent.online",
      "backup.failed",
      "backup.completed",
      "restore.completed",
      "restore.failed",
      "agent.offline",
    ]);
    for (const delivery of deliveries) {
      expect(isSignedBy(hook.secret, delivery.rawBody, delivery.signature)).toBe(true);
      expect(isSignedBy("whsec_some-other-secret", delivery.rawBody, delivery.signature)).toBe(false);
      expect(delivery.body.event).toBe(delivery.event);
      expect(new Date(delivery.body.occurredAt).getTime()).toBeGreaterThan(Date.now() - 120_000);
      expect(delivery.deliveryId).toBeTruthy();
    }
    const [online, failed, completed, restored, restoreFailed, offline] = deliveries.map((d) => d.body);
    expect(online.agent).toMatchObject({ id: agent.agentId, name: "web-1", hostname: "db-host.internal", status: "active" });
    expect(completed.backup).toMatchObject({ id: backupId, databaseName: "orders", status: "completed", size: 2048 });
    expect(failed.backup).toMatchObject({ id: failing.backupId, databaseName: "orders", status: "failed", error: "mongodump: connection refused" });
    expect(restored.restore).toMatchObject({
      id: restore.restoreId,
      backupId,
      databaseName: "orders",
      status: "completed",
      stats: { "orders.items": { restored: 5, failed: 0 } },
    });
    expect(restoreFailed.restore).toMatchObject({ id: second.restoreId, status: "failed", error: "wrong key" });
    expect(offline.agent).toMatchObject({ id: agent.agentId, status: "offline" });

    // The list shows the last delivery's outcome; the log has each with its attempt.
    // The receiver has the request before the server has its answer recorded: wait for that.
    const [listed] = await waitUntil(async () => {
      const answer = (await server.call("GET", "/api/settings/webhooks", { token: user.token })).body;
      return answer[0]?.lastDelivery?.status === "delivered" && answer;
    });
    expect(listed).toMatchObject({
      id: hook.id,
      url: `${receiver.url}/all-events`,
      lastDelivery: { event: "agent.offline", status: "delivered", lastStatusCode: 200 },
    });
    expect(listed.secret).toBeUndefined();
    const log = (await server.call("GET", `/api/settings/webhooks/${hook.id}/deliveries`, { token: user.token })).body;
    expect(log.map((d: { event: string }) => d.event)).toEqual(deliveries.map((d) => d.event).reverse());
    expect(log.every((d: { status: string; log: unknown[] }) => d.status === "delivered" && d.log.length === 1)).toBe(true);
  });

  test("a webhook gets only the events it subscribed to, and another user's events never", async () => {
    const user = await server.registerUser();
    const other = await server.registerUser();
    await addWebhook(user, { url: `${receiver.url}/failures-only`, events: ["backup.failed"] });
    const agent = await registerScriptedAgent(base, user.apiKey, ["shop"]);
    await agent.connect();
    const otherAgent = await registerScriptedAgent(base, other.apiKey, ["shop"]);
    await otherAgent.connect();
    await completedBackup(user, agent, "shop");
    await server.call("POST", "/api/backups", { token: other.token, body: { databaseName: "shop" } });
    otherAgent.send({ type: "backup.failed", backupId: (await otherAgent.waitFor("backup")).backupId, error: "another user's failure" });
    await waitUntil(async () => (await server.call("GET", "/api/backups", { token: other.token })).body[0]?.status === "failed", {
      message: "the other user's backup to fail",
    });
    // The next scheduled backup of the user's database fails (a manual one would wait for the plan's limit).
    await server.ctx.db
      .update(databases)
      .set({ nextBackupAt: new Date(Date.now() - 1000) })
      .where(eq(databases.organizationId, user.id));
    await runDueBackups(server.ctx);
    agent.send({ type: "backup.failed", backupId: (await agent.waitFor("backup")).backupId, error: "disk full" });
    const [only] = await waitForDeliveries("/failures-only", 1);
    expect(only!.body.backup.error).toBe("disk full");
    // Everything else that happened has been announced by now (the failure came last).
    expect(receivedAt("/failures-only")).toHaveLength(1);
  });
});

describe("retries", () => {
  test("a 500 is retried after the backoff with the same body and signature, and both attempts are logged", async () => {
    const user = await server.registerUser();
    const hook = await addWebhook(user, { url: `${receiver.url}/flaky`, events: ["backup.completed"] });
    receiver.answers.push(500);
    const agent = await registerScriptedAgent(base, user.apiKey, ["flaky"]);
    await agent.connect();
    await completedBackup(user, agent, "flaky");
    const [first] = await waitForDeliveries("/flaky", 1);
    const pending = await waitUntil(async () => {
      const [delivery] = (await server.call("GET", `/api/settings/webhooks/${hook.id}/deliveries`, { token: user.token })).body;
      return delivery?.log.length === 1 && delivery;
    });
    expect(pending).toMatchObject({ status: "pending", attempts: 1, lastStatusCode: 500, lastError: "The endpoint answered HTTP 500." });
    const wait = new Date(pending.nextAttemptAt).getTime() - new Date(pending.log[0].attemptedAt).getTime();
    expect(wait).toBeGreaterThanOrEqual(FIRST_RETRY_MS - 1000);
    expect(wait).toBeLessThanOrEqual(LATEST_FIRST_RETRY_MS);

    // Not yet due: a pass sends nothing.
    server.ctx.webhooks.kick();
    await waitUntil(async () => (await server.ctx.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, pending.id)))[0]?.lockedUntil === null);
    expect(receivedAt("/flaky")).toHaveLength(1);

    const realNow = server.ctx.now;
    server.ctx.now = () => new Date(Date.now() + LATEST_FIRST_RETRY_MS);
    try {
      server.ctx.webhooks.kick();
      const [, second] = await waitForDeliveries("/flaky", 2);
      expect(second!.rawBody).toBe(first!.rawBody);
      expect(second!.signature).toBe(first!.signature);
      expect(second!.deliveryId).toBe(first!.deliveryId);
      expect(isSignedBy(hook.secret, second!.rawBody, second!.signature)).toBe(true);
      const delivered = await waitUntil(async () => {
        const [delivery] = (await server.call("GET", `/api/settings/webhooks/${hook.id}/deliveries`, { token: user.token })).body;
        return delivery?.status === "delivered" && delivery;
      });
      expect(delivered.log.map((a: { statusCode: number }) => a.statusCode)).toEqual([500, 200]);
      expect(delivered.attempts).toBe(2);
    } finally {
      server.ctx.now = realNow;
    }
  });

  test("after 24 hours of failures the delivery is given up and marked failed", async () => {
    const user = await server.registerUser();
    const hook = await addWebhook(user, { url: `${receiver.url}/down`, events: ["backup.completed"] });
    receiver.answers.push(503, 503);
    const agent = await registerScriptedAgent(base, user.apiKey, ["down"]);
    await agent.connect();
    await completedBackup(user, agent, "down");
    await waitForDeliveries("/down", 1);
    await waitUntil(async () => (await server.call("GET", `/api/settings/webhooks/${hook.id}/deliveries`, { token: user.token })).body[0]?.log.length === 1, {
      message: "the first attempt to be logged",
    });
    const realNow = server.ctx.now;
    server.ctx.now = () => new Date(Date.now() + RETRY_FOR_MS);
    try {
      await waitUntil(
        async () => {
          server.ctx.webhooks.kick();
          const [delivery] = (await server.call("GET", `/api/settings/webhooks/${hook.id}/deliveries`, { token: user.token })).body;
          return delivery?.status === "failed" && delivery;
        },
        { interval: 200, message: "the delivery to be given up" },
      ).then((delivery) => {
        expect(delivery.log.map((a: { statusCode: number }) => a.statusCode)).toEqual([503, 503]);
        expect(delivery.nextAttemptAt).toBeNull();
      });
    } finally {
      server.ctx.now = realNow;
    }
  });

  test("a delivery that could not be sent survives a restart and is sent by the new process", async () => {
    const user = await server.registerUser();
    const hook = await addWebhook(user, { url: `${receiver.url}/after-restart`, events: ["backup.completed"] });
    receiver.answers.push(500);
    const agent = await registerScriptedAgent(base, user.apiKey, ["kept"]);
    await agent.connect();
    await completedBackup(user, agent, "kept");
    await waitForDeliveries("/after-restart", 1);
    await waitUntil(
      async () => (await server.ctx.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, hook.id)))[0]?.lockedUntil === null,
    );
    await server.restart();
    const realNow = server.ctx.now;
    server.ctx.now = () => new Date(Date.now() + LATEST_FIRST_RETRY_MS);
    try {
      server.ctx.webhooks.kick(); // what the background jobs' first tick does
      const [first, second] = await waitForDeliveries("/after-restart", 2);
      expect(second!.rawBody).toBe(first!.rawBody);
      expect(isSignedBy(hook.secret, second!.rawBody, second!.signature)).toBe(true);
    } finally {
      server.ctx.now = realNow;
    }
  });
});

describe("the delivery log", () => {
  test("keeps finished deliveries for 30 days, and pending ones until they finish", async () => {
    const user = await server.registerUser();
    const hook = await addWebhook(user, { url: `${receiver.url}/pruned`, events: ["backup.failed"] });
    await server.call("POST", `/api/settings/webhooks/${hook.id}/test`, { token: user.token });
    const dispatcher = server.ctx.webhooks;
    server.ctx.webhooks = { kick() {} };
    try {
      await publishEvent(server.ctx, user.id, {
        event: "backup.failed",
        backup: { id: "p1", databaseName: "pruned", type: "auto", status: "failed", size: 0 },
      });
    } finally {
      server.ctx.webhooks = dispatcher;
    }
    const log = async () =>
      (await server.call("GET", `/api/settings/webhooks/${hook.id}/deliveries`, { token: user.token })).body.map(
        (d: { event: string; status: string }) => `${d.event}:${d.status}`,
      );
    expect(await log()).toEqual(["backup.failed:pending", "webhook.test:delivered"]);

    const realNow = server.ctx.now;
    try {
      server.ctx.now = () => new Date(Date.now() + KEEP_FINISHED_MS - 60_000);
      await pruneFinishedDeliveries(server.ctx);
      expect(await log()).toEqual(["backup.failed:pending", "webhook.test:delivered"]);
      server.ctx.now = () => new Date(Date.now() + KEEP_FINISHED_MS + 60_000);
      await pruneFinishedDeliveries(server.ctx);
      expect(await log()).toEqual(["backup.failed:pending"]);
    } finally {
      server.ctx.now = realNow;
    }
    // Leave no due delivery behind for the tests that count what a pass sends.
    server.ctx.webhooks.kick();
    await waitUntil(async () => (await log())[0] === "backup.failed:delivered", { message: "the pending delivery to be sent" });
  });
});

describe("several instances", () => {
  test("two instances sending from one queue send each delivery exactly once", async () => {
    const user = await server.registerUser();
    const hook = await addWebhook(user, { url: `${receiver.url}/once`, events: ["backup.completed"] });
    const other = await createContext(server.ctx.config, server.ctx.database, { log: silentLogger });
    try {
      const events = Array.from({ length: 20 }, (_, i) => ({
        event: "backup.completed" as const,
        backup: { id: `b${i}`, databaseName: "once", type: "auto", status: "completed", size: i },
      }));
      // Queue them all first (no instance sending), then let both instances send from the queue at once.
      const dispatcher = server.ctx.webhooks;
      server.ctx.webhooks = { kick() {} };
      try {
        for (const event of events) await publishEvent(server.ctx, user.id, event);
      } finally {
        server.ctx.webhooks = dispatcher;
      }
      const [byFirst, bySecond] = await Promise.all([sendDueDeliveries(server.ctx, { batch: 3 }), sendDueDeliveries(other, { batch: 3 })]);
      expect(byFirst + bySecond).toBe(events.length);
      expect(byFirst).toBeGreaterThan(0);
      expect(bySecond).toBeGreaterThan(0);
      server.ctx.webhooks.kick();
      const rows = await waitUntil(async () => {
        const all = await server.ctx.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, hook.id));
        return all.every((row) => row.status === "delivered") && all;
      });
      const received = receivedAt("/once");
      expect(received).toHaveLength(events.length);
      expect(new Set(received.map((d) => d.deliveryId)).size).toBe(events.length);
      expect(received.map((d) => d.body.backup.id).sort()).toEqual(events.map((e) => e.backup.id).sort());
      expect(rows.map((row) => row.attempts)).toEqual(events.map(() => 1));
    } finally {
      await other.bus.stop();
    }
  });
});

describe("Send test", () => {
  test("delivers a signed webhook.test now and answers the outcome; a failure is answered, not retried", async () => {
    const user = await server.registerUser();
    const hook = await addWebhook(user, { url: `${receiver.url}/tested`, events: ["agent.offline"] });
    const ok = await server.call("POST", `/api/settings/webhooks/${hook.id}/test`, { token: user.token });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ event: "webhook.test", status: "delivered", lastStatusCode: 200, attempts: 1 });
    const [delivery] = receivedAt("/tested");
    expect(delivery!.event).toBe("webhook.test");
    expect(isSignedBy(hook.secret, delivery!.rawBody, delivery!.signature)).toBe(true);

    receiver.answers.push(404);
    const failed = await server.call("POST", `/api/settings/webhooks/${hook.id}/test`, { token: user.token });
    expect(failed.body).toMatchObject({ status: "failed", lastStatusCode: 404, lastError: "The endpoint answered HTTP 404.", nextAttemptAt: null });
  });

  test("a Slack webhook gets an incoming-webhook message: text and blocks", async () => {
    const user = await server.registerUser();
    const hook = await addWebhook(user, { url: `${receiver.url}/slack`, events: ["backup.failed"], format: "slack" });
    expect((await server.call("POST", `/api/settings/webhooks/${hook.id}/test`, { token: user.token })).body.status).toBe("delivered");
    const [message] = receivedAt("/slack");
    expect(message!.body.text).toBe("A test message from DBVault: this Slack webhook works.");
    expect(message!.body.blocks[0]).toEqual({ type: "section", text: { type: "mrkdwn", text: message!.body.text } });
    expect(Object.keys(message!.body).sort()).toEqual(["blocks", "text"]);
  });

  test("an endpoint that redirects is not followed: the redirect is the failure", async () => {
    const user = await server.registerUser();
    const hook = await addWebhook(user, { url: `${receiver.url}/moved`, events: ["backup.failed"] });
    receiver.answers.push(302);
    const answer = await server.call("POST", `/api/settings/webhooks/${hook.id}/test`, { token: user.token });
    expect(answer.body).toMatchObject({ status: "failed", lastStatusCode: 302, lastError: "Redirected (HTTP 302); redirects are not followed." });
  });
});

describe("addresses", () => {
  test("without WEBHOOK_ALLOW_PRIVATE, http and loopback, private, link-local and metadata addresses are refused", async () => {
    const strict = await startTestServer();
    try {
      const user = await strict.registerUser();
      const refused = async (url: string) => {
        const res = await strict.call("POST", "/api/settings/webhooks", { token: user.token, body: { url, events: ["backup.failed"] } });
        expect(res.status).toBe(400);
        return res.body.message as string;
      };
      expect(await refused(`${receiver.url}/hook`)).toBe("The webhook URL must start with https://.");
      expect(await refused(`https://127.0.0.1:${receiver.port}/hook`)).toContain("not a public internet address (loopback)");
      expect(await refused("https://10.1.2.3/hook")).toContain("(private)");
      expect(await refused("https://192.168.0.10/hook")).toContain("(private)");
      expect(await refused("https://169.254.169.254/latest/meta-data/")).toContain("(linkLocal)");
      expect(await refused("https://[::1]/hook")).toContain("(loopback)");
      expect(await refused("https://[::ffff:10.0.0.1]/hook")).toContain("(ipv4Mapped of 10.0.0.1: private)");
      expect(await refused("https://[fd00:ec2::254]/hook")).toContain("(uniqueLocal)");
      expect(await refused(`https://localhost:${receiver.port}/hook`)).toContain("localhost (127.0.0.1) is not a public internet address");
      expect(await refused("https://user:pass@hooks.example.com/x")).toContain("must not contain a user name or password");
      expect(await refused("not a url")).toContain("not a valid URL");
      expect((await strict.call("GET", "/api/settings/webhooks", { token: user.token })).body).toEqual([]);
    } finally {
      await strict.close();
    }
  });

  test("the address is checked again at delivery: a name that resolves to loopback is refused then, and nothing is sent", async () => {
    const user = await server.registerUser();
    // Allowed when created (the flag is on), refused once it is off: the check runs at each delivery.
    const hook = await addWebhook(user, { url: `https://localhost:${receiver.port}/rebound`, events: ["backup.failed"] });
    server.ctx.config.webhookAllowPrivate = false;
    try {
      const answer = await server.call("POST", `/api/settings/webhooks/${hook.id}/test`, { token: user.token });
      expect(answer.body).toMatchObject({ status: "failed", lastStatusCode: null });
      expect(answer.body.lastError).toContain("localhost (127.0.0.1) is not a public internet address (loopback)");
      expect(receivedAt("/rebound")).toHaveLength(0);
    } finally {
      server.ctx.config.webhookAllowPrivate = true;
    }
  });
});

describe("the API", () => {
  test("refuses bad input with a 4xx and a message", async () => {
    const user = await server.registerUser();
    const post = (body: unknown) => server.call("POST", "/api/settings/webhooks", { token: user.token, body });
    const bad = [
      { events: ["backup.failed"] },
      { url: `${receiver.url}/x`, events: [] },
      { url: `${receiver.url}/x`, events: ["backup.deleted"] },
      { url: `${receiver.url}/x`, events: "backup.failed" },
      { url: `${receiver.url}/x`, events: ["backup.failed"], format: "xml" },
      { url: 42, events: ["backup.failed"] },
    ];
    for (const body of bad) {
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(typeof res.body.message).toBe("string");
    }
    expect((await post({ url: `${receiver.url}/x`, events: ["backup.deleted"] })).body.message).toContain(
      "events must be a list of one or more of backup.completed",
    );
    expect((await server.call("POST", "/api/settings/webhooks", { body: { url: `${receiver.url}/x`, events: ["backup.failed"] } })).status).toBe(401);
    expect((await server.call("GET", "/api/settings/webhooks")).status).toBe(401);
  });

  test("a user has at most 10 webhooks", async () => {
    const user = await server.registerUser();
    for (let i = 0; i < 10; i++) await addWebhook(user, { url: `${receiver.url}/many-${i}`, events: ["backup.failed"] });
    const eleventh = await server.call("POST", "/api/settings/webhooks", {
      token: user.token,
      body: { url: `${receiver.url}/many-10`, events: ["backup.failed"] },
    });
    expect(eleventh.status).toBe(409);
    expect(eleventh.body.message).toBe("You already have 10 webhooks. Delete one before adding another.");
  });

  test("another user's webhook cannot be seen, tested, read or deleted (404); the owner can delete it", async () => {
    const owner = await server.registerUser();
    const stranger = await server.registerUser();
    const hook = await addWebhook(owner, { url: `${receiver.url}/owned`, events: ["backup.failed"] });
    expect((await server.call("GET", "/api/settings/webhooks", { token: stranger.token })).body).toEqual([]);
    for (const [method, path] of [
      ["POST", `/api/settings/webhooks/${hook.id}/test`],
      ["GET", `/api/settings/webhooks/${hook.id}/deliveries`],
      ["DELETE", `/api/settings/webhooks/${hook.id}`],
    ] as const) {
      const res = await server.call(method, path, { token: stranger.token });
      expect(res.status).toBe(404);
      expect(res.body.message).toBe("Webhook not found.");
    }
    expect(receivedAt("/owned")).toHaveLength(0);
    const deleted = await server.call("DELETE", `/api/settings/webhooks/${hook.id}`, { token: owner.token });
    expect(deleted.body.message).toBe("Webhook deleted. It receives no more events.");
    expect((await server.call("GET", "/api/settings/webhooks", { token: owner.token })).body).toEqual([]);
  });
});
