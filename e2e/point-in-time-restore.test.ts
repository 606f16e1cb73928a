// The restore wizard's "A point in time", in Chromium against the real server and a scripted
// agent with seeded slices: the database's timeline (base backups, covered ranges, the gap in
// red), a moment in the gap refused before anything is asked, a covered moment with what the
// restore will use, the existing warnings and confirmation, the agent's command with the slices
// it then downloads, and Restore History showing the moment.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import type { Page } from "playwright-core";
import { databases, plans, organizations } from "@db/schema";
import { agentApi, type PointInTimePlanPage } from "@protocol/agent-protocol";
import type { TestUser } from "../server/test/harness";
import { consistentBackup, uploadSlice } from "../server/test/pitr-support";
import { registerScriptedAgent, type ScriptedAgent } from "../server/test/scripted-agent";
import { type E2EEnv, startE2E } from "./support/e2e-env";
import { eventually } from "./support/eventually";
import { signIn } from "./support/sign-in";

const T = 1_790_000_000;
const pos = (offset: number, i: number) => `${T + offset},${i}`;

let env: E2EEnv;
let agent: ScriptedAgent;
let user: TestUser;
let shopId: string;
const baseIds: string[] = [];
beforeAll(async () => {
  env = await startE2E();
  user = await env.server.registerUser({ name: "Tess Timeline" });
  const [pro] = await env.server.ctx.db.select().from(plans).where(eq(plans.name, "Pro"));
  await env.server.ctx.db.update(organizations).set({ planId: pro!.id }).where(eq(organizations.id, user.id));
  agent = await registerScriptedAgent(env.baseUrl, user.apiKey, ["shop"]);
  await agent.connect();
  const [shop] = await env.server.ctx.db
    .select()
    .from(databases)
    .where(and(eq(databases.organizationId, user.id), eq(databases.name, "shop")));
  shopId = shop!.id;
  const on = await env.server.call("PUT", `/api/pitr/databases/${shopId}`, { token: user.token, body: { enabled: true } });
  if (on.status !== 200) throw new Error(`switching on failed: ${on.status}`);
  const seed = (slice: Parameters<typeof uploadSlice>[4]) => uploadSlice(env.server.ctx, env.baseUrl, agent, "shop", slice);
  // Chain A covers 100..130; the oplog rolled over; chain B covers 900..920.
  await seed({ chain: "a".repeat(32), sequence: 0, start: pos(100, 1), end: pos(110, 5) });
  await seed({ chain: "a".repeat(32), sequence: 1, start: pos(110, 5), end: pos(125, 3) });
  await seed({ chain: "a".repeat(32), sequence: 2, start: pos(125, 3), end: pos(130, 1) });
  await seed({ chain: "b".repeat(32), sequence: 0, start: pos(900, 1), end: pos(920, 1), reason: "rollover", rolloverFrom: pos(130, 1) });
  baseIds.push(await consistentBackup(env.server.ctx, agent, shopId, { t: T + 105, i: 2 }));
  baseIds.push(await consistentBackup(env.server.ctx, agent, shopId, { t: T + 905, i: 0 }));
}, 60_000);
afterAll(async () => {
  await agent?.disconnect();
  await env?.close();
});

/** The datetime-local value and the history's "Dec 7, 2026, 4:10:05 PM" (the app's one date format) of a moment, in the page's time zone. */
const localForms = (page: Page, offset: number) =>
  page.evaluate((seconds) => {
    const date = new Date(seconds * 1000);
    const pad = (value: number) => String(value).padStart(2, "0");
    const time = `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
    return {
      input: `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${time}`,
      history: date.toLocaleString("en-US", { month: "short", day: "numeric", year: "numeric", hour: "numeric", minute: "2-digit", second: "2-digit" }),
    };
  }, T + offset);

test("restoring a database to a point in time from the wizard", async () => {
  const { page } = await env.openPage();
  await signIn(page, user);
  await page.getByRole("heading", { name: "Dashboard", level: 1 }).waitFor();
  await page
    .locator(`[data-testid="backup-row"][data-backup-id="${baseIds[1]}"]`)
    .getByRole("button", { name: /^Restore / })
    .click();
  await page.getByRole("heading", { name: "Restore database: step 1 of 2" }).waitFor();
  const wizard = page.getByTestId("restore-dialog");
  await wizard.getByLabel("A point in time").check();

  const timeline = wizard.getByTestId("pitr-timeline");
  await timeline.waitFor();
  expect(await timeline.getByTestId("pitr-range").count()).toBe(2);
  // Red: before the first base (100..105) and from the rollover to the new chain's base (130..905).
  expect(await timeline.getByTestId("pitr-gap").count()).toBe(2);
  expect(await timeline.getByTestId("pitr-base").count()).toBe(2);
  const next = page.getByRole("button", { name: "Next" });
  expect(await next.isDisabled()).toBe(true);

  // Inside the gap: refused in the page, nothing to go on with.
  const moment = wizard.getByTestId("pitr-moment");
  await moment.fill((await localForms(page, 500)).input);
  await wizard.getByText("This moment cannot be restored: choose a time in a green range.").waitFor();
  expect(await next.isDisabled()).toBe(true);

  // Covered: the base at 105 and the two slices to 125.
  const chosen = await localForms(page, 120);
  await moment.fill(chosen.input);
  // The time is typed in the browser's time zone, and the wizard says which.
  const zone = await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone);
  const zoneText = await wizard.getByTestId("pitr-time-zone").innerText();
  expect(zoneText).toMatch(/^In your time zone: UTC([+−]\d{2}:\d{2}(, \S+)?)?$/);
  if (zone !== "UTC" && zone !== "Etc/UTC") expect(zoneText).toEndWith(`, ${zone}`);
  expect(await moment.getAttribute("aria-describedby")).toBe(await wizard.getByTestId("pitr-time-zone").getAttribute("id"));
  const plan = wizard.getByTestId("pitr-plan");
  await plan.waitFor();
  expect(await plan.innerText()).toContain("+ 2 oplog slices");
  // Offline: the slices from the base to the moment as one zip, and the exact commands.
  const offline = wizard.getByTestId("pitr-offline");
  await offline.getByText("Download for an offline restore").click();
  await offline.getByText("dbvault-agent restore --db shop --in backup-shop-").waitFor();
  expect(await offline.innerText()).toContain(`--oplog shop-slices --until ${T + 120},4294967295`);
  const [zip] = await Promise.all([page.waitForEvent("download"), offline.getByRole("button", { name: "Download the oplog slices" }).click()]);
  expect(zip.suggestedFilename()).toBe("shop-oplog-slices.zip");
  await eventually(
    () => next.isEnabled(),
    (value) => expect(value).toBe(true),
  );
  // Collections are typed: one created after the base backup can be named, and the agent checks them at the moment.
  const only = wizard.getByLabel("Only these collections (optional)");
  await only.fill("orders, made_after_the_base");
  await wizard.getByText(/A name that does not exist at that moment stops the restore before anything changes\./).waitFor();
  await env.screenshot(page, "restore-point-in-time");
  const copyName = await wizard.getByLabel("Target database").inputValue();
  expect(copyName).toMatch(/^shop_restored_\d{4}-\d{2}-\d{2}$/);
  await next.click();
  expect(await page.getByTestId("restore-moment-summary").innerText()).toStartWith(`To ${chosen.history} (UTC`);
  // A copy into a new database replaces nothing: confirmed with one click, nothing typed.
  await page.getByRole("button", { name: "Restore as a copy" }).click();

  const command = await agent.waitFor("restore");
  expect(command).toMatchObject({ backupId: baseIds[0], databaseName: "shop", targetDatabase: copyName });
  expect(command.pointInTime?.until).toEqual({ t: T + 120, i: 4294967295 });
  expect(command.pointInTime?.plan).toEqual({ slices: 2, collections: true });
  const planned = await fetch(`${env.baseUrl}${agentApi.pointInTimePlan(command.restoreId)}`, { headers: agent.headers() });
  const { slices, collections } = (await planned.json()) as PointInTimePlanPage;
  expect(collections).toEqual(["orders", "made_after_the_base"]);
  expect(slices.map((slice) => slice.sequence)).toEqual([0, 1]);
  for (const slice of slices) {
    expect((await fetch(`${env.baseUrl}${agentApi.sliceDownload(slice.id)}`, { headers: agent.headers() })).status).toBe(200);
  }

  await page.getByRole("tab", { name: "Restore History", selected: true }).waitFor();
  const row = page.getByTestId("restore-row").first();
  await row.getByTestId("restore-moment").waitFor();
  expect(await row.getByTestId("restore-moment").innerText()).toBe(`to ${chosen.history}`);
  await env.screenshot(page, "restore-history-point-in-time");
}, 90_000);
