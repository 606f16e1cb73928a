// The web app while the server goes away and comes back (a crash, a restart, a redeploy): the
// user is told what happened, never left on a blank window, and what the page shows catches up
// by itself once the server answers again. The server is really stopped (`server.restart`: HTTP
// and sockets cut, a new process on the same port and database); nothing is mocked.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { and, eq } from "drizzle-orm";
import type { Page } from "playwright-core";
import { backups, databases, restores } from "@db/schema";
import { startBackup } from "../server/src/modules/backups/service";
import type { TestUser } from "../server/test/harness";
import { registerScriptedAgent } from "../server/test/scripted-agent";
import { type E2EEnv, startE2E } from "./support/e2e-env";
import { signIn as signInAs } from "./support/sign-in";

let env: E2EEnv;
beforeAll(async () => {
  env = await startE2E();
}, 60_000);
afterAll(async () => {
  await env?.close();
});

/** What any form or action says when its request never reached the server. */
const CONNECTION_LOST = "Could not reach DBVault. Check your connection and try again.";

async function signIn(page: Page, user: TestUser) {
  await signInAs(page, user);
  await page.getByRole("heading", { name: "Dashboard", level: 1 }).waitFor();
}

describe("while the server is away", () => {
  test("a page whose code cannot be fetched says so, and opens with 'Try again' once the server is back", async () => {
    const user = await env.server.registerUser();
    const { context, page } = await env.openPage();
    await signIn(page, user);

    await env.server.restart({
      beforeStart: async () => {
        // The Audit Logs page's code has not been loaded yet in this tab.
        await page.getByRole("link", { name: "Audit Logs" }).first().click();
        await page.getByRole("heading", { name: "This page could not be loaded" }).waitFor();
        await page.getByText("DBVault could not be reached. Check your connection, then try again.").waitFor();
        // The rest of the app stays usable: the navigation bar is still there.
        await page.getByRole("link", { name: "Dashboard" }).first().waitFor();
        await env.screenshot(page, "connection-loss-page-not-loaded");
      },
    });

    await page.getByRole("button", { name: "Try again" }).click();
    await page.getByRole("heading", { name: "Audit Logs", level: 1 }).waitFor();
    await context.close();
  });

  test("the dashboard's live view reconnects and shows a backup and a restore that finished while it was away", async () => {
    const user = await env.server.registerUser();
    const agent = await registerScriptedAgent(env.baseUrl, user.apiKey, ["shop"], "away-agent");
    await agent.connect();
    // A completed backup to restore from, then a restore of it and a second backup, both running.
    const created = await env.server.call("POST", "/api/backups", { token: user.token, body: { databaseName: "shop" } });
    expect(created.status).toBe(201);
    const first = await agent.waitFor("backup");
    expect((await agent.upload(first.backupId, randomBytes(4096))).status).toBe(200);
    const restoreAsked = await env.server.call("POST", `/api/backups/${first.backupId}/restore`, { token: user.token, body: { databaseName: "shop" } });
    expect(restoreAsked.status).toBeLessThan(300);
    const restore = await agent.waitFor("restore");
    const [shop] = await env.server.ctx.db
      .select()
      .from(databases)
      .where(and(eq(databases.organizationId, user.id), eq(databases.name, "shop")));
    await startBackup(env.server.ctx, shop!, "auto");
    const second = await agent.waitFor("backup");

    const { context, page } = await env.openPage();
    await signIn(page, user);
    // Live progress of both reaches the page over its realtime channel.
    agent.send({ type: "backup.progress", backupId: second.backupId, progress: { current: 10, total: 100, percentage: 10, collection: "orders" } });
    const backupRow = page.locator(`[data-backup-id="${second.backupId}"]`);
    await backupRow.getByText("10 / 100 documents", { exact: false }).waitFor();
    await page.getByRole("tab", { name: "Restore History" }).click();
    agent.send({ type: "restore.started", restoreId: restore.restoreId });
    agent.send({ type: "restore.progress", restoreId: restore.restoreId, progress: { current: 20, total: 100, percentage: 20, collection: "orders" } });
    const restoreRow = page.getByTestId("restore-row").first();
    await restoreRow.getByText("20 / 100 documents").waitFor();

    // The server goes away; meanwhile both finish (as another instance would record them), and
    // no event about it can reach this page.
    await env.server.restart({
      beforeStart: async () => {
        const now = new Date();
        await env.server.ctx.db
          .update(backups)
          .set({ status: "completed", size: 8192, progress: null, completedAt: now })
          .where(eq(backups.id, second.backupId));
        await env.server.ctx.db.update(restores).set({ status: "completed", progress: null, completedAt: now }).where(eq(restores.id, restore.restoreId));
      },
    });

    // Without a reload, the page catches up once its channel is back.
    await restoreRow.getByText("Restore completed successfully").waitFor({ timeout: 20_000 });
    await restoreRow.getByText("Completed", { exact: true }).waitFor();
    await page.getByRole("tab", { name: "Backups" }).click();
    await backupRow.getByText("Completed", { exact: true }).waitFor({ timeout: 20_000 });
    await backupRow.getByText("8 KB").waitFor();
    await context.close();
  }, 90_000);

  test("the restore wizard submitted while the server is away says it could not be reached, and one restore starts once it is back", async () => {
    const user = await env.server.registerUser();
    const agent = await registerScriptedAgent(env.baseUrl, user.apiKey, ["shop"], "wizard-agent");
    await agent.connect();
    expect((await env.server.call("POST", "/api/backups", { token: user.token, body: { databaseName: "shop" } })).status).toBe(201);
    const backup = await agent.waitFor("backup");
    expect((await agent.upload(backup.backupId, randomBytes(2048))).status).toBe(200);

    const { context, page } = await env.openPage();
    await signIn(page, user);
    await page
      .locator(`[data-backup-id="${backup.backupId}"]`)
      .getByRole("button", { name: /^Restore / })
      .click();
    await page.getByLabel(/Replace the original/).check();
    await page.getByRole("button", { name: "Next" }).click();
    await page.getByRole("button", { name: "I understand, continue" }).click();
    await page.getByRole("button", { name: "Continue with restore" }).click();
    await page.getByLabel("Type shop to confirm").fill("shop");
    const wizard = page.getByTestId("restore-dialog");

    await env.server.restart({
      beforeStart: async () => {
        await page.getByRole("button", { name: "Restore database" }).click();
        await wizard.getByRole("alert").getByText(CONNECTION_LOST).waitFor();
        expect(await wizard.innerText()).not.toContain("Failed to fetch");
        await env.screenshot(page, "connection-loss-restore-wizard");
      },
    });

    // The agent's socket was cut too; it connects again as the real one does.
    await agent.connect();
    // Still on the last step with the name typed: trying again starts the restore, once.
    await page.getByRole("button", { name: "Restore database" }).click();
    await page.getByRole("tab", { name: "Restore History", selected: true }).waitFor();
    const [restore, ...more] = await env.server.ctx.db.select().from(restores).where(eq(restores.organizationId, user.id));
    expect(restore?.backupId).toBe(backup.backupId);
    expect(more).toEqual([]);
    await context.close();
  });

  test("signing in while the server is away says it could not be reached", async () => {
    const user = await env.server.registerUser();
    const { context, page } = await env.openPage();
    await page.goto("/login");
    await page.getByLabel("Email address").fill(user.email);
    await page.getByLabel("Password", { exact: true }).fill(user.password);
    await env.server.restart({
      beforeStart: async () => {
        await page.getByRole("button", { name: "Sign in" }).click();
        await page.getByRole("alert").getByText(CONNECTION_LOST).waitFor();
      },
    });
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL("**/dashboard");
    await context.close();
  });
});
