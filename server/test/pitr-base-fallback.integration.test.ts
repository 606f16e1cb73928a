// A moment after a base backup whose verification failed is served from an older base: the plan
// and the restore skip the failed one (it may not restore), and the timeline does not offer it.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { backups, databases, organizations, plans } from "@db/schema";
import { waitUntil } from "../../testkit/wait-until";
import { startTestServer, type TestServer, type TestUser } from "./harness";
import { consistentBackup, uploadSlice } from "./pitr-support";
import { registerScriptedAgent, type ScriptedAgent } from "./scripted-agent";

let server: TestServer;
let base: string;
let alice: TestUser;
let agent: ScriptedAgent;
let shopId: string;
let early: string;
let newest: string;

const T = 1_790_000_000;
const pos = (offset: number, i: number) => `${T + offset},${i}`;
const CHAIN = "c".repeat(32);

beforeAll(async () => {
  server = await startTestServer();
  base = server.listen();
  alice = await server.registerUser({ name: "Alice" });
  agent = await registerScriptedAgent(base, alice.apiKey, ["shop"]);
  shopId = (await server.ctx.db.select().from(databases).where(eq(databases.organizationId, alice.id)))[0]!.id;
  const [pro] = await server.ctx.db.select().from(plans).where(eq(plans.name, "Pro"));
  await server.ctx.db.update(organizations).set({ planId: pro!.id }).where(eq(organizations.id, alice.id));
  await agent.connect();
  const on = await server.call("PUT", `/api/pitr/databases/${shopId}`, { token: alice.token, body: { enabled: true } });
  if (on.status !== 200) throw new Error(`switching on failed: ${on.status} ${JSON.stringify(on.body)}`);
  await uploadSlice(server.ctx, base, agent, "shop", { chain: CHAIN, sequence: 0, start: pos(100, 1), end: pos(110, 5) });
  await uploadSlice(server.ctx, base, agent, "shop", { chain: CHAIN, sequence: 1, start: pos(110, 5), end: pos(130, 1) });
  early = await consistentBackup(server.ctx, agent, shopId, { t: T + 105, i: 2 });
  newest = await consistentBackup(server.ctx, agent, shopId, { t: T + 112, i: 0 });
}, 60_000);
afterAll(() => server.close());

const plan = (at: string) => server.call("GET", `/api/restores/point-in-time/plan?${new URLSearchParams({ databaseId: shopId, at })}`, { token: alice.token });

test("the newest base before the moment serves it while its verification has not failed", async () => {
  const { status, body } = await plan(pos(120, 0));
  expect(status).toBe(200);
  expect(body.base.id).toBe(newest);
});

test("once the agent reports the newest base failed verification, the moment is served from the older base", async () => {
  agent.send({ type: "backup.verified", backupId: newest, verification: { status: "failed", namespaces: {}, error: "the stored backup does not restore" } });
  await waitUntil(async () => {
    const [row] = await server.ctx.db.select().from(backups).where(eq(backups.id, newest));
    return row?.verification?.status === "failed";
  });
  const { status, body } = await plan(pos(120, 0));
  expect(status).toBe(200);
  expect(body.base.id).toBe(early);
  expect(body.base.consistentAt.ts).toBe(pos(105, 2));
  expect(body.slices.count).toBe(2);
  const timeline = await server.call("GET", `/api/pitr/databases/${shopId}/timeline`, { token: alice.token });
  expect(timeline.body.bases.map((entry: { id: string }) => entry.id)).toEqual([early]);
});
