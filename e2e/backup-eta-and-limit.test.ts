// A running backup shows the time-remaining estimate restores show (agent progress → server →
// realtime → dashboard), and once the plan's manual backup is used Trigger Backup is disabled with
// its reason, at 1280 px and on a 390 px phone: the reason fits the screen and names the button.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { type E2EEnv, startE2E } from "./support/e2e-env";
import { eventually } from "./support/eventually";
import { findOverflow, findUnreachable, PHONE } from "./support/phone-checks";
import { signIn } from "./support/sign-in";
import { registerScriptedAgent, type ScriptedAgent } from "../server/test/scripted-agent";

let env: E2EEnv;
const agents: ScriptedAgent[] = [];
beforeAll(async () => {
  env = await startE2E();
}, 60_000);
afterAll(async () => {
  for (const agent of agents) await agent.disconnect();
  await env?.close();
});

describe("a running backup's estimate and the used manual limit", () => {
  for (const [label, viewport] of [
    ["1280 px", { width: 1280, height: 900 }],
    ["390 px", PHONE],
  ] as const) {
    test(`at ${label}`, async () => {
      const user = await env.server.registerUser({ name: `Eta ${label}` });
      const agent = await registerScriptedAgent(env.baseUrl, user.apiKey, ["shop"], "eta-agent");
      agents.push(agent);
      await agent.connect();
      const { context, page } = await env.openPage({ viewport });
      // The page's own clock: the second progress report comes "a second later" without waiting it.
      await page.clock.install();
      await signIn(page, user);
      await page.getByRole("heading", { name: "Dashboard", level: 1 }).waitFor();
      const trigger = page.getByRole("button", { name: "Trigger Backup" });
      await eventually(
        () => trigger.isEnabled(),
        (value) => expect(value).toBe(true),
      );
      await trigger.click();
      const { backupId } = await agent.waitFor("backup");

      const row = page.getByTestId("backup-row").first();
      agent.send({ type: "backup.progress", backupId, progress: { current: 1000, total: 2_000_000, percentage: 0.05, collection: "orders" } });
      await row.getByTestId("backup-progress").getByText("Estimating time...").waitFor();
      await page.clock.fastForward(1100);
      agent.send({ type: "backup.progress", backupId, progress: { current: 3000, total: 2_000_000, percentage: 0.15, collection: "orders" } });
      await row
        .getByTestId("backup-progress")
        .getByText(/^About \d+ (hours?|minutes?)( \d+ minutes?)? remaining$/)
        .waitFor();
      expect(await findUnreachable(row.getByTestId("backup-progress"))).toBeNull();
      await env.screenshot(page, `backup-eta-${viewport.width}`);

      expect((await agent.upload(backupId, randomBytes(4096))).status).toBe(200);
      await row.getByText("Completed").waitFor({ timeout: 15_000 });

      // The free plan's manual backup is used: disabled, saying why and until when, tied to the button.
      await eventually(
        () => trigger.isDisabled(),
        (value) => expect(value).toBe(true),
      );
      const reason = page.getByTestId("trigger-blocked");
      await eventually(
        () => reason.innerText(),
        (value) =>
          expect(value).toMatch(/^Your Free plan allows one manual backup every 24 hours: the next from [A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2} [AP]M\.$/),
      );
      expect(await trigger.getAttribute("aria-describedby")).toBe(await reason.getAttribute("id"));
      expect(await findUnreachable(reason)).toBeNull();
      expect(await findOverflow(page)).toBeNull();
      await env.screenshot(page, `trigger-backup-limit-${viewport.width}`);
      await context.close();
    }, 90_000);
  }
});
