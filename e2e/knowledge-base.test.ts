// Knowledge base: the public list (search, filters, pagination), the reader (TOC, code copy),
// and an admin writing, publishing, unpublishing and deleting an article that a visitor reads.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { loadSeedArticles } from "../server/src/modules/kb/seed";
import { type E2EEnv, startE2E } from "./support/e2e-env";
import { eventually } from "./support/eventually";
import { findLowContrast } from "./support/contrast";
import { toasts } from "./support/toasts";

let env: E2EEnv;
const seededArticles = loadSeedArticles().length;
beforeAll(async () => {
  env = await startE2E();
}, 60_000);
afterAll(async () => {
  await env?.close();
});

const articles = (page: Page) => page.getByTestId("kb-article");

async function waitForList(page: Page) {
  await page.waitForFunction(() => !document.querySelector('[aria-label="Loading articles"]'));
}

describe("knowledge base for visitors", () => {
  test("list: quick cards, sidebar counts, search, chips, clear all, pagination, empty state", async () => {
    const { context, page, foreignRequests } = await env.openPage();
    await page.goto("/kb");
    await page.getByRole("heading", { name: "Knowledge Base", level: 1 }).waitFor();
    await eventually(
      () => page.title(),
      (value) => expect(value).toBe("DBVault - Knowledge Base"),
    );
    await articles(page).first().waitFor();
    // The sidebar's counts read at 4.5:1 at least (the tags' were 2.6:1).
    await page.getByRole("complementary", { name: "Filters" }).getByRole("button").first().waitFor();
    expect(await findLowContrast(page.getByRole("complementary", { name: "Filters" }))).toEqual([]);
    // "FAQ", not "Faq".
    await page.getByRole("complementary", { name: "Filters" }).getByText("FAQ", { exact: true }).waitFor();
    for (const card of ["Getting Started", "Troubleshooting", "Security Guide"])
      await page
        .getByRole("button", { name: new RegExp(card) })
        .first()
        .waitFor();
    await eventually(
      () => page.getByRole("link", { name: /Contact Support/ }).getAttribute("href"),
      (value) => expect(value).toBe("/contact"),
    );
    await page.getByRole("heading", { name: "Categories" }).waitFor();
    await page.getByRole("heading", { name: "Popular Tags" }).waitFor();
    const sidebar = page.getByRole("complementary", { name: "Filters" });
    await eventually(
      () => sidebar.getByRole("button", { name: /Setup/ }).innerText(),
      (value) => expect(value).toMatch(/Setup\s*\d+/),
    );
    await env.screenshot(page, "kb-list");

    // The seeded articles, 9 a page: Next, then the last page, then back to the first.
    const lastPage = Math.ceil(seededArticles / 9);
    expect(lastPage).toBeGreaterThanOrEqual(2);
    const pagination = page.getByRole("navigation", { name: "Pagination" });
    await eventually(
      () => pagination.getByRole("button", { name: "Previous" }).isDisabled(),
      (value) => expect(value).toBe(true),
    );
    await pagination.getByRole("button", { name: "Next" }).click();
    await page.waitForURL("**/kb?page=2");
    await waitForList(page);
    await eventually(
      () => pagination.getByRole("button", { name: "Page 2" }).getAttribute("aria-current"),
      (value) => expect(value).toBe("page"),
    );
    if (lastPage > 2) {
      await pagination.getByRole("button", { name: `Page ${lastPage}` }).click();
      await page.waitForURL(`**/kb?page=${lastPage}`);
      await waitForList(page);
    }
    await eventually(
      () => pagination.getByRole("button", { name: "Next" }).isDisabled(),
      (value) => expect(value).toBe(true),
    );
    await pagination.getByRole("button", { name: "Page 1" }).click();
    await page.waitForURL(/\/kb$/);

    await page.getByLabel("Search articles").fill("systemd");
    await page.getByRole("button", { name: "Search" }).click();
    await page.waitForURL("**/kb?search=systemd");
    await waitForList(page);
    await eventually(
      () => articles(page).first().innerText(),
      (value) => expect(value).toContain("systemd"),
    );
    await page.getByText("Search: systemd").waitFor();

    await page
      .getByRole("button", { name: /Troubleshooting/ })
      .first()
      .click();
    await page.waitForURL(/category=troubleshooting/);
    await page.getByText("Category: Troubleshooting").waitFor();
    await page.getByRole("button", { name: "Remove filter Search: systemd" }).click();
    await page.waitForURL("**/kb?category=troubleshooting");
    await waitForList(page);
    const count = await articles(page).count();
    expect(count).toBeGreaterThan(0);
    for (let i = 0; i < count; i++)
      await eventually(
        () => articles(page).nth(i).innerText(),
        (value) => expect(value).toContain("Troubleshooting"),
      );

    await page.getByRole("button", { name: "Clear all" }).click();
    await page.waitForURL(/\/kb$/);

    await page.goto("/kb?search=zzqqxxnothing");
    await page.getByText("No articles found").waitFor();
    await page.getByText("Try adjusting your search or filters").waitFor();
    await env.screenshot(page, "kb-empty");

    await page.goto("/kb?tag=agent");
    await page.getByText("Tag: agent").waitFor();
    await waitForList(page);
    await eventually(
      () => articles(page).count(),
      (value) => expect(value).toBeGreaterThan(0),
    );
    expect(foreignRequests).toEqual([]);
    await context.close();
  });

  test("reader: metadata, TOC scrolls with a 120 px offset, code copy shows 'Copied!' for 2 s, not-found view", async () => {
    const { context, page } = await env.openPage();
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: env.baseUrl });
    await page.goto("/kb/installing-the-agent");
    await page.getByRole("heading", { name: "Installing the agent", level: 1 }).waitFor();
    await eventually(
      () => page.title(),
      (value) => expect(value).toBe("DBVault - Installing the agent"),
    );
    await page
      .getByText(/Last updated/)
      .first()
      .waitFor();
    await eventually(
      () => page.getByRole("list", { name: "Tags" }).getByRole("link", { name: "agent" }).getAttribute("href"),
      (value) => expect(value).toBe("/kb?tag=agent"),
    );
    await eventually(
      () => page.getByRole("link", { name: "Back to Knowledge Base" }).getAttribute("href"),
      (value) => expect(value).toBe("/kb"),
    );
    await page.getByText("Was this article helpful?").waitFor();
    await eventually(
      () => page.getByRole("link", { name: "Edit Article" }).count(),
      (value) => expect(value).toBe(0),
    );

    const toc = page.getByRole("navigation", { name: "On this page" });
    await toc.getByRole("link", { name: "Run the setup" }).click();
    await page.waitForFunction(() => Math.abs((document.getElementById("run-the-setup")?.getBoundingClientRect().top ?? -1) - 120) < 4);

    const copy = page.getByRole("button", { name: "Copy code" }).first();
    await copy.click();
    await page.getByRole("button", { name: "Copied!" }).first().waitFor();
    await eventually(
      () => page.evaluate(() => navigator.clipboard.readText()),
      (value) => expect(value).toContain(`curl -fsSL ${env.baseUrl}/install.sh | sh`),
    );
    await page.getByRole("button", { name: "Copied!" }).first().waitFor({ state: "detached", timeout: 3500 });
    await page.evaluate(() => window.scrollTo(0, 0));
    await env.screenshot(page, "kb-article");

    await page.getByRole("button", { name: "Share" }).click();
    await toasts(page).getByText("Link copied to clipboard!").waitFor();

    await page.goto("/kb/no-such-article");
    await page.getByRole("heading", { name: "Article not found" }).waitFor();
    await page.getByText("The article you're looking for could not be found.").waitFor();
    await page.getByRole("link", { name: "Back to Knowledge Base" }).waitFor();
    await env.screenshot(page, "kb-article-not-found");
    await context.close();
  });
});

describe("knowledge base administration", () => {
  test("an admin creates, edits, publishes, unpublishes and deletes an article; a visitor sees each result", async () => {
    const admin = await env.server.registerAdmin();
    const { context, page } = await env.openPage();
    const visitor = await env.openPage();
    const visitorSees = async (slug: string, heading: string) => {
      await visitor.page.goto(`/kb/${slug}`);
      await visitor.page.getByRole("heading", { name: heading, level: 1 }).waitFor();
    };

    await page.goto("/login");
    await page.getByLabel("Email address").fill(admin.email);
    await page.getByLabel("Password", { exact: true }).fill(admin.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL("**/dashboard");
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Admin" }).waitFor();

    await page.goto("/admin/kb");
    await page.getByRole("heading", { name: "Knowledge Base Management" }).waitFor();
    await page.getByTestId("admin-article-row").first().waitFor();
    await eventually(
      () => page.getByTestId("admin-article-row").count(),
      (value) => expect(value).toBe(seededArticles),
    );
    // The spec's visible 'Actions' column header (a screen-reader-only one widened phones' pages).
    const headerTextWidth = async () =>
      (await page.getByRole("columnheader", { name: "Actions" }).getByText("Actions", { exact: true }).boundingBox())?.width ?? 0;
    await eventually(headerTextWidth, (width) => expect(width).toBeGreaterThan(20));
    const updatedHeader = page.getByRole("columnheader", { name: /Updated/ });
    await eventually(
      () => updatedHeader.getAttribute("aria-sort"),
      (value) => expect(value).toBe("descending"),
    );
    const titleHeader = page.getByRole("columnheader", { name: /Title/ });
    await titleHeader.getByRole("button").click();
    await eventually(
      () => titleHeader.getAttribute("aria-sort"),
      (value) => expect(value).toBe("ascending"),
    );
    const firstTitles = async () => (await page.getByTestId("admin-article-row").locator("td:nth-child(2)").allInnerTexts()).slice(0, 3);
    const ascending = await firstTitles();
    expect([...ascending].sort((a, b) => a.localeCompare(b))).toEqual(ascending);
    await titleHeader.getByRole("button").click();
    await eventually(
      () => titleHeader.getAttribute("aria-sort"),
      (value) => expect(value).toBe("descending"),
    );
    await eventually(
      () => firstTitles(),
      (value) => expect(value).not.toEqual(ascending),
    );
    await env.screenshot(page, "admin-kb-list");

    // Create (validation first), as a draft.
    await page.getByRole("link", { name: "New Article" }).click();
    await page.waitForURL("**/admin/kb/new");
    await page.getByRole("button", { name: "Save" }).click();
    await toasts(page).getByText("Validation Error").waitFor();
    await toasts(page).getByText("Title is required").waitFor();
    await page.getByLabel("Title").fill("Backups & You: A Primer!");
    await page.getByRole("button", { name: "Save" }).click();
    await toasts(page).getByText("Slug is required").waitFor();
    await page.getByRole("button", { name: "Generate" }).click();
    await eventually(
      () => page.getByLabel("Slug").inputValue(),
      (value) => expect(value).toBe("backups-you-a-primer"),
    );
    await page.getByRole("button", { name: "Save" }).click();
    await toasts(page).getByText("Content is required").waitFor();
    await page
      .getByLabel("Content (Markdown)")
      .fill("## First steps\n\nRead this.\n\n```sh\necho primer\n```\n\n[bad](javascript:alert(1)) and <script>alert(1)</script>");
    await page.getByLabel("Category").selectOption("usage");
    await page.getByLabel("Tags", { exact: true }).fill("primer");
    await page.keyboard.press("Enter");
    await page.getByLabel("Tags", { exact: true }).fill(" primer ");
    await page.keyboard.press("Enter");
    await page.getByLabel("Tags", { exact: true }).fill("temporary");
    await page.keyboard.press("Enter");
    await eventually(
      () => page.getByRole("list", { name: "Article tags" }).getByRole("listitem").count(),
      (value) => expect(value).toBe(2),
    );
    await page.getByRole("button", { name: "Remove tag temporary" }).click();
    await page.getByRole("switch", { name: "Published" }).click();
    await page.getByRole("button", { name: "Preview" }).click();
    await page.getByRole("article", { name: "Preview" }).getByRole("heading", { name: "Backups & You: A Primer!" }).waitFor();
    await eventually(
      () => page.getByRole("article", { name: "Preview" }).locator('a[href^="javascript"], script').count(),
      (value) => expect(value).toBe(0),
    );
    await env.screenshot(page, "admin-kb-editor-preview");
    await page.getByRole("button", { name: "Edit" }).click();
    await env.screenshot(page, "admin-kb-editor");
    await page.getByRole("button", { name: "Save" }).click();
    await toasts(page).getByText("Article created successfully").waitFor();
    await page.waitForURL(/\/admin\/kb\/(?!new)[\w-]+$/);
    const articleId = page.url().split("/").pop()!;
    await eventually(
      () => page.getByLabel("Title").inputValue(),
      (value) => expect(value).toBe("Backups & You: A Primer!"),
    );

    // A draft is invisible to visitors.
    await visitor.page.goto("/kb/backups-you-a-primer");
    await visitor.page.getByRole("heading", { name: "Article not found" }).waitFor();

    // Edit the title.
    await page.getByLabel("Title").fill("Backups and You");
    await page.getByRole("button", { name: "Save" }).click();
    await toasts(page).getByText("Article updated successfully").waitFor();

    // Publish from the list.
    await page.goto("/admin/kb");
    await page.getByLabel("Status").selectOption("draft");
    await page.getByTestId("admin-article-row").first().waitFor();
    await eventually(
      () => page.getByTestId("admin-article-row").count(),
      (value) => expect(value).toBe(1),
    );
    await page.getByRole("switch", { name: "Publish Backups and You" }).click();
    await toasts(page).getByText("Article published successfully").waitFor();
    await visitorSees("backups-you-a-primer", "Backups and You");
    await eventually(
      () => visitor.page.locator("article script").count(),
      (value) => expect(value).toBe(0),
    );
    await eventually(
      () => visitor.page.getByRole("link", { name: "bad" }).count(),
      (value) => expect(value).toBe(0),
    );
    await visitor.page.goto("/kb?search=primer");
    await visitor.page.getByRole("link", { name: "Backups and You" }).waitFor();

    // The admin sees 'Edit Article' on the reader.
    await page.goto("/kb/backups-you-a-primer");
    await eventually(
      () => page.getByRole("link", { name: "Edit Article" }).getAttribute("href"),
      (value) => expect(value).toBe(`/admin/kb/${articleId}`),
    );

    // Unpublish.
    await page.goto("/admin/kb");
    await page.getByLabel("Search articles").fill("Backups and You");
    await page.getByRole("switch", { name: "Unpublish Backups and You" }).click();
    await toasts(page).getByText("Article unpublished successfully").waitFor();
    await visitor.page.goto("/kb/backups-you-a-primer");
    await visitor.page.getByRole("heading", { name: "Article not found" }).waitFor();

    // Delete, after confirming.
    await page.getByRole("button", { name: "Delete Backups and You" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByText("Are you sure you want to delete this article? This action cannot be undone.").waitFor();
    await env.screenshot(page, "admin-kb-delete-confirm");
    await dialog.getByRole("button", { name: "Delete" }).click();
    await toasts(page).getByText("Article deleted successfully").waitFor();
    await page.getByText("No articles found").waitFor();
    const listed = await env.server.call("GET", "/api/kb/admin/all", { token: admin.token });
    expect(listed.body.some((a: { _id: string }) => a._id === articleId)).toBe(false);

    await visitor.context.close();
    await context.close();
  });

  test("visitors and users cannot open the admin pages", async () => {
    const { context, page } = await env.openPage();
    await page.goto("/admin/kb");
    await page.waitForURL("**/login");
    await context.close();
  });
});
