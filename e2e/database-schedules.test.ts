// Settings → Databases: a database's own schedule (issue 44) set in Chromium at 1280 and 390 px,
// against the real server; the next run and the schedule in effect are shown after saving.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { registerScriptedAgent, type ScriptedAgent } from "../server/test/scripted-agent";
import type { TestUser } from "../server/test/harness";
import { type E2EEnv, startE2E } from "./support/e2e-env";
import { eventually } from "./support/eventually";
import { signIn } from "./support/sign-in";

let env: E2EEnv;
beforeAll(async () => {
  env = await startE2E();
}, 60_000);
afterAll(async () => {
  await env?.close();
});

describe("per-database schedules", () => {
  let user: TestUser;
  let agent: ScriptedAgent;
  beforeAll(async () => {
    user = await env.server.registerUser({ name: "Schedule User" });
    agent = await registerScriptedAgent(env.baseUrl, user.apiKey, ["orders-db"], "prod-agent");
    await agent.connect();
  });
  afterAll(async () => {
    // A deadline, not a wait for something: clean-up must not hang on a socket already gone.
    await Promise.race([agent?.disconnect(), Bun.sleep(1000)]);
  });

  for (const viewport of [
    { width: 1280, height: 900, from: "01:00", to: "04:00" },
    { width: 390, height: 844, from: "02:00", to: "05:00" },
  ]) {
    test(`a window is set from the form and shown with the next run (${viewport.width} px)`, async () => {
      const { context, page } = await env.openPage({ viewport: { width: viewport.width, height: viewport.height } });
      await signIn(page, user);
      await page.goto("/settings?tab=databases");
      await page.getByRole("button", { name: "Edit the schedule of orders-db" }).click();
      const form = page.getByRole("form", { name: "Schedule of orders-db" });
      // Hourly is beyond the Free plan: offered, but disabled.
      expect(await form.locator('option[value="hourly"]').evaluate((option) => (option as HTMLOptionElement).disabled)).toBe(true);
      await form.getByLabel("Frequency").selectOption("daily");
      await form.getByLabel("Window from (UTC)").fill(viewport.from);
      await form.getByLabel("Window to (UTC)").fill(viewport.to);
      await form.getByRole("button", { name: "Save schedule" }).click();
      const shown = page.getByText(`Daily, between ${viewport.from} and ${viewport.to} UTC`);
      await shown.waitFor();
      await eventually(
        () => page.getByText(/^Next backup: /).innerText(),
        (text) => expect(text).not.toContain("not scheduled"),
      );
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
      await env.screenshot(page, `database-schedule-${viewport.width}`);
      // The dashboard says what runs next, at the window's start.
      await page.goto("/dashboard");
      const next = page.getByRole("list", { name: "Next scheduled backups" });
      await eventually(
        () => next.innerText(),
        (text) => expect(text).toMatch(/orders-db next backup \w{3} \d+, \d{4}, \d+:00 AM/),
      );
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
      await env.screenshot(page, `dashboard-next-backup-${viewport.width}`);
      await context.close();
    });
  }
});
