// Settings → Security → Protect backups in Chromium: a user without two-factor sign-in is told to
// turn it on first; with it, the policy is turned on and then asked off, each confirmed with the
// password and a second factor, and the card shows the date the turn-off takes effect.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { auditLogs, backups } from "@db/schema";
import { totpCode } from "../testkit/totp";
import { waitUntil } from "../testkit/wait-until";
import { type E2EEnv, startE2E } from "./support/e2e-env";
import { eventually } from "./support/eventually";
import { signIn } from "./support/sign-in";

let env: E2EEnv;
beforeAll(async () => {
  env = await startE2E();
}, 120_000);
afterAll(async () => {
  await env?.close();
});

/** A user with two-factor sign-in on (through the API); answers its seed and recovery codes. */
async function userWithTwoFactor() {
  const user = await env.server.registerUser();
  const setup = await env.server.call("POST", "/api/auth/two-factor/setup", { token: user.token, body: { password: user.password } });
  const enabled = await env.server.call("POST", "/api/auth/two-factor/enable", { token: user.token, body: { code: totpCode(setup.body.secret, Date.now()) } });
  expect(enabled.status).toBe(200);
  return { ...user, token: enabled.body.token as string, seed: setup.body.secret as string, recoveryCodes: enabled.body.recoveryCodes as string[] };
}

describe("Protect backups", () => {
  test("needs two-factor sign-in first", async () => {
    const user = await env.server.registerUser();
    const { context, page } = await env.openPage();
    await signIn(page, user);
    await page.goto("/settings?tab=security");
    const card = page.getByRole("region", { name: "Protect backups" });
    await card.getByText("Turn two-factor sign-in on first (Profile → Security): Protect backups needs it.").waitFor();
    expect(await card.getByRole("button", { name: "Protect backups" }).isDisabled()).toBe(true);
    await context.close();
  }, 60_000);

  test("turned on, then asked off: the card says when it takes effect, and the owner is mailed", async () => {
    const user = await userWithTwoFactor();
    const { context, page } = await env.openPage();
    await page.goto("/login");
    await page.getByLabel("Email address").fill(user.email);
    await page.getByLabel("Password", { exact: true }).fill(user.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByLabel("Authentication code").waitFor();
    // The next step's code: the one that turned two-factor sign-in on cannot be used again.
    await page.getByLabel("Authentication code").fill(totpCode(user.seed, Date.now() + 30_000));
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL("**/dashboard");

    await page.goto("/settings?tab=security");
    const card = page.getByRole("region", { name: "Protect backups" });
    await eventually(
      () => card.getByTestId("backup-protection-status").innerText(),
      (value) => expect(value).toStartWith("Off."),
    );
    await card.getByRole("button", { name: "Protect backups" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByLabel("Current password").fill(user.password);
    await dialog.getByLabel("Authentication code").fill(user.recoveryCodes[0]!);
    await dialog.getByRole("button", { name: "Protect backups" }).click();
    await eventually(
      () => card.getByTestId("backup-protection-status").innerText(),
      (value) => expect(value).toStartWith("On since"),
    );
    await env.screenshot(page, "backup-protection-on");

    // A kept backup's Delete on the dashboard says until when it is protected.
    const [kept] = await env.server.ctx.db
      .insert(backups)
      .values({ organizationId: user.id, databaseName: "orders", status: "completed", size: 1000, createdAt: new Date(Date.now() - 3_600_000) })
      .returning();
    await page.goto("/dashboard");
    const row = page.locator(`[data-backup-id="${kept!.id}"]`);
    await row.getByRole("button", { name: /^Delete / }).click();
    await page.getByRole("dialog", { name: "Delete backup" }).getByRole("button", { name: "Delete" }).click();
    await eventually(
      () => page.getByTestId("toasts").innerText(),
      (value) => expect(value).toContain("Protect backups is on for this account: this backup is kept until"),
    );
    await env.screenshot(page, "backup-protection-delete-refused");
    await page.goto("/settings?tab=security");

    await card.getByRole("button", { name: "Turn off…" }).click();
    await dialog.getByLabel("Current password").fill(user.password);
    await dialog.getByLabel("Authentication code").fill(user.recoveryCodes[1]!);
    await dialog.getByRole("button", { name: "Turn off in 7 days" }).click();
    await eventually(
      () => card.getByTestId("backup-protection-status").innerText(),
      (value) => expect(value).toStartWith("Turning off on"),
    );
    await card.getByRole("button", { name: "Cancel turning off" }).waitFor();
    await env.screenshot(page, "backup-protection-turning-off");

    const protection = await env.server.call("GET", "/api/settings/backup-protection", { token: user.token });
    expect(protection.body.state).toBe("turning-off");
    expect(Date.parse(protection.body.offAt) - Date.now()).toBeWithin(7 * 24 * 3_600_000 - 120_000, 7 * 24 * 3_600_000 + 1);
    await waitUntil(() => env.server.sentMail.find((mail) => mail.to === user.email && mail.subject === "Protect backups will turn off in 7 days"), {
      message: "the turn-off notice",
    });
    const requested = await env.server.ctx.db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.organizationId, user.id), eq(auditLogs.action, "BACKUP_PROTECTION_OFF_REQUESTED")));
    expect(requested).toHaveLength(1);
    await context.close();
  }, 90_000);
});
