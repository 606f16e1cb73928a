// Keep forever and labels on the dashboard's backup rows in Chromium, at 1280 px and on a 390 px
// phone: an owner labels a backup and keeps it (the row shows both, Delete is disabled, the
// server holds it), an invalid label answers the server's message inline, and a Viewer of a team
// sees the label and the badge but no switch and no editor.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { backupProtections, backups } from "@db/schema";
import { ORGANIZATION_STORAGE_KEY } from "../web/src/config/constants";
import { createTeam } from "../server/test/teams";
import { type E2EEnv, startE2E } from "./support/e2e-env";
import { eventually } from "./support/eventually";
import { findOverflow, findUnreachable, PHONE } from "./support/phone-checks";
import { signIn } from "./support/sign-in";

let env: E2EEnv;
beforeAll(async () => {
  env = await startE2E();
}, 120_000);
afterAll(async () => {
  await env?.close();
});

async function completedBackup(organizationId: string) {
  const at = new Date(Date.now() - 3_600_000);
  const [row] = await env.server.ctx.db
    .insert(backups)
    .values({ organizationId, databaseName: "orders", status: "completed", size: 4096, createdAt: at, completedAt: at })
    .returning();
  return row!;
}

const rowOf = async (id: string) => (await env.server.ctx.db.select().from(backups).where(eq(backups.id, id)))[0]!;

describe("keep forever and labels", () => {
  for (const [name, viewport] of [
    ["1280 px", { width: 1280, height: 900 }],
    ["390 px", PHONE],
  ] as const) {
    test(`an owner labels and keeps a backup; a Viewer sees them without controls, at ${name}`, async () => {
      const owner = await env.server.registerUser({ name: `Keeper ${name}` });
      const viewer = await env.server.registerUser({ name: `Viewer ${name}` });
      const team = await createTeam(env.server, `Keep team ${name}`, [
        { user: owner, role: "owner" },
        { user: viewer, role: "viewer" },
      ]);
      const backup = await completedBackup(team.id);

      const { context, page } = await env.openPage({ viewport });
      await context.addInitScript(
        ([key, value]) => window.localStorage.setItem(key!, value!),
        [ORGANIZATION_STORAGE_KEY, JSON.stringify({ userId: owner.id, organizationId: team.id })],
      );
      await signIn(page, owner);
      const row = page.locator(`[data-backup-id="${backup.id}"]`);
      await row.waitFor();

      await row.getByRole("button", { name: /^Add a label to orders backup of / }).click();
      const editor = row.getByTestId("backup-label-editor");
      await editor.getByLabel("Label").fill("before migration 42");
      expect(await findUnreachable(editor.getByRole("button", { name: "Save label" }))).toBeNull();
      await editor.getByRole("button", { name: "Save label" }).click();
      await row.getByTestId("backup-label").getByText("before migration 42").waitFor();
      expect((await rowOf(backup.id)).label).toBe("before migration 42");

      const keep = row.getByRole("switch", { name: /^Keep forever: orders backup of / });
      expect(await findUnreachable(keep)).toBeNull();
      await keep.click();
      await row.getByTestId("backup-kept").getByText("Kept forever").waitFor();
      await eventually(
        () => keep.getAttribute("aria-checked"),
        (value) => expect(value).toBe("true"),
      );
      expect((await rowOf(backup.id)).kept).toBe(true);
      expect(await row.getByRole("button", { name: /^Delete / }).isDisabled()).toBe(true);
      expect(await findOverflow(page)).toBeNull();
      await env.screenshot(page, `backup-keep-label-${viewport.width}`);
      await context.close();

      const viewerPage = await env.openPage({ viewport });
      await viewerPage.context.addInitScript(
        ([key, value]) => window.localStorage.setItem(key!, value!),
        [ORGANIZATION_STORAGE_KEY, JSON.stringify({ userId: viewer.id, organizationId: team.id })],
      );
      await signIn(viewerPage.page, viewer);
      const viewerRow = viewerPage.page.locator(`[data-backup-id="${backup.id}"]`);
      await viewerRow.getByTestId("backup-label").getByText("before migration 42").waitFor();
      await viewerRow.getByTestId("backup-kept").waitFor();
      expect(await viewerRow.getByRole("switch").count()).toBe(0);
      expect(await viewerRow.getByRole("button", { name: /label/ }).count()).toBe(0);
      expect(await findOverflow(viewerPage.page)).toBeNull();
      await viewerPage.context.close();
    }, 90_000);
  }

  test("the server's refusal shows inline: un-keeping while Protect backups is on", async () => {
    const owner = await env.server.registerUser({ name: "Protected Keeper" });
    const backup = await completedBackup(owner.id);
    await env.server.ctx.db.update(backups).set({ kept: true, keptAt: new Date(), keptBy: owner.name }).where(eq(backups.id, backup.id));
    // Protect backups on, as its service records it (turning it on needs two-factor sign-in, which e2e/backup-protection.test.ts covers).
    await env.server.ctx.db.insert(backupProtections).values({ organizationId: owner.id, enabledAt: new Date() });

    const { context, page } = await env.openPage();
    await signIn(page, owner);
    const row = page.locator(`[data-backup-id="${backup.id}"]`);
    await row.getByRole("switch", { name: /^Keep forever: / }).click();
    await row
      .getByRole("alert")
      .getByText(/^Protect backups is on for this account: a backup kept forever cannot be un-kept/)
      .waitFor();
    expect((await rowOf(backup.id)).kept).toBe(true);
    await context.close();
  }, 60_000);
});
