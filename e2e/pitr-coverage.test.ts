// The dashboard's point-in-time line, in Chromium against the real server and a scripted agent:
// "Point-in-time: covered from X to N s ago" from the first second that can be restored (the base
// backup's) to the last (the stored slices'), the lag warning once the agent's report passes
// 5 minutes, and "can't reach the database since" once the agent reports it cannot.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { databases, pitrSlices, plans, organizations } from "@db/schema";
import type { TestUser } from "../server/test/harness";
import { consistentBackup } from "../server/test/pitr-support";
import { registerScriptedAgent, type ScriptedAgent } from "../server/test/scripted-agent";
import { waitUntil } from "../testkit/wait-until";
import { type E2EEnv, startE2E } from "./support/e2e-env";
import { signIn } from "./support/sign-in";

let env: E2EEnv;
let agent: ScriptedAgent;
let user: TestUser;
let shopId: string;
const START = Math.floor(Date.now() / 1000) - 3600;

beforeAll(async () => {
  env = await startE2E();
  user = await env.server.registerUser({ name: "Pat Point" });
  const [pro] = await env.server.ctx.db.select().from(plans).where(eq(plans.name, "Pro"));
  await env.server.ctx.db.update(organizations).set({ planId: pro!.id }).where(eq(organizations.id, user.id));
  agent = await registerScriptedAgent(env.baseUrl, user.apiKey, ["shop"]);
  await agent.connect();
  shopId = (await env.server.ctx.db.select().from(databases).where(eq(databases.organizationId, user.id)))[0]!.id;
  expect((await env.server.call("PUT", `/api/pitr/databases/${shopId}`, { token: user.token, body: { enabled: true } })).status).toBe(200);
  // A shipped hour of oplog, as receive-slice records it (the bytes play no part in the line).
  await env.server.ctx.db.insert(pitrSlices).values({
    organizationId: user.id,
    databaseId: shopId,
    chain: "a".repeat(32),
    sequence: 0,
    startTs: BigInt(START) << 32n,
    endTs: (BigInt(START + 3590) << 32n) | 1n,
    entryCount: 10,
    size: 100,
    sha256: "0".repeat(64),
    reason: "started",
    storageKey: "unused",
    stored: true,
  });
  await consistentBackup(env.server.ctx, agent, shopId, { t: START + 60, i: 1 });
});
afterAll(async () => {
  await agent?.disconnect();
  await env?.close();
});

async function reportLag(seconds: number, unreachableSeconds?: number) {
  agent.send({ type: "heartbeat", pitrLag: [{ database: "shop", seconds, ...(unreachableSeconds === undefined ? {} : { unreachableSeconds }) }] });
  await waitUntil(async () => (await env.server.ctx.db.select().from(databases).where(eq(databases.id, shopId)))[0]!.pitrLagSeconds === seconds, {
    message: `lag ${seconds} recorded`,
  });
}

test("the dashboard says since when the database is covered and how far behind now, then warns of a lag", async () => {
  await reportLag(3);
  const { page } = await env.openPage();
  await signIn(page, user);
  const line = page.getByTestId("pitr-coverage-shop");
  await line.waitFor();
  const from = await page.evaluate(
    (iso) => new Date(iso).toLocaleString("en-US", { month: "short", day: "numeric", year: "numeric", hour: "numeric", minute: "2-digit", second: "2-digit" }),
    new Date((START + 60) * 1000).toISOString(),
  );
  // To the slices' last whole second (START + 3589), as the wizard offers it, not the reported 3 s.
  const text = await line.innerText();
  expect(text).toMatch(new RegExp(`^shop Point-in-time: covered from ${from} to \\d+ s ago$`));
  expect(Number(/to (\d+) s ago/.exec(text)![1])).toBeGreaterThanOrEqual(10);
  await env.screenshot(page, "pitr-coverage");

  await reportLag(420);
  await page.reload();
  await line.getByRole("alert").waitFor();
  expect(await line.getByRole("alert").innerText()).toStartWith("Shipping is 7 min behind");

  await reportLag(130, 125);
  await page.reload();
  await line.getByRole("alert").getByText("The agent can't reach the database since").waitFor();
}, 90_000);
