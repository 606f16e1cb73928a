// The dashboard against the real server and a scripted agent: empty states, System Status, a
// triggered backup's live progress, the 429 limit, download (file name and bytes), delete with
// confirmation, the three-step restore wizard and the Restore History's live progress.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { and, eq } from "drizzle-orm";
import type { Page } from "playwright-core";
import { databases } from "@db/schema";
import { startBackup } from "../server/src/modules/backups/service";
import type { TestUser } from "../server/test/harness";
import { registerScriptedAgent, type ScriptedAgent } from "../server/test/scripted-agent";
import { type E2EEnv, startE2E } from "./support/e2e-env";
import { eventually } from "./support/eventually";
import { findLowContrast } from "./support/contrast";
import { signIn as signInAs } from "./support/sign-in";

let env: E2EEnv;
let agent: ScriptedAgent | null = null;
beforeAll(async () => {
  env = await startE2E();
}, 60_000);
afterAll(async () => {
  await agent?.disconnect();
  await env?.close();
});

const backupRows = (page: Page) => page.getByTestId("backup-row");

async function signIn(page: Page, user: TestUser) {
  await signInAs(page, user);
  await page.getByRole("heading", { name: "Dashboard", level: 1 }).waitFor();
}

/** Plays the agent's part of one backup: progress, then the encrypted bytes. */
async function runBackup(backupId: string, bytes: Uint8Array, beforeUpload?: () => Promise<void>) {
  agent!.send({ type: "backup.progress", backupId, progress: { current: 1200, total: 2400, percentage: 50, collection: "orders" } });
  await beforeUpload?.();
  const done = await agent!.upload(backupId, bytes);
  expect(done.status).toBe(200);
}

describe("dashboard", () => {
  test("empty states, agent, backup with live progress, limit, download, delete, restore wizard and history", async () => {
    const user = await env.server.registerUser({ name: "Dana Dashboard" });
    const { context, page } = await env.openPage();
    // The page's own clock, so that the restore's speed estimate can be given its second report a
    // second later without the test waiting that second.
    await page.clock.install();
    // Records the name the app asks for: Chromium itself turns ':' into '_' in saved file names.
    await page.addInitScript(() => {
      const click = HTMLAnchorElement.prototype.click;
      HTMLAnchorElement.prototype.click = function (this: HTMLAnchorElement) {
        if (this.download) ((window as unknown as { savedNames: string[] }).savedNames ??= []).push(this.download);
        return click.call(this);
      };
    });
    await signIn(page, user);
    await eventually(
      () => page.title(),
      (value) => expect(value).toBe("DBVault - Dashboard"),
    );

    // Empty states.
    await page.getByText("No backups found. Trigger a backup to protect your data.").waitFor();
    await page.getByText("No backup agents connected").waitFor();
    await eventually(
      () => page.getByRole("link", { name: "Set Up Agent" }).getAttribute("href"),
      (value) => expect(value).toBe("/settings?tab=security&setup=1"),
    );
    await eventually(
      () => page.getByTestId("total-backups").innerText(),
      (value) => expect(value).toBe("0"),
    );
    await page.getByText("Last backup: Never").waitFor();
    // No phantom database: nothing to select, and Trigger Backup says why it cannot run.
    await eventually(
      () => page.getByLabel("Database").inputValue(),
      (value) => expect(value).toBe(""),
    );
    await page.getByTestId("trigger-blocked").getByText("Add a database with dbvault-agent setup first.").waitFor();
    await eventually(
      () => page.getByRole("button", { name: "Trigger Backup" }).isDisabled(),
      (value) => expect(value).toBe(true),
    );
    await eventually(
      () => page.getByTestId("success-rate").innerText(),
      (value) => expect(value).toBe("—"),
    );
    await page.getByTestId("backup-service-state").getByText("Connected").waitFor();
    await env.screenshot(page, "dashboard-empty");
    await page.getByRole("tab", { name: "Restore History" }).click();
    await page.getByText("No restore operations found.").waitFor();
    await page.getByText("When you restore a database, the history will appear here.").waitFor();
    await page.getByRole("tab", { name: "Backups" }).click();

    // The service check.
    await page.getByRole("button", { name: "Check", exact: true }).click();
    await page.getByText("Backup service is online and functioning properly").waitFor();

    // An agent with two databases connects; one is beyond the free plan's limit.
    agent = await registerScriptedAgent(env.baseUrl, user.apiKey, ["shop", "crm"], "prod-agent");
    await agent.connect();
    await page.reload();
    const agentRow = page.getByTestId("agent-row");
    await agentRow.getByText("prod-agent").waitFor();
    await agentRow.getByText("Online").waitFor();
    await agentRow.getByText("v1.0.0 · linux-x64").waitFor();
    await eventually(
      () => agentRow.getByRole("link", { name: "Manage prod-agent" }).getAttribute("href"),
      (value) => expect(value).toBe(`/settings?agent=${agent!.agentId}`),
    );
    const selector = page.getByLabel("Database");
    await page.waitForFunction(() => (document.querySelector("select") as HTMLSelectElement | null)?.value === "shop");
    const [crm] = await env.server.ctx.db
      .select()
      .from(databases)
      .where(and(eq(databases.organizationId, user.id), eq(databases.name, "crm")));
    if (crm?.isActive === false)
      await eventually(
        () => selector.locator('option[value="crm"]').isDisabled(),
        (value) => expect(value).toBe(true),
      );
    await env.screenshot(page, "dashboard-agent-online");

    // Trigger a backup and watch its row go from progress to Completed, never showing "0 Bytes"
    // (the completion event carries the size; the list is fetched again only later).
    await page.evaluate(() => {
      const seen = window as unknown as { sawZeroBytes: boolean };
      seen.sawZeroBytes = false;
      new MutationObserver(() => {
        for (const row of document.querySelectorAll('[data-testid="backup-row"]')) if (row.textContent?.includes("0 Bytes")) seen.sawZeroBytes = true;
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    const first = randomBytes(300 * 1024);
    await page.getByRole("button", { name: "Trigger Backup" }).click();
    const command = await agent.waitFor("backup");
    expect(command.databaseName).toBe("shop");
    await runBackup(command.backupId, first, async () => {
      const progress = backupRows(page).first().getByRole("progressbar");
      await progress.waitFor();
      await eventually(
        () => progress.getAttribute("aria-valuenow"),
        (value) => expect(value).toBe("50"),
      );
      await backupRows(page).first().getByText("1.2K / 2.4K documents").waitFor();
      await env.screenshot(page, "dashboard-backup-progress");
    });
    await backupRows(page).first().getByText("Completed").waitFor({ timeout: 15_000 });
    await backupRows(page).first().getByText("300 KB").waitFor();
    expect(await page.evaluate(() => (window as unknown as { sawZeroBytes: boolean }).sawZeroBytes)).toBe(false);
    await page.getByRole("button", { name: "Trigger Backup" }).waitFor();
    await eventually(
      () => page.getByTestId("total-backups").innerText(),
      (value) => expect(value).toBe("1"),
    );
    // The checklist waits for a test restore; hidden, it gives the chart its place.
    await page.getByTestId("onboarding-checklist").getByRole("button", { name: "Hide" }).click();
    await page.getByRole("img", { name: "Backup size over time: shop" }).waitFor();

    // The free plan's manual backup is used: Trigger Backup waits, saying why and until when,
    // rather than answer a click with 429.
    await eventually(
      () => page.getByRole("button", { name: "Trigger Backup" }).isDisabled(),
      (value) => expect(value).toBe(true),
    );
    await eventually(
      () => page.getByTestId("trigger-blocked").innerText(),
      (value) =>
        expect(value).toMatch(/^Your Free plan allows one manual backup every 24 hours: the next from [A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2} [AP]M\.$/),
    );
    expect(await page.getByRole("button", { name: "Trigger Backup" }).getAttribute("aria-describedby")).toBeTruthy();
    // The server's refusal, and its toast, remain for a request made anyway (another tab).
    expect((await env.server.call("POST", "/api/backups", { token: user.token, body: { databaseName: "shop" } })).status).toBe(429);

    // Download: the spec's file name and exactly the uploaded bytes.
    const [listed] = (await env.server.call("GET", "/api/backups", { token: user.token })).body as Array<{ id: string; createdAt: string }>;
    const downloadEvent = page.waitForEvent("download");
    await backupRows(page)
      .first()
      .getByRole("button", { name: /^Download / })
      .click();
    const download = await downloadEvent;
    const expectedName = `backup-shop-${listed!.createdAt}.enc.dbvault`;
    await eventually(
      () => page.evaluate(() => (window as unknown as { savedNames?: string[] }).savedNames),
      (value) => expect(value).toEqual([expectedName]),
    );
    expect(download.suggestedFilename()).toBe(expectedName.replaceAll(":", "_"));
    expect(Buffer.compare(readFileSync((await download.path())!), first)).toBe(0);
    await page.getByText("Download complete (0.29 MB)").waitFor();

    // A scheduled backup arrives too, then is deleted after a confirmation (cancel first).
    const [shop] = await env.server.ctx.db
      .select()
      .from(databases)
      .where(and(eq(databases.organizationId, user.id), eq(databases.name, "shop")));
    await startBackup(env.server.ctx, shop!, "auto");
    const scheduled = await agent.waitFor("backup");
    await runBackup(scheduled.backupId, randomBytes(2048));
    await page.reload();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="backup-row"]').length === 2);
    const newest = backupRows(page).first();
    await newest.getByText("Completed").waitFor();
    await newest.getByRole("button", { name: /^Delete / }).click();
    const confirm = page.getByRole("dialog", { name: "Delete backup" });
    await confirm.getByText("Are you sure you want to delete this backup?").waitFor();
    await env.screenshot(page, "dashboard-delete-confirm");
    await confirm.getByRole("button", { name: "Cancel" }).click();
    await eventually(
      () => backupRows(page).count(),
      (value) => expect(value).toBe(2),
    );
    await newest.getByRole("button", { name: /^Delete / }).click();
    await page.getByRole("dialog", { name: "Delete backup" }).getByRole("button", { name: "Delete" }).click();
    await page.getByText("Backup deleted successfully").waitFor();
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="backup-row"]').length === 1);
    await eventually(
      () => page.locator(`[data-backup-id="${scheduled.backupId}"]`).count(),
      (value) => expect(value).toBe(0),
    );

    // The restore wizard as a copy of two collections into a new database: it replaces nothing,
    // so one step to choose and one to confirm, nothing to type.
    await backupRows(page)
      .first()
      .getByRole("button", { name: /^Restore / })
      .click();
    const wizard = page.getByTestId("restore-dialog");
    await page.getByRole("heading", { name: "Restore database: step 1 of 2" }).waitFor();
    // Safe by default: a copy, which changes nothing of the original.
    expect(await wizard.getByLabel(/Restore as a copy/).isChecked()).toBe(true);
    const target = wizard.getByLabel("Target database");
    // The name typed is set in the monospace font, its label in the text font.
    expect(await target.evaluate((input) => getComputedStyle(input).fontFamily)).toContain("Mono");
    expect(await wizard.getByText("Target database", { exact: true }).evaluate((label) => getComputedStyle(label).fontFamily)).not.toContain("Mono");
    expect(await target.inputValue()).toMatch(/^shop_restored_\d{4}-\d{2}-\d{2}$/);
    await target.fill("shop.bad");
    await wizard.getByText('A database name cannot contain / \\ . " $ * < > : | ? or spaces').waitFor();
    await eventually(
      () => page.getByRole("button", { name: "Next" }).isDisabled(),
      (value) => expect(value).toBe(true),
    );
    await target.fill("shop_copy");
    await wizard.getByLabel("Only these collections (optional)").fill("orders, customers");
    await env.screenshot(page, "restore-step-where");
    // The chosen option's description reads at 4.5:1 at least on its tinted background.
    expect(await findLowContrast(wizard.locator("label").filter({ has: page.locator("input:checked") }))).toEqual([]);
    await page.getByRole("button", { name: "Next" }).click();
    await wizard.getByText("shop is not changed").waitFor();
    await wizard
      .getByText(/If shop_copy already exists, the collections orders, customers are replaced there; its other collections are left as they are/)
      .waitFor();
    expect(await wizard.getByText("This restore cannot be reversed").count()).toBe(0);
    await page.getByRole("heading", { name: "Restore database: step 2 of 2" }).waitFor();
    expect(await wizard.getByRole("textbox").count()).toBe(0);
    await page.getByRole("button", { name: "Restore as a copy" }).click();
    const copy = await agent.waitFor("restore");
    expect(copy).toMatchObject({ backupId: command.backupId, databaseName: "shop", targetDatabase: "shop_copy", collections: ["orders", "customers"] });
    await page.getByRole("tab", { name: "Restore History", selected: true }).waitFor();
    await page.getByTestId("restore-row").first().getByText("as a copy in shop_copy").waitFor();
    agent.send({ type: "restore.failed", restoreId: copy.restoreId, error: 'the backup has no collection "customers"; nothing was changed' });
    await page.getByTestId("restore-row").first().getByText("Failed", { exact: true }).waitFor();
    await page.getByRole("tab", { name: "Backups" }).click();

    // Over the original: the spec's warnings, the exact name, then Restore History.
    await backupRows(page)
      .first()
      .getByRole("button", { name: /^Restore / })
      .click();
    await page.getByRole("heading", { name: "Restore database: step 1 of 2" }).waitFor();
    await wizard.getByLabel(/Replace the original/).check();
    await page.getByRole("button", { name: "Next" }).click();
    await page.getByRole("heading", { name: "Restore database: step 2 of 4" }).waitFor();
    await wizard.getByText("This restore cannot be reversed").waitFor();
    await wizard.getByText(/Collections of shop that are not in the backup are left as they are/).waitFor();
    await env.screenshot(page, "restore-step-1");
    await page.getByRole("button", { name: "I understand, continue" }).click();
    await wizard.getByText("The backup's collections will be dropped and replaced").waitFor();
    await page.getByRole("button", { name: "Continue with restore" }).click();
    const confirmName = page.getByLabel("Type shop to confirm");
    const restoreButton = page.getByRole("button", { name: "Restore database" });
    await eventually(
      () => restoreButton.isDisabled(),
      (value) => expect(value).toBe(true),
    );
    await confirmName.fill("Shop");
    await eventually(
      () => restoreButton.isDisabled(),
      (value) => expect(value).toBe(true),
    );
    await wizard.getByText("Please type 'shop' to confirm").waitFor();
    await confirmName.fill("shop");
    await eventually(
      () => restoreButton.isEnabled(),
      (value) => expect(value).toBe(true),
    );
    await env.screenshot(page, "restore-step-3");
    await restoreButton.click();
    const restore = await agent.waitFor("restore");
    expect(restore.backupId).toBe(command.backupId);
    await page.getByRole("tab", { name: "Restore History", selected: true }).waitFor();
    const historyRow = page.getByTestId("restore-row").first();
    await historyRow.getByText("Starting up...").waitFor();

    agent.send({ type: "restore.started", restoreId: restore.restoreId });
    agent.send({
      type: "restore.progress",
      restoreId: restore.restoreId,
      progress: { current: 1500, total: 3_000_000, percentage: 0.05, collection: "orders" },
    });
    await historyRow.getByText("1.5K / 3M documents").waitFor();
    await historyRow.getByText("Collection: orders").waitFor();
    await historyRow.getByText("Estimating time...").waitFor();
    // A second report a moment later gives the first speed sample, hence an estimate.
    await page.clock.fastForward(1100);
    agent.send({
      type: "restore.progress",
      restoreId: restore.restoreId,
      progress: { current: 4500, total: 3_000_000, percentage: 0.15, collection: "orders" },
    });
    await historyRow.getByText(/About \d+ (hours?|minutes?)( \d+ minutes?)? remaining/).waitFor();
    await env.screenshot(page, "restore-history-progress");

    agent.send({ type: "restore.completed", restoreId: restore.restoreId, stats: { orders: { restored: 3_000_000, failed: 0 } } });
    await historyRow.getByText("Restore completed successfully").waitFor({ timeout: 15_000 });
    await historyRow.getByText("Completed", { exact: true }).waitFor();
    const requested = await historyRow.locator("td").nth(2).innerText();
    expect(requested).toMatch(/^[A-Z][a-z]{2} \d{1,2}, \d{4} \d{1,2}:\d{2} [AP]M$/);
    await env.screenshot(page, "restore-history-completed");
    await context.close();
  }, 90_000);
});
