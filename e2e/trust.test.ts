// Trust in Chromium against the real server and a scripted agent: the Verified badge with its
// time and the counts on hover (and a failed one's reason), an anomaly marked as expected, a drill
// started from Settings → General with its result in Restore History, and the GFS preview.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { and, eq } from "drizzle-orm";
import type { Page } from "playwright-core";
import { backups, databases } from "@db/schema";
import { startBackup } from "../server/src/modules/backups/service";
import type { TestUser } from "../server/test/harness";
import { registerScriptedAgent, type ScriptedAgent } from "../server/test/scripted-agent";
import { type E2EEnv, startE2E } from "./support/e2e-env";
import { eventually } from "./support/eventually";
import { signIn } from "./support/sign-in";

const DAY = 86_400_000;
const COUNTS = { "shop.orders": 1200, "shop.customers": 34 };

let env: E2EEnv;
let agent: ScriptedAgent;
let user: TestUser;
beforeAll(async () => {
  env = await startE2E();
  user = await env.server.registerUser({ name: "Tess Trust" });
  agent = await registerScriptedAgent(env.baseUrl, user.apiKey, ["shop"]);
  await agent.connect();
});
afterAll(async () => {
  await agent?.disconnect();
  await env?.close();
});

/** A completed backup of "shop" of `size` bytes, verified by the agent when `verification` is given. */
async function backupOf(size: number, verification?: { status: "ok" | "failed"; namespaces: Record<string, number>; error?: string }) {
  const [database] = await env.server.ctx.db
    .select()
    .from(databases)
    .where(and(eq(databases.organizationId, user.id), eq(databases.name, "shop")));
  const { id } = await startBackup(env.server.ctx, database!, "auto");
  const { backupId } = await agent.waitFor("backup");
  expect(backupId).toBe(id);
  const bytes = randomBytes(size);
  expect((await agent.uploadPart(id, 0, bytes)).status).toBe(200);
  expect((await agent.complete(id, bytes, 1, { collections: COUNTS })).status).toBe(200);
  if (verification) {
    agent.send({ type: "backup.verified", backupId: id, verification });
    await eventually(
      async () => (await env.server.call("GET", `/api/backups/${id}`, { token: user.token })).body.verifiedAt,
      (value) => expect(value).toBeString(),
    );
  }
  return id;
}

const row = (page: Page, id: string) => page.locator(`[data-testid="backup-row"][data-backup-id="${id}"]`);

describe("trust in the web app", () => {
  test("the Verified badge shows the time and the counts on hover; a failure its reason; an anomaly can be marked as expected", async () => {
    const old = await backupOf(5000, { status: "ok", namespaces: COUNTS });
    const damaged = await backupOf(5100, {
      status: "failed",
      namespaces: {},
      error: "the stored backup could not be read back: backup file is corrupted at chunk 0",
    });
    const small = await backupOf(1000, { status: "ok", namespaces: COUNTS });
    const { page } = await env.openPage();
    await signIn(page, user);

    const verified = row(page, old).getByTestId("verification-badge");
    await verified.waitFor();
    expect(await verified.innerText()).toBe("Verified");
    const [stored] = await env.server.ctx.db.select({ verifiedAt: backups.verifiedAt }).from(backups).where(eq(backups.id, old));
    const shown = await page.evaluate(
      (iso) => new Date(iso).toLocaleString("en-US", { month: "short", day: "numeric", year: "numeric", hour: "numeric", minute: "2-digit" }),
      stored!.verifiedAt!.toISOString(),
    );
    expect(await row(page, old).getByTestId("verified-at").innerText()).toBe(shown);
    await verified.hover();
    const tooltip = page.getByRole("tooltip");
    await tooltip.waitFor();
    expect(await tooltip.innerText()).toContain("Read back from storage, decrypted and checked: 1,234 documents.");
    expect(await tooltip.innerText()).toContain("shop.customers: 34 documents");
    expect(await tooltip.innerText()).toContain("shop.orders: 1,200 documents");
    await env.screenshot(page, "trust-verified-badge");

    const failed = row(page, damaged).getByTestId("verification-badge");
    expect(await failed.innerText()).toBe("Verification failed");
    await failed.hover();
    await eventually(
      () => page.getByRole("tooltip").innerText(),
      (text) => expect(text).toContain("backup file is corrupted at chunk 0"),
    );

    // The small one is flagged; marking it as expected asks first, then the badge says so.
    const anomaly = row(page, small).getByTestId("anomaly-badge");
    expect(await anomaly.innerText()).toBe("Size drop");
    await anomaly.hover();
    await eventually(
      () => page.getByRole("tooltip").innerText(),
      (text) => expect(text).toContain("1000 Bytes, under half the median of 4.93 KB of the previous 2 backups."),
    );
    await row(page, small).getByRole("button", { name: "Mark as expected" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Mark as expected" }).click();
    await eventually(
      () => row(page, small).getByTestId("anomaly-badge").innerText(),
      (text) => expect(text).toBe("Size drop (expected)"),
    );
    expect((await env.server.call("GET", `/api/backups/${small}`, { token: user.token })).body.anomalyResolvedAt).toBeString();

    // Verify asks the agent to read the backup back again.
    await row(page, old)
      .getByRole("button", { name: /^Verify / })
      .click();
    expect(await agent.waitFor("verify")).toMatchObject({ backupId: old, expected: COUNTS });
    await eventually(
      () => page.getByTestId("toasts").innerText(),
      (text) => expect(text).toContain("Verification requested: the agent reads the backup back from storage"),
    );
  });

  test("a drill started in Settings → General shows its result in Restore History, marked Drill", async () => {
    const { page } = await env.openPage();
    await signIn(page, user);
    await page.goto("/settings?tab=general");
    await page.getByLabel("Drill a database now").waitFor();
    await page.getByRole("button", { name: "Run drill now" }).click();
    const command = await agent.waitFor("drill");
    expect(command.scratchDatabase).toBe("shop_dbvault_drill");
    await eventually(
      () => page.getByTestId("toasts").innerText(),
      (text) => expect(text).toContain('Drill started: the latest backup of "shop" is restored into shop_dbvault_drill, checked and dropped.'),
    );

    agent.send({ type: "restore.started", restoreId: command.restoreId });
    agent.send({
      type: "restore.completed",
      restoreId: command.restoreId,
      stats: { "shop_dbvault_drill.orders": { restored: 1200, failed: 0 }, "shop_dbvault_drill.customers": { restored: 34, failed: 0 } },
      drill: { durationMs: 4200, documents: { expected: 1234, restored: 1234 }, indexes: { expected: 3, found: 3 }, scratchDropped: true },
    });
    await page.goto("/dashboard");
    await page.getByRole("tab", { name: "Restore History" }).click();
    const drillRow = page.getByTestId("restore-row").filter({ has: page.getByTestId("drill-badge") });
    await drillRow.waitFor();
    await eventually(
      () => drillRow.getByTestId("drill-result").innerText(),
      (text) => expect(text).toBe("Drill passed: 1,234 documents restored of 1,234, 3 of 3 indexes, in 4 s; scratch database dropped"),
    );
    expect(await drillRow.innerText()).toContain("test restore into shop_dbvault_drill, dropped afterwards");
    await env.screenshot(page, "trust-drill-result");
  });

  test("GFS retention: the preview shows which existing backups each choice keeps, and it is saved", async () => {
    const { page } = await env.openPage();
    await signIn(page, user);
    // The backups of the first test, spread over the past: 10, 5 and 2 days old (the free plan keeps 7 days).
    const rows = await env.server.ctx.db.select({ id: backups.id }).from(backups).where(eq(backups.organizationId, user.id)).orderBy(backups.createdAt);
    const ages = [10, 5, 2];
    for (const [i, { id }] of rows.entries()) {
      await env.server.ctx.db
        .update(backups)
        .set({ createdAt: new Date(Date.now() - ages[i]! * DAY) })
        .where(eq(backups.id, id));
    }
    await page.goto("/settings?tab=general");
    await page.getByLabel("Grandfather-father-son (GFS)").check();
    await page.getByLabel("Daily").fill("1");
    await page.getByLabel("Weekly").fill("0");
    await page.getByLabel("Monthly").fill("0");
    const summary = page.getByTestId("retention-preview-summary");
    // Daily 1 keeps the newest (which is also the last verified) only.
    await eventually(
      () => summary.innerText(),
      (text) => expect(text).toBe("Keeps 1 of 3 backups; 2 would be deleted at the next retention pass."),
    );
    const decisions = () => page.getByTestId("retention-preview-row").allInnerTexts();
    await eventually(decisions, (texts) => {
      expect(texts).toHaveLength(3);
      expect(texts[0]).toContain("Kept: newest, last verified, daily");
      expect(texts[1]).toContain("Deleted: not a daily, weekly or monthly pick");
      expect(texts[2]).toContain("Deleted: not a daily, weekly or monthly pick");
    });
    // Ten days: the 5-day-old backup is a daily pick too; the 10-day-old one is beyond the free plan's 7 days.
    await page.getByLabel("Daily").fill("10");
    await eventually(
      () => summary.innerText(),
      (text) => expect(text).toBe("Keeps 2 of 3 backups; 1 would be deleted at the next retention pass."),
    );
    await eventually(decisions, (texts) => {
      expect(texts[1]).toContain("Kept: daily");
      expect(texts[2]).toContain("Deleted: older than your plan allows");
    });
    await env.screenshot(page, "trust-gfs-preview");

    await page.getByRole("button", { name: "Save Changes" }).click();
    await page.getByRole("button", { name: "Saved!" }).waitFor();
    const saved = (await env.server.call("GET", "/api/settings", { token: user.token })).body;
    expect(saved).toMatchObject({ retentionMode: "gfs", gfs: { daily: 10, weekly: 0, monthly: 0 } });
  });
});
