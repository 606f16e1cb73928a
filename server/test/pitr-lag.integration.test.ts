// The shipping lag agents report with each heartbeat (issue 25 §2): stored, used by /metrics while
// fresh, alerted by e-mail and the pitr.lag webhook once when it passes 5 minutes and again only
// after it came back under; a malformed report is ignored.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { databases, plans, organizations } from "@db/schema";
import { startWebhookReceiver, type WebhookReceiver } from "../../testkit/webhook-receiver";
import { waitUntil } from "../../testkit/wait-until";
import { startTestServer, type TestServer, type TestUser } from "./harness";
import { registerScriptedAgent, type ScriptedAgent } from "./scripted-agent";

const TOKEN = "metrics-token-0123456789abcdef";
let server: TestServer;
let base: string;
let alice: TestUser;
let agent: ScriptedAgent;
let receiver: WebhookReceiver;
let shopId: string;
let offsetMs = 0;

beforeAll(async () => {
  receiver = startWebhookReceiver();
  server = await startTestServer({ METRICS_TOKEN: TOKEN, WEBHOOK_ALLOW_PRIVATE: "true" });
  server.ctx.now = () => new Date(Date.now() + offsetMs);
  base = server.listen();
  alice = await server.registerUser({ name: "Alice" });
  agent = await registerScriptedAgent(base, alice.apiKey, ["shop"]);
  const [pro] = await server.ctx.db.select().from(plans).where(eq(plans.name, "Pro"));
  await server.ctx.db.update(organizations).set({ planId: pro!.id }).where(eq(organizations.id, alice.id));
  shopId = (await server.ctx.db.select().from(databases).where(eq(databases.organizationId, alice.id)))[0]!.id;
  await agent.connect();
  expect((await server.call("PUT", `/api/pitr/databases/${shopId}`, { token: alice.token, body: { enabled: true } })).status).toBe(200);
  const hook = await server.call("POST", "/api/settings/webhooks", { token: alice.token, body: { url: `${receiver.url}/lag`, events: ["pitr.lag"] } });
  expect(hook.status).toBe(201);
}, 60_000);
afterAll(async () => {
  receiver.close();
  await server.close();
});

const reportedLag = async () => (await server.ctx.db.select().from(databases).where(eq(databases.id, shopId)))[0]!;

/** Sends a heartbeat with this lag for shop and waits until the server recorded it. */
async function beat(seconds: number, unreachableSeconds?: number) {
  const before = (await reportedLag()).pitrLagReportedAt?.getTime() ?? 0;
  offsetMs += 1_000;
  agent.send({ type: "heartbeat", pitrLag: [{ database: "shop", seconds, ...(unreachableSeconds === undefined ? {} : { unreachableSeconds }) }] });
  await waitUntil(async () => ((await reportedLag()).pitrLagReportedAt?.getTime() ?? 0) > before && (await reportedLag()).pitrLagSeconds === seconds, {
    message: `the lag ${seconds} recorded`,
  });
}

async function lagMetric(): Promise<string | undefined> {
  const res = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  const text = await res.text();
  return text.split("\n").find((line) => line.startsWith(`dbvault_pitr_lag_seconds{database="${shopId}"}`));
}

const lagMails = () => server.sentMail.filter((mail) => mail.subject === "Point-in-time recovery behind: shop");
const lagHooks = () => receiver.received.filter((delivery) => delivery.event === "pitr.lag");

describe("the shipping lag reported with heartbeats", () => {
  test("is stored and is what /metrics shows while fresh", async () => {
    await beat(7);
    expect(await lagMetric()).toBe(`dbvault_pitr_lag_seconds{database="${shopId}"} 7`);
    // And what the dashboard's line reads with the timeline.
    expect((await server.call("GET", `/api/pitr/databases/${shopId}/timeline`, { token: alice.token })).body.lagSeconds).toBe(7);
    // Stale once the heartbeats stop (no slice yet: no figure at all).
    await server.ctx.db
      .update(databases)
      .set({ pitrLagReportedAt: new Date(Date.now() - 10 * 60_000) })
      .where(eq(databases.id, shopId));
    expect(await lagMetric()).toBeUndefined();
    expect((await server.call("GET", `/api/pitr/databases/${shopId}/timeline`, { token: alice.token })).body.lagSeconds).toBeNull();
  });

  test("a malformed report is ignored", async () => {
    const before = await reportedLag();
    agent.send({ type: "heartbeat", pitrLag: [{ database: "shop", seconds: -5 }] });
    await beat(3);
    expect((await reportedLag()).pitrLagReportedAt!.getTime()).toBeGreaterThan(before.pitrLagReportedAt!.getTime());
    expect((await reportedLag()).pitrLagSeconds).toBe(3);
  });

  test("past 5 minutes it is mailed and raised as pitr.lag once, and again only after it recovered", async () => {
    await beat(301);
    const mail = await waitUntil(() => lagMails()[0], { message: "the lag e-mail" });
    expect(mail.text).toContain('The agent shipping "shop"\'s oplog is 5 minutes behind');
    const hook = await waitUntil(() => lagHooks()[0], { message: "the pitr.lag webhook" });
    expect(hook.body.lag).toEqual({ databaseId: shopId, databaseName: "shop", seconds: 301 });
    await beat(400);
    await beat(500);
    await beat(20);
    expect(lagMails().length).toBe(1);
    await beat(320);
    await waitUntil(() => lagMails().length === 2 && lagHooks().length === 2, { message: "the second alert after recovery" });
  });

  test("a database its agent cannot reach is shown since when, and alerted after 2 minutes though the lag is under 5", async () => {
    await beat(2); // caught up: the next alert is a new episode
    const mailsBefore = lagMails().length;
    const hooksBefore = lagHooks().length;
    const timeline = async () => (await server.call("GET", `/api/pitr/databases/${shopId}/timeline`, { token: alice.token })).body;
    await beat(12, 10);
    const since = new Date((await reportedLag()).pitrLagReportedAt!.getTime() - 10_000).toISOString();
    expect(await timeline()).toMatchObject({ lagSeconds: 12, unreachableSince: since });
    expect(lagMails().length).toBe(mailsBefore);
    // Two minutes on, still cut off: the lag (125 s) is under 5 minutes, the alert goes anyway.
    offsetMs += 113_000;
    await beat(125, 123);
    expect((await timeline()).unreachableSince).toBe(since); // kept from the outage's first report
    const mail = await waitUntil(() => lagMails()[mailsBefore], { message: "the unreachable e-mail" });
    expect(mail.text).toContain(`The agent shipping "shop"'s oplog can't reach the database since ${since}`);
    const hook = await waitUntil(() => lagHooks()[hooksBefore], { message: "the pitr.lag webhook" });
    expect(hook.body.lag).toEqual({ databaseId: shopId, databaseName: "shop", seconds: 125, unreachableSince: since });
    // It answers again: no longer shown.
    await beat(3);
    expect((await timeline()).unreachableSince).toBeNull();
  });
});
