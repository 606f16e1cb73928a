// Finding backups and exporting the audit log (issue 44), in Chromium at 1280 and 390 px: the
// backups tab's filters and paging write the URL (a filtered view is a link), ?backup=ID opens a
// backup's details for a member and a clear "not found" for anyone else, and the audit log's
// Export CSV saves the file the server wrote, under the chosen filter.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { backups } from "@db/schema";
import { recordAudit } from "../server/src/modules/audit/service";
import { type E2EEnv, startE2E } from "./support/e2e-env";
import { eventually } from "./support/eventually";
import { findOverflow, PHONE } from "./support/phone-checks";
import { signIn } from "./support/sign-in";

let env: E2EEnv;
beforeAll(async () => {
  env = await startE2E();
}, 60_000);
afterAll(async () => {
  await env?.close();
});

const hour = 3600_000;
const start = Date.UTC(2026, 10, 1, 12);

describe("find backups, deep link, audit export", () => {
  for (const [label, viewport] of [
    ["1280 px", { width: 1280, height: 900 }],
    ["390 px", PHONE],
  ] as const) {
    test(`at ${label}`, async () => {
      const user = await env.server.registerUser({ name: `Finder ${label}` });
      const stranger = await env.server.registerUser({ name: `Stranger ${label}` });
      // 105 backups of "logs" an hour apart, then three of "shop": 108, more than a page of 100.
      const [verified] = await env.server.ctx.db
        .insert(backups)
        .values([
          {
            organizationId: user.id,
            databaseName: "shop",
            status: "completed",
            size: 2048,
            createdAt: new Date(start + 200 * hour),
            completedAt: new Date(start + 200 * hour + 60_000),
            verifiedAt: new Date(start + 201 * hour),
            verification: { status: "ok", namespaces: {} },
          },
          ...Array.from({ length: 105 }, (_, i) => ({
            organizationId: user.id,
            databaseName: "logs",
            status: "completed" as const,
            size: 1024,
            createdAt: new Date(start + i * hour),
            completedAt: new Date(start + i * hour + 1000),
          })),
          { organizationId: user.id, databaseName: "shop", status: "completed", size: 2048, createdAt: new Date(start + 198 * hour) },
          { organizationId: user.id, databaseName: "shop", status: "failed", size: 0, createdAt: new Date(start + 199 * hour), error: "agent offline" },
        ])
        .returning();
      await recordAudit(env.server.ctx.db, user.id, "SETTINGS_UPDATED", { note: 'a "quoted", comma\nand a line' });

      const { context, page } = await env.openPage({ viewport });
      await signIn(page, user);
      const rows = page.getByTestId("backup-row");
      await eventually(
        () => rows.count(),
        (count) => expect(count).toBe(100),
      );
      const next = page.getByRole("navigation", { name: "Backup pages" }).getByRole("button", { name: "Next" });
      await next.click();
      await page.waitForURL("**/dashboard?page=2");
      await eventually(
        () => rows.count(),
        (count) => expect(count).toBe(8),
      );
      expect(await next.isDisabled()).toBe(true);

      // A filter goes back to page 1 and writes the URL.
      await page.getByLabel("Status").selectOption("failed");
      await page.waitForURL("**/dashboard?status=failed");
      await eventually(
        () => rows.allInnerTexts(),
        (texts) => expect(texts.length === 1 && texts[0]!.includes("shop") && texts[0]!.includes("Failed")).toBe(true),
      );

      // The filtered view is a link: opened fresh, it shows the same.
      await page.goto("/dashboard?q=sho&verified=true");
      await eventually(
        () => rows.count(),
        (count) => expect(count).toBe(1),
      );
      expect(await page.getByLabel("Name contains").inputValue()).toBe("sho");
      expect(await page.getByLabel("Verified").inputValue()).toBe("true");
      if (viewport.width < 400) expect(await findOverflow(page)).toBeNull();
      await env.screenshot(page, `find-backups-${viewport.width}`);

      // The deep link to one backup: its details, and the URL says which.
      await rows.first().getByTestId("backup-details-link").click();
      await page.waitForURL(`**/dashboard?q=sho&verified=true&backup=${verified!.id}`);
      const details = page.getByRole("dialog", { name: "Backup details" });
      await details.getByTestId("backup-details").getByText(verified!.id).waitFor();
      expect(await details.getByText("shop", { exact: true }).count()).toBe(1);
      if (viewport.width < 400) expect(await findOverflow(page)).toBeNull();
      await env.screenshot(page, `backup-details-${viewport.width}`);
      await details.getByRole("button", { name: "Close" }).click();
      await page.waitForURL("**/dashboard?q=sho&verified=true");

      // Export CSV: the server's file, quoted, saved under its name.
      await page.goto("/audit-logs");
      await page.getByRole("heading", { name: "Audit Logs" }).waitFor();
      const downloadEvent = page.waitForEvent("download");
      await page.getByRole("button", { name: "Export CSV" }).click();
      const download = await downloadEvent;
      expect(download.suggestedFilename()).toMatch(/^audit-log-\d{4}-\d{2}-\d{2}\.csv$/);
      const csv = readFileSync((await download.path())!, "utf8");
      expect(csv.split("\r\n")[0]).toBe("id,timestamp,action,actor_name,actor_email,actor_role,details");
      expect(csv).toContain('"{""note"":""a \\""quoted\\"", comma\\nand a line""}"');
      if (viewport.width < 400) expect(await findOverflow(page)).toBeNull();
      await context.close();

      // Another account opening the link: not found, nothing of the backup shown.
      const other = await env.openPage({ viewport });
      await signIn(other.page, stranger);
      await other.page.goto(`/dashboard?backup=${verified!.id}`);
      const notFound = other.page.getByRole("dialog", { name: "Backup not found" });
      await notFound.getByText(/belongs to an organization you are not a member of/).waitFor();
      expect(await notFound.getByText(verified!.id).count()).toBe(0);
      await env.screenshot(other.page, `backup-not-found-${viewport.width}`);
      await other.context.close();
    }, 120_000);
  }
});
