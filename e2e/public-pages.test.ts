// Every public route renders its spec texts, with the product title, the footer, and no request
// to any other origin (fonts and all assets are self-hosted).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { type E2EEnv, startE2E } from "./support/e2e-env";
import { eventually } from "./support/eventually";
import { findLowContrast } from "./support/contrast";

let env: E2EEnv;
beforeAll(async () => {
  env = await startE2E();
}, 60_000);
afterAll(async () => {
  await env?.close();
});

async function visit(path: string, screenshotName: string, check: (page: Page) => Promise<void>) {
  const { context, page, foreignRequests } = await env.openPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  try {
    await page.goto(path);
    await check(page);
    for (const name of ["Privacy", "Terms of Service", "Contact"]) {
      await eventually(
        () => page.getByRole("contentinfo").getByRole("link", { name, exact: true }).count(),
        (value) => expect(value).toBe(1),
      );
    }
    await page.waitForLoadState("networkidle");
    await env.screenshot(page, screenshotName);
    expect(foreignRequests).toEqual([]);
    expect(errors).toEqual([]);
  } finally {
    await context.close();
  }
}

const text = (page: Page, value: string) => page.getByText(value, { exact: true }).first().waitFor();

describe("public pages", () => {
  test("landing: hero, features, two terminal demos, pricing from the API, closing call to action", async () => {
    await visit("/", "landing", async (page) => {
      await page.getByRole("heading", { level: 1 }).waitFor();
      await eventually(
        () => page.title(),
        (value) => expect(value).toMatch(/^DBVault - /),
      );
      await page.getByTestId("plan-card").first().waitFor();
      // The demos show a command that exists (the operator CLI's backup now) and a restore that stages, never "dropping" first.
      const demos = (await page.locator("figure pre").evaluateAll((pres) => pres.map((pre) => pre.textContent ?? ""))).join("\n");
      expect(demos).toContain("$ dbvault-agent backup now --db production-db");
      expect(demos).not.toContain("dbvault-agent backup production-db");
      expect(demos).not.toMatch(/dropping/i);
      // Every line the terminals show reads at 4.5:1 at least: with reduced motion they show whole at once.
      await page.emulateMedia({ reducedMotion: "reduce" });
      await page.reload();
      await page.locator("figure").last().getByText("✔ Restore completed successfully", { exact: true }).waitFor();
      expect(await findLowContrast(page.locator("figure"))).toEqual([]);
      await page.emulateMedia({ reducedMotion: null });
      const cards = page.getByTestId("plan-card");
      await eventually(
        () => cards.count(),
        (value) => expect(value).toBe(4),
      );
      const free = cards.filter({ hasText: "Free" }).first();
      await eventually(
        () => free.innerText(),
        (value) => expect(value).toContain("1 GB"),
      );
      // A new account keeps backups 3 days: the card's 7 days is the most the plan allows.
      await eventually(
        () => free.innerText(),
        (value) => expect(value).toMatch(/Retention up to\s+7 days/),
      );
      await free.getByText("Backups kept up to 7 days").waitFor();
      await eventually(
        () => free.innerText(),
        (value) => expect(value).toContain("Daily"),
      );
      const business = cards.filter({ hasText: "Business" });
      await eventually(
        () => business.innerText(),
        (value) => expect(value).toContain("Unlimited"),
      );
      await eventually(
        () => business.innerText(),
        (value) => expect(value).toContain("6 months"),
      );
      await eventually(
        () => business.innerText(),
        (value) => expect(value).toContain("Hourly"),
      );
      await eventually(
        () => business.innerText(),
        (value) => expect(value).toContain("$99"),
      );
      await eventually(
        () => page.getByText("Popular", { exact: true }).count(),
        (value) => expect(value).toBe(1),
      );
      await eventually(
        () => page.getByRole("link", { name: "Get Started" }).count(),
        (value) => expect(value).toBe(4),
      );
      await eventually(
        () => page.getByRole("link", { name: "Get Started" }).first().getAttribute("href"),
        (value) => expect(value).toBe("/register"),
      );
      await eventually(
        () => page.locator("figure").count(),
        (value) => expect(value).toBe(2),
      );
      await text(page, "Backup");
      await text(page, "Restore");
      await eventually(
        () => page.getByRole("link", { name: "Start your free trial" }).count(),
        (value) => expect(value).toBeGreaterThanOrEqual(1),
      );
    });
  });

  test("features: eight sections and 'Start Free Trial' to /register", async () => {
    await visit("/features", "features", async (page) => {
      for (const title of [
        "End-to-end encryption",
        "Zero-knowledge architecture",
        "Flexible scheduling",
        "1-click restore",
        "Detailed backup history",
        "Compliance ready",
        "Lightweight agent",
        "Scalable cloud storage",
      ]) {
        await page.getByRole("heading", { name: title, level: 2 }).waitFor();
      }
      await eventually(
        () => page.title(),
        (value) => expect(value).toBe("DBVault - Features"),
      );
      await eventually(
        () => page.getByRole("link", { name: "Start Free Trial" }).getAttribute("href"),
        (value) => expect(value).toBe("/register"),
      );
    });
  });

  test("about: story, values, team, links to features and contact", async () => {
    await visit("/about", "about", async (page) => {
      for (const value of ["Trust", "Innovation", "Customer Focus"]) await page.getByRole("heading", { name: value }).waitFor();
      await page.getByText("run by a single person").waitFor();
      await page.getByRole("heading", { name: "The team" }).waitFor();
      await eventually(
        () => page.getByRole("main").locator('a[href="/features"]').count(),
        (value) => expect(value).toBeGreaterThan(0),
      );
      await eventually(
        () => page.getByRole("main").locator('a[href="/contact"]').count(),
        (value) => expect(value).toBeGreaterThan(0),
      );
      await eventually(
        () => page.title(),
        (value) => expect(value).toBe("DBVault - About"),
      );
    });
  });

  test("contact: support e-mail card and community invite card", async () => {
    await visit("/contact", "contact", async (page) => {
      await page.getByRole("heading", { name: "Email support" }).waitFor();
      await page.getByRole("heading", { name: "Join our community" }).waitFor();
      await eventually(
        () => page.locator('a[href^="mailto:"]').count(),
        (value) => expect(value).toBeGreaterThan(0),
      );
    });
  });

  test("privacy: 16 sections, last updated September 19, 2025, anchors scroll to sections", async () => {
    await visit("/privacy", "privacy", async (page) => {
      await text(page, "Last updated September 19, 2025");
      await eventually(
        () => page.locator("main section[id]").count(),
        (value) => expect(value).toBe(16),
      );
      await page.getByText("Global Privacy Control").first().waitFor();
      await page.getByText("no requests to third parties", { exact: false }).waitFor();
      await page.getByRole("link", { name: "9. Do we collect information from minors?" }).click();
      await page.waitForFunction(() => {
        const top = document.getElementById("minors")?.getBoundingClientRect().top ?? -1;
        return Math.abs(top - 120) < 4;
      });
      expect(page.url()).toEndWith("/privacy#minors");
    });
  });

  test("terms: 26 sections, last updated April 30, 2025, with the spec's facts", async () => {
    await visit("/terms", "terms", async (page) => {
      await text(page, "Last updated April 30, 2025");
      await eventually(
        () => page.locator("main section[id]").count(),
        (value) => expect(value).toBe(26),
      );
      const body = await page.locator("main").innerText();
      for (const fact of [
        "PayPal, Mastercard and Visa",
        "US dollars",
        "non-refundable",
        "Utrecht",
        "Netherlands",
        "six (6) month",
        "United States",
        "under the age of 13",
        "HIPAA",
      ]) {
        expect(body).toContain(fact);
      }
    });
  });

  test("a deep link to a section lands on it", async () => {
    await visit("/terms#governing-law", "terms-deep-link", async (page) => {
      await page.waitForFunction(() => Math.abs((document.getElementById("governing-law")?.getBoundingClientRect().top ?? -1) - 120) < 4);
    });
  });

  test("banned page texts for a visitor without a session", async () => {
    await visit("/banned", "banned-visitor", async (page) => {
      await page.getByRole("heading", { name: "Account Suspended" }).waitFor();
      await text(page, "Your account has been suspended");
      await text(page, "No reason provided");
      await text(page, "Unknown date");
      await page.getByRole("link", { name: "Return to Home" }).waitFor();
      await page.getByRole("button", { name: "Sign Out" }).waitFor();
    });
  });

  test("unknown routes show a not-found page", async () => {
    await visit("/no-such-page", "not-found", async (page) => {
      await page.getByRole("heading", { name: "Page not found" }).waitFor();
    });
  });
});

describe("navigation", () => {
  test("Help dropdown works with the keyboard; Pricing scrolls to /#pricing", async () => {
    const { context, page } = await env.openPage();
    await page.goto("/about");
    const help = page.getByRole("button", { name: "Help" });
    await help.focus();
    await page.keyboard.press("Enter");
    await page.getByRole("menuitem", { name: "Knowledge Base" }).waitFor();
    await eventually(
      () => page.evaluate(() => document.activeElement?.textContent),
      (value) => expect(value).toBe("Knowledge Base"),
    );
    await page.keyboard.press("ArrowDown");
    await eventually(
      () => page.evaluate(() => document.activeElement?.textContent),
      (value) => expect(value).toBe("Terms of Service"),
    );
    await page.keyboard.press("Escape");
    await eventually(
      () => help.getAttribute("aria-expanded"),
      (value) => expect(value).toBe("false"),
    );
    await eventually(
      () => page.evaluate(() => document.activeElement?.textContent),
      (value) => expect(value).toContain("Help"),
    );
    await help.click();
    await page.getByRole("menuitem", { name: "Privacy Policy" }).click();
    await page.waitForURL("**/privacy");
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Pricing" }).click();
    await page.waitForURL("**/#pricing");
    await page.waitForFunction(() => Math.abs((document.getElementById("pricing")?.getBoundingClientRect().top ?? -1) - 120) < 4);
    await context.close();
  });

  test("the mobile menu collapses and expands", async () => {
    const { context, page } = await env.openPage({ viewport: { width: 390, height: 844 } });
    await page.goto("/");
    const toggle = page.getByRole("button", { name: "Open main menu" });
    await eventually(
      () => page.locator("#mobile-menu").isVisible(),
      (value) => expect(value).toBe(false),
    );
    await toggle.click();
    await eventually(
      () => page.locator("#mobile-menu").isVisible(),
      (value) => expect(value).toBe(true),
    );
    await env.screenshot(page, "mobile-menu");
    await page.locator("#mobile-menu").getByRole("link", { name: "Features" }).click();
    await page.waitForURL("**/features");
    await eventually(
      () => page.locator("#mobile-menu").isVisible(),
      (value) => expect(value).toBe(false),
    );
    await context.close();
  });
});
