// Every screen on a 390 px phone, as a visitor, a new user, a user with backups and restores, and
// an admin: no page is wider than the screen, and each screen's main controls can be scrolled
// into view whole (not off the edge, not cut by a scrolling box, not covered). Then the
// phone-only behaviours: tables as cards, the Settings section picker, results before the KB
// filters, the article's Copy button and contents, and the admin's user details in view.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Locator, Page } from "playwright-core";
import { backups, restores } from "@db/schema";
import type { TestUser } from "../server/test/harness";
import { type E2EEnv, startE2E } from "./support/e2e-env";
import { eventually } from "./support/eventually";
import { findOverflow, findUnreachable, overlaps, PHONE } from "./support/phone-checks";
import { signIn } from "./support/sign-in";

let env: E2EEnv;
beforeAll(async () => {
  env = await startE2E();
}, 60_000);
afterAll(async () => {
  await env?.close();
});

/** What went wrong on which screen: all screens are checked, then every problem is reported at once. */
class Findings {
  readonly problems: string[] = [];
  async fits(page: Page, screen: string) {
    const overflow = await findOverflow(page);
    if (overflow) this.problems.push(`${screen}: ${overflow}`);
  }
  async reachable(screen: string, what: string, locator: Locator) {
    const why = await findUnreachable(locator);
    if (why) this.problems.push(`${screen}: "${what}" ${why}`);
  }
}

async function openPhone(user?: TestUser, landing?: string | RegExp) {
  const opened = await env.openPage({ viewport: PHONE });
  if (user) await signIn(opened.page, user, landing);
  // A phone has no pointer resting on the page: the one left where sign-in clicked would hover
  // whatever scrolls under it (a badge's tooltip over a row's buttons).
  await opened.page.mouse.move(0, 0);
  return opened;
}

async function waitForKbList(page: Page) {
  await page.getByTestId("kb-article").first().waitFor();
  await page.waitForFunction(() => !document.querySelector('[aria-label="Loading articles"]'));
}

describe("a 390 px phone", () => {
  test("visitor screens fit and their main action is reachable", async () => {
    const found = new Findings();
    const { context, page } = await openPhone();
    const screens: Array<[string, (page: Page) => Locator, string]> = [
      ["/", (p) => p.getByRole("link", { name: "Start your free trial" }).first(), "Start your free trial"],
      ["/features", (p) => p.getByRole("heading", { level: 1 }), "heading"],
      ["/about", (p) => p.getByRole("heading", { level: 1 }), "heading"],
      ["/contact", (p) => p.getByRole("heading", { level: 1 }), "heading"],
      ["/privacy", (p) => p.getByRole("heading", { level: 1 }), "heading"],
      ["/terms", (p) => p.getByRole("heading", { level: 1 }), "heading"],
      ["/login", (p) => p.getByRole("button", { name: "Sign in" }), "Sign in"],
      ["/register", (p) => p.getByRole("button", { name: "Create account" }), "Create account"],
      ["/forgot-password", (p) => p.getByRole("button", { name: "Send reset link" }), "Send reset link"],
      ["/reset-password/not-a-token", (p) => p.getByRole("heading", { level: 1 }), "heading"],
      ["/no-such-page", (p) => p.getByRole("heading", { level: 1 }), "heading"],
      ["/kb/installing-the-agent", (p) => p.getByRole("button", { name: "Copy code" }), "Copy code"],
    ];
    for (const [path, action, name] of screens) {
      await page.goto(path);
      await found.reachable(path, name, action(page));
      await found.fits(page, path);
    }

    // Landing: the terminal demos break lines between words, never inside one ("product / ion-db").
    await page.goto("/");
    const terminalLines = page.locator("figure [aria-hidden='true'] > div");
    await terminalLines.first().waitFor();
    await page.emulateMedia({ reducedMotion: "reduce" });
    await page.reload();
    await terminalLines.last().waitFor();
    const brokenWords = await page.evaluate(() =>
      [...document.querySelectorAll("figure [aria-hidden='true'] > div")].flatMap((line) => {
        // Each rendered line box of the text: a word cut across two of them is a mid-word break.
        const range = document.createRange();
        const text = line.textContent ?? "";
        const cuts: string[] = [];
        let previousTop: number | null = null;
        const node = [...line.childNodes].find((child) => child.nodeType === Node.TEXT_NODE && (child.textContent ?? "").trim().length > 2) as Text | undefined;
        if (!node) return cuts;
        for (let i = 0; i < node.length; i++) {
          range.setStart(node, i);
          range.setEnd(node, i + 1);
          const top = range.getClientRects()[0]?.top ?? null;
          if (previousTop !== null && top !== null && top > previousTop + 2 && /\S/.test(node.data[i - 1] ?? "") && /\S/.test(node.data[i] ?? ""))
            cuts.push(`${text.slice(Math.max(0, i - 12), i)} / ${text.slice(i, i + 8)}`);
          if (top !== null) previousTop = top;
        }
        return cuts;
      }),
    );
    if (brokenWords.length > 0) found.problems.push(`/: terminal demo breaks words: ${brokenWords.join("; ")}`);
    await page.emulateMedia({ reducedMotion: null });

    // The KB list: the results come before the filters, and a filter's effect is on screen.
    await page.goto("/kb");
    await waitForKbList(page);
    await found.fits(page, "/kb");
    const firstResultTop = await page
      .getByTestId("kb-article")
      .first()
      .evaluate((el) => el.getBoundingClientRect().top + window.scrollY);
    if (firstResultTop > PHONE.height) found.problems.push(`/kb: the first result starts ${Math.round(firstResultTop)} px down, below the first screen`);
    await found.reachable("/kb", "Search", page.getByRole("button", { name: "Search", exact: true }));
    // Choosing a category shows its results on screen (not somewhere above or below).
    const filtersToggle = page.getByRole("button", { name: "Categories and tags" });
    if (await filtersToggle.isVisible()) await filtersToggle.click();
    const category = page.getByRole("complementary", { name: "Filters" }).getByRole("button", { name: /Troubleshooting/ });
    await found.reachable("/kb", "Troubleshooting category", category);
    await category.click();
    await page.waitForURL(/category=troubleshooting/);
    await waitForKbList(page);
    const resultOnScreen = () =>
      page
        .getByTestId("kb-article")
        .first()
        .evaluate((el) => el.getBoundingClientRect().top >= 0 && el.getBoundingClientRect().top < window.innerHeight - 100);
    try {
      await eventually(resultOnScreen, (onScreen) => expect(onScreen).toBe(true), 3_000);
    } catch {
      found.problems.push("/kb: choosing a category shows no result on screen");
    }
    await env.screenshot(page, "phone-kb-filtered");

    // The article: Copy does not cover the command, and the contents can be reached.
    await page.goto("/kb/installing-the-agent");
    const codeBlock = page.locator(".prose pre").first();
    await codeBlock.waitFor();
    const copy = page.getByRole("button", { name: "Copy code" }).first();
    await codeBlock.scrollIntoViewIfNeeded();
    if (await overlaps(copy, codeBlock.locator("code"))) found.problems.push("/kb/installing-the-agent: the Copy button covers the code");
    // The contents fold under the article's header on a phone: open them, then jump.
    const contentsToggle = page.locator("summary", { hasText: "On this page" });
    await found.reachable("/kb/installing-the-agent", "On this page", contentsToggle);
    if (await contentsToggle.isVisible()) await contentsToggle.click();
    const contentsLink = page.getByRole("navigation", { name: "On this page" }).getByRole("link", { name: "Run the setup" });
    await found.reachable("/kb/installing-the-agent", "On this page: Run the setup", contentsLink);
    if (!(await findUnreachable(contentsLink))) {
      await contentsLink.click();
      await eventually(
        () => page.getByRole("heading", { name: "Run the setup" }).evaluate((el) => Math.round(el.getBoundingClientRect().top)),
        (top) => expect(top).toBeLessThan(200),
      );
    }
    await env.screenshot(page, "phone-kb-article");

    await context.close();
    expect(found.problems).toEqual([]);
  }, 120_000);

  test("a new user's screens fit, with the first-backup checklist", async () => {
    const found = new Findings();
    const user = await env.server.registerUser({ name: "Phone Newcomer" });
    const { context, page } = await openPhone(user);

    await page.getByTestId("onboarding-checklist").waitFor();
    await page.getByTestId("backup-service-state").getByText("Connected").waitFor();
    await found.fits(page, "/dashboard (new user)");
    await found.reachable("/dashboard (new user)", "Trigger Backup", page.getByRole("button", { name: "Trigger Backup" }));
    await found.reachable("/dashboard (new user)", "Copy install command", page.getByRole("button", { name: /^Copy command: / }));
    await found.reachable("/dashboard (new user)", "Set Up Agent", page.getByRole("link", { name: "Set Up Agent" }));
    await found.reachable("/dashboard (new user)", "Check", page.getByRole("button", { name: "Check", exact: true }));
    await page.getByRole("button", { name: "Check", exact: true }).click();
    await page.getByTestId("toasts").getByText("Backup service is online and functioning properly").waitFor();
    await found.reachable("/dashboard (new user)", "toast", page.getByTestId("toasts").getByText("Backup service is online and functioning properly"));
    await found.fits(page, "/dashboard (new user, toast)");
    await env.screenshot(page, "phone-dashboard-new-user");

    // Settings: every section can be chosen, and each one's save action reached.
    await page.goto("/settings");
    const sections = page.getByLabel("Settings sections");
    await sections.first().waitFor();
    for (const [section, action] of [
      ["General", page.getByRole("button", { name: "Save Changes" })],
      ["Agents", page.getByRole("button", { name: "Setup New Agent" })],
      ["Databases", page.getByRole("heading", { level: 1 })],
      ["Security", page.getByRole("button", { name: "Regenerate API Key" })],
      ["Notifications", page.getByRole("button", { name: "Save All Changes" })],
    ] as const) {
      const problem = await chooseSettingsSection(page, section);
      if (problem) found.problems.push(`/settings: ${problem}`);
      await found.reachable(`/settings ${section}`, section, action);
      await found.fits(page, `/settings ${section}`);
    }
    await page.getByRole("button", { name: "Save All Changes" }).click();
    await page.getByRole("button", { name: "Saved!" }).waitFor();
    await env.screenshot(page, "phone-settings-notifications");

    await page.goto("/profile");
    await page.getByRole("heading", { level: 1 }).waitFor();
    await found.reachable("/profile", "Save Changes", page.getByRole("button", { name: "Save Changes" }));
    await found.fits(page, "/profile");

    await page.goto("/audit-logs");
    await page.getByRole("heading", { level: 1 }).waitFor();
    const firstEntry = page.locator("table tbody tr").first();
    await firstEntry.waitFor();
    await found.fits(page, "/audit-logs");
    await found.reachable("/audit-logs", "first entry", firstEntry);

    await context.close();
    expect(found.problems).toEqual([]);
  }, 120_000);

  test("a user with backups and restores reaches every row's actions", async () => {
    const found = new Findings();
    const user = await env.server.registerUser({ name: "Phone Owner" });
    const db = env.server.ctx.db;
    const inserted = await db
      .insert(backups)
      .values(
        [0, 1, 2].map((i) => ({
          organizationId: user.id,
          databaseName: `production-orders-${i}`,
          status: "completed" as const,
          size: (i + 1) * 1024 * 1024,
          createdAt: new Date(Date.now() - (i + 1) * 3_600_000),
          completedAt: new Date(Date.now() - (i + 1) * 3_600_000 + 60_000),
        })),
      )
      .returning({ id: backups.id });
    await db.insert(restores).values({
      organizationId: user.id,
      backupId: inserted[0]!.id,
      databaseName: "production-orders-0",
      targetDatabase: "production-orders-0-copy",
      status: "completed",
      completedAt: new Date(),
    });
    const { context, page } = await openPhone(user);

    const rows = page.getByTestId("backup-row");
    await rows.first().waitFor();
    await found.fits(page, "/dashboard (backups)");
    for (const action of ["Download", "Restore", "Verify", "Delete"])
      await found.reachable("/dashboard (backups)", `${action} of the last row`, rows.last().getByRole("button", { name: new RegExp(`^${action} `) }));
    await env.screenshot(page, "phone-dashboard-backups");

    await rows
      .last()
      .getByRole("button", { name: /^Delete / })
      .click();
    const confirm = page.getByRole("dialog");
    await found.reachable("/dashboard (backups)", "Delete confirmation", confirm.getByRole("button", { name: "Delete" }));
    await confirm.getByRole("button", { name: "Cancel" }).click();

    await page.getByRole("tab", { name: "Restore History" }).click();
    const restoreRow = page.getByTestId("restore-row").first();
    await restoreRow.waitFor();
    await found.fits(page, "/dashboard (restore history)");
    await found.reachable("/dashboard (restore history)", "Details", restoreRow.getByText("Completed successfully").or(restoreRow.locator("td").last()));
    await env.screenshot(page, "phone-restore-history");

    await context.close();
    expect(found.problems).toEqual([]);
  }, 120_000);

  test("an admin's screens fit; tapping a user shows the details; deleting an article asks in view", async () => {
    const found = new Findings();
    const admin = await env.server.registerAdmin();
    for (let i = 0; i < 12; i++) await env.server.registerUser({ name: `Listed User ${i}` });
    const { context, page } = await openPhone(admin);

    await page.goto("/admin");
    const userRows = page.getByTestId("admin-user-row");
    await userRows.first().waitFor();
    await found.fits(page, "/admin");
    // Roles are written one way everywhere, "Admin" and "User", also in a phone's cards.
    expect(await userRows.filter({ hasText: "Admin User" }).first().locator('[data-label="Role"]').textContent()).toBe("Admin");
    expect(await userRows.filter({ hasText: "Listed User 0" }).first().locator('[data-label="Role"]').textContent()).toBe("User");
    const lastRow = userRows.filter({ hasText: "Listed User 0" });
    await lastRow.getByRole("button", { name: "Listed User 0" }).click();
    const details = page.getByRole("region", { name: "User Details" });
    await eventually(
      () => details.getByLabel("Name").inputValue(),
      (value) => expect(value).toBe("Listed User 0"),
    );
    // The details appear where the user looks, without scrolling by hand.
    const detailsOnScreen = () => details.evaluate((el) => el.getBoundingClientRect().top < window.innerHeight * 0.5 && el.getBoundingClientRect().bottom > 0);
    try {
      await eventually(detailsOnScreen, (onScreen) => expect(onScreen).toBe(true), 3_000);
    } catch {
      found.problems.push("/admin: tapping a user shows no details on screen");
    }
    await found.reachable("/admin", "Ban", details.getByRole("button", { name: "Ban" }));
    await found.fits(page, "/admin (details)");
    await env.screenshot(page, "phone-admin-details");

    await page.goto("/admin/kb");
    const articleRows = page.getByTestId("admin-article-row");
    await articleRows.first().waitFor();
    await found.fits(page, "/admin/kb");
    await found.reachable("/admin/kb", "New Article", page.getByRole("link", { name: /New Article/ }));
    await found.reachable("/admin/kb", "Edit of the first article", articleRows.first().getByRole("link", { name: /^Edit / }));
    await articleRows
      .first()
      .getByRole("button", { name: /^Delete / })
      .click();
    const confirm = page.getByRole("dialog");
    await found.reachable("/admin/kb", "Delete confirmation", confirm.getByRole("button", { name: "Delete" }));
    await found.reachable("/admin/kb", "Cancel", confirm.getByRole("button", { name: "Cancel" }));
    await env.screenshot(page, "phone-admin-kb-delete");
    await confirm.getByRole("button", { name: "Cancel" }).click();

    await page.goto("/admin/kb/new");
    await found.reachable("/admin/kb/new", "Save", page.getByRole("button", { name: "Save" }));
    await found.fits(page, "/admin/kb/new");

    // The plan pickers' screen-reader labels stay inside the table's own scroll box, however wide
    // a long name makes the table.
    await env.server.registerUser({ name: "Hubertus Wolfeschlegelsteinhausenbergerdorff" });
    await page.goto("/admin/organizations");
    await page.getByRole("heading", { name: "Organizations", level: 1 }).waitFor();
    await page.getByRole("combobox").first().waitFor();
    await found.fits(page, "/admin/organizations");

    await context.close();
    expect(found.problems).toEqual([]);
  }, 120_000);
});

/** Opens a Settings section the way a phone offers it (a picker, or a tab when all tabs show); says why it could not be seen. */
async function chooseSettingsSection(page: Page, section: string): Promise<string | null> {
  const picker = page.getByRole("combobox", { name: "Settings sections" });
  let problem: string | null = null;
  if (await picker.isVisible()) await picker.selectOption({ label: section });
  else {
    const tab = page.getByRole("tab", { name: section });
    const why = await findUnreachable(tab);
    if (why) problem = `the ${section} tab ${why}`;
    await tab.click({ force: true });
  }
  await page.getByRole("tabpanel").waitFor();
  return problem;
}
