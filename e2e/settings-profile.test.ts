// Settings, My Profile and Audit Logs in Chromium against the real server, with a protocol-level
// agent (server/test/scripted-agent.ts) registered over the API so the Agents and Databases tabs
// have something real to show and commands really reach an agent socket.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { eq } from "drizzle-orm";
import { databases, plans, organizations } from "@db/schema";
import { registerScriptedAgent, type ScriptedAgent } from "../server/test/scripted-agent";
import type { TestUser } from "../server/test/harness";
import { type E2EEnv, startE2E } from "./support/e2e-env";
import { eventually } from "./support/eventually";
import { findLowContrast } from "./support/contrast";
import { signIn } from "./support/sign-in";
import { waitUntil } from "../testkit/wait-until";
import { toasts, waitForToast } from "./support/toasts";

let env: E2EEnv;
beforeAll(async () => {
  env = await startE2E();
}, 60_000);
afterAll(async () => {
  await env?.close();
});

const tab = (page: Page, name: string) => page.getByRole("tab", { name, exact: true });
const isSelected = async (page: Page, name: string) => (await tab(page, name).getAttribute("aria-selected")) === "true";
const optionDisabled = (page: Page, select: string, value: string) =>
  page.locator(`${select} option[value="${value}"]`).evaluate((option) => (option as HTMLOptionElement).disabled);

describe("settings", () => {
  let user: TestUser;
  let agent: ScriptedAgent;

  beforeAll(async () => {
    user = await env.server.registerUser({ name: "Settings User" });
    agent = await registerScriptedAgent(env.baseUrl, user.apiKey, ["orders-db", "analytics-db"], "prod-agent");
    await agent.connect();
  });
  afterAll(async () => {
    // A deadline, not a wait for something: clean-up must not hang on a socket already gone.
    await Promise.race([agent?.disconnect(), Bun.sleep(1000)]);
  });

  test("General: options beyond the Free plan are disabled; saving shows 'Saved!' for 3 s", async () => {
    const { context, page } = await env.openPage();
    await signIn(page, user);
    await page.goto("/settings");
    await page.getByRole("heading", { name: "Settings", level: 1 }).waitFor();
    await eventually(
      () => page.title(),
      (value) => expect(value).toBe("DBVault - Settings"),
    );
    await eventually(
      () => page.getByRole("link", { name: "Back to Dashboard" }).getAttribute("href"),
      (value) => expect(value).toBe("/dashboard"),
    );
    await eventually(
      () => isSelected(page, "General"),
      (value) => expect(value).toBe(true),
    );

    // Free: daily at most, 7 days at most.
    await page.getByLabel("Backup frequency").waitFor();
    await eventually(
      () => optionDisabled(page, "#settings-frequency", "hourly"),
      (value) => expect(value).toBe(true),
    );
    for (const word of ["daily", "weekly", "monthly"])
      await eventually(
        () => optionDisabled(page, "#settings-frequency", word),
        (value) => expect(value).toBe(false),
      );
    for (const hours of ["72", "168"])
      await eventually(
        () => optionDisabled(page, "#settings-retention", hours),
        (value) => expect(value).toBe(false),
      );
    for (const hours of ["336", "720", "2160", "4320"])
      await eventually(
        () => optionDisabled(page, "#settings-retention", hours),
        (value) => expect(value).toBe(true),
      );
    await eventually(
      () => page.locator("#settings-retention option").allInnerTexts(),
      (value) =>
        expect(value).toEqual([
          "3 days",
          "7 days",
          "14 days (upgrade required)",
          "30 days (upgrade required)",
          "90 days (upgrade required)",
          "180 days (upgrade required)",
        ]),
    );

    await page.getByLabel("Backup frequency").selectOption("weekly");
    await page.getByLabel("Retention period").selectOption("168");
    await page.getByRole("button", { name: "Save Changes" }).click();
    await page.getByRole("button", { name: "Saved!" }).waitFor();
    const savedAt = Date.now();
    await env.screenshot(page, "settings-general");
    const stored = await env.server.call("GET", "/api/settings", { token: user.token });
    expect(stored.body.frequency).toBe(168);
    expect(stored.body.retention).toBe(168);
    await page.getByRole("button", { name: "Save Changes" }).waitFor({ timeout: 6000 });
    expect(Date.now() - savedAt).toBeGreaterThan(2000);

    // The tabs work from the keyboard: arrows move to and select the next tab.
    await tab(page, "General").focus();
    await page.keyboard.press("ArrowRight");
    await eventually(
      () => isSelected(page, "Agents"),
      (value) => expect(value).toBe(true),
    );
    await eventually(
      () => page.evaluate(() => document.activeElement?.textContent),
      (value) => expect(value).toBe("Agents"),
    );
    await page.keyboard.press("End");
    await eventually(
      () => isSelected(page, "Notifications"),
      (value) => expect(value).toBe(true),
    );
    await context.close();
  });

  test("Agents: details, commands reach the agent, reset and remove ask first, ?agent= opens it", async () => {
    const { context, page } = await env.openPage();
    await signIn(page, user);
    await page.goto(`/settings?agent=${agent.agentId}`);
    await page.getByRole("region", { name: "Agent prod-agent" }).waitFor();
    await eventually(
      () => isSelected(page, "Agents"),
      (value) => expect(value).toBe(true),
    );
    const details = page.getByRole("region", { name: "Agent prod-agent" });
    await eventually(
      () => details.innerText(),
      (value) => expect(value).toContain("Online"),
    );
    await eventually(
      () => details.innerText(),
      (value) => expect(value).toContain("linux-x64"),
    );
    await eventually(
      () => details.innerText(),
      (value) => expect(value).toContain("1.0.0"),
    );
    expect(new URL(page.url()).searchParams.get("agent")).toBe(agent.agentId);
    // The selected agent's card reads at 4.5:1 at least, its hostname too.
    expect(await findLowContrast(page.locator('[aria-current="true"]'))).toEqual([]);
    await env.screenshot(page, "settings-agents");

    await details.getByRole("button", { name: "Restart Agent" }).click();
    await waitForToast(page, "Restart command sent to agent");
    await agent.waitFor("restart");
    await details.getByRole("button", { name: "Check for Updates" }).click();
    await waitForToast(page, "Update check command sent to agent");
    await agent.waitFor("update");
    // Each step the agent reports shows within seconds (the page follows an update closely).
    const lastUpdate = details.getByTestId("agent-last-update");
    await eventually(
      () => lastUpdate.innerText(),
      (value) => expect(value).toContain("Update check sent"),
    );
    agent.send({
      type: "update.status",
      status: "installing",
      message: "downloading dbvault-agent 1.0.1 for linux-x64 (105.2 MiB) and checking it",
      version: "1.0.1",
    });
    await eventually(
      () => lastUpdate.innerText(),
      (value) => expect(value).toContain("Installing"),
    );
    await eventually(
      () => lastUpdate.innerText(),
      (value) => expect(value).toContain("downloading dbvault-agent 1.0.1 for linux-x64"),
      10_000,
    );
    agent.send({
      type: "update.status",
      status: "failed",
      message: "the downloaded agent does not match the signed release manifest (dbvault-agent 1.0.0 keeps running)",
    });
    await eventually(
      () => lastUpdate.innerText(),
      (value) => expect(value).toContain("Update failed"),
      10_000,
    );
    await eventually(
      () => lastUpdate.innerText(),
      (value) => expect(value).toContain("(dbvault-agent 1.0.0 keeps running)"),
    );

    await details.getByRole("button", { name: "Reset Connection" }).click();
    const dialog = page.getByRole("dialog");
    await eventually(
      () => dialog.innerText(),
      (value) => expect(value).toContain("New connection credentials will be generated"),
    );
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "hidden" });

    await details.getByRole("button", { name: "Remove Agent" }).click();
    await eventually(
      () => dialog.innerText(),
      (value) => expect(value).toContain("This will not delete any existing backups."),
    );
    await dialog.getByRole("button", { name: "Remove Agent" }).click();
    // Removing really removes: a toast, the list empties, and a reload does not bring it back.
    await waitForToast(page, 'The agent "prod-agent" was removed. Its backups are kept.');
    await page.getByText("No agents connected yet").waitFor();
    await page.goto("/settings?tab=agents"); // a fresh load from the server
    await page.getByText("No agents connected yet").waitFor();
    await page.getByRole("button", { name: "Setup New Agent" }).click();
    await eventually(
      () => isSelected(page, "Security"),
      (value) => expect(value).toBe(true),
    );
    expect(new URL(page.url()).searchParams.get("agent")).toBeNull();
    expect(new URL(page.url()).searchParams.get("tab")).toBe("security");
    const guide = page.getByRole("region", { name: "Set up a new agent" });
    await eventually(
      () => guide.innerText(),
      (value) => expect(value).toContain(`curl -fsSL ${env.baseUrl}/install.sh | sh`),
    );
    // The Windows one-liner only when this server has a Windows build; otherwise how to add it.
    const { publicKey, platforms } = (await env.server.call("GET", "/api/agent/releases")).body;
    if (platforms.some((entry: { os: string }) => entry.os === "windows")) {
      await eventually(
        () => guide.innerText(),
        (value) => expect(value).toContain(`irm ${env.baseUrl}/install.ps1 | iex`),
      );
    } else {
      await eventually(
        () => guide.innerText(),
        (value) =>
          expect(value).toContain("This server has no agent build for Windows: its administrator adds the missing builds with npm run build:agent -- --all."),
      );
      expect(await guide.innerText()).not.toContain("install.ps1");
    }
    // Without PUBLIC_URL, the page says once that e-mailed links need it.
    expect(await guide.getByTestId("public-url-notice").count()).toBe(1);
    // It quotes the address those links carry, port included.
    expect(await guide.getByTestId("public-url-notice").innerText()).toMatch(
      /E-mailed links \(password resets, alerts\) still say http:\/\/localhost:\d+: its administrator/,
    );
    // Every platform is listed, built here or not, with the key the checksums are signed with.
    await eventually(
      () => page.getByTestId("release-key").innerText(),
      (value) => expect(value).toBe(publicKey),
    );
    const downloads = page.getByRole("list", { name: "Agent downloads" });
    await eventually(
      () => downloads.getByTestId("agent-download").evaluateAll((items) => items.map((item) => item.getAttribute("data-platform"))),
      (value) => expect(value).toEqual(["linux-x64", "linux-arm64", "linux-x64-musl", "linux-arm64-musl", "darwin-arm64", "darwin-x64", "windows-x64"]),
    );
    await eventually(
      () => guide.innerText(),
      (value) => expect(value).toContain("dbvault-agent setup"),
    );
    await eventually(
      () => guide.innerText(),
      (value) => expect(value).toContain(env.baseUrl),
    );
    await env.screenshot(page, "settings-agent-setup");

    // An unknown agent is ignored; a known one opens and the parameter goes once the tab changes.
    await page.goto("/settings?agent=not-an-agent");
    await tab(page, "General").waitFor();
    await eventually(
      () => isSelected(page, "General"),
      (value) => expect(value).toBe(true),
    );
    // The removed agent is gone for good; set the machine up again to see ?agent= open a known one.
    const again = await registerScriptedAgent(env.baseUrl, user.apiKey, ["orders-db", "analytics-db"], "prod-agent");
    await page.goto(`/settings?agent=${again.agentId}&tab=databases`);
    await page.getByRole("region", { name: "Agent prod-agent" }).waitFor();
    await tab(page, "General").click();
    await page.waitForURL((url) => !url.searchParams.has("agent"));
    await page.goto("/settings?tab=notifications");
    await tab(page, "Notifications").waitFor();
    await eventually(
      () => isSelected(page, "Notifications"),
      (value) => expect(value).toBe(true),
    );
    await context.close();
  });

  test("Databases: Enable/Disable within the plan's dbLimit", async () => {
    const { context, page } = await env.openPage();
    await signIn(page, user);
    await page.goto("/settings?tab=databases");
    const orders = page.getByRole("switch", { name: "orders-db enabled" });
    const analytics = page.getByRole("switch", { name: "analytics-db enabled" });
    await orders.waitFor();
    // Free allows one active database: the first registered is active, the second is not.
    await eventually(
      () => orders.getAttribute("aria-checked"),
      (value) => expect(value).toBe("true"),
    );
    await eventually(
      () => analytics.getAttribute("aria-checked"),
      (value) => expect(value).toBe("false"),
    );
    await eventually(
      () => analytics.isDisabled(),
      (value) => expect(value).toBe(true),
    );
    await eventually(
      () => page.getByRole("row", { name: /analytics-db/ }).innerText(),
      (value) => expect(value).toContain("Disabled"),
    );
    await env.screenshot(page, "settings-databases");

    await orders.click();
    await page
      .getByRole("row", { name: /orders-db/ })
      .getByText("Disabled")
      .waitFor();
    await eventually(
      () => analytics.isDisabled(),
      (value) => expect(value).toBe(false),
    );
    await analytics.click();
    await page
      .getByRole("row", { name: /analytics-db/ })
      .getByText("Active")
      .waitFor();
    await eventually(
      () => orders.isDisabled(),
      (value) => expect(value).toBe(true),
    );
    const listed = await env.server.call("GET", "/api/settings/databases", { token: user.token });
    expect(listed.body.map((d: { name: string; isActive: boolean }) => [d.name, d.isActive])).toEqual([
      ["orders-db", false],
      ["analytics-db", true],
    ]);
    await context.close();
  });

  test("Databases: the point-in-time recovery switch follows the plan and reaches the agent", async () => {
    // An account of its own: the Agents test above removes the shared agent.
    const user = await env.server.registerUser({ name: "Point-in-time User" });
    const agent = await registerScriptedAgent(env.baseUrl, user.apiKey, ["orders-db", "analytics-db"], "pitr-agent");
    await agent.connect();
    // Both active, as after the Enable/Disable test: a disabled database ships nothing.
    await env.server.ctx.db.update(databases).set({ isActive: true }).where(eq(databases.organizationId, user.id));
    const { context, page } = await env.openPage();
    await signIn(page, user);
    await page.goto("/settings?tab=databases");
    const analytics = page.getByRole("switch", { name: "analytics-db point-in-time recovery" });
    await analytics.waitFor();
    // Free does not offer it: the switch is off and locked, and says why.
    await eventually(
      () => analytics.isDisabled(),
      (value) => expect(value).toBe(true),
    );
    await page
      .getByRole("row", { name: /analytics-db/ })
      .getByText("Not in your plan: upgrade to restore to any second")
      .waitFor();

    const [pro] = await env.server.ctx.db.select().from(plans).where(eq(plans.name, "Pro"));
    const [before] = await env.server.ctx.db.select({ planId: organizations.planId }).from(organizations).where(eq(organizations.id, user.id));
    await env.server.ctx.db.update(organizations).set({ planId: pro!.id }).where(eq(organizations.id, user.id));
    await page.reload();
    await page
      .getByRole("row", { name: /analytics-db/ })
      .getByText("Restore to any second, 7 days back (replica sets only)")
      .waitFor();
    agent.received.length = 0;
    await analytics.click();
    await eventually(
      () => analytics.getAttribute("aria-checked"),
      (value) => expect(value).toBe("true"),
    );
    expect((await agent.waitFor("pitr")).databases).toEqual(["analytics-db"]);
    const listed = await env.server.call("GET", "/api/settings/databases", { token: user.token });
    expect(listed.body.map((d: { name: string; pitrEnabled: boolean }) => [d.name, d.pitrEnabled])).toEqual([
      ["orders-db", false],
      ["analytics-db", true],
    ]);
    await env.server.ctx.db.update(organizations).set({ planId: before!.planId }).where(eq(organizations.id, user.id));
    await context.close();
    await Promise.race([agent.disconnect(), Bun.sleep(1000)]);
  });

  test("Notifications: toggles and address saved, test e-mail sent", async () => {
    const { context, page } = await env.openPage();
    await signIn(page, user);
    await page.goto("/settings?tab=notifications");
    const success = page.getByRole("switch", { name: "Backup Success" });
    await success.waitFor();
    await eventually(
      () => success.getAttribute("aria-checked"),
      (value) => expect(value).toBe("true"),
    );
    await success.click();
    await page.getByLabel("Notification email").fill("alerts@example.com");
    await page.getByRole("button", { name: "Save All Changes" }).click();
    await page.getByRole("button", { name: "Saved!" }).waitFor();
    const stored = await env.server.call("GET", "/api/settings", { token: user.token });
    expect(stored.body.notifications).toEqual({ backupSuccess: false, backupFailure: true, agentDisconnection: true });
    expect(stored.body.notificationEmail).toBe("alerts@example.com");

    // A toggle turned off but not saved yet stays off through the e-mail's own 'Update'; the
    // red toast of the failed first try goes once the retry succeeds.
    const failure = page.getByRole("switch", { name: "Backup Failure" });
    await failure.click();
    await eventually(
      () => failure.getAttribute("aria-checked"),
      (value) => expect(value).toBe("false"),
    );
    await page.getByLabel("Notification email").fill("not-an-email");
    await page.getByRole("button", { name: "Update", exact: true }).click();
    await waitForToast(page, "Failed to save settings. Please try again.");
    await page.getByLabel("Notification email").fill("ops@example.com");
    await page.getByRole("button", { name: "Update", exact: true }).click();
    await page.getByRole("button", { name: "Updated!" }).waitFor();
    // Read at once: the toast would close by itself after 5 s.
    expect(await toasts(page).innerText()).not.toContain("Failed to save settings");
    expect(await failure.getAttribute("aria-checked")).toBe("false");
    await page.getByRole("button", { name: "Save All Changes" }).click();
    await eventually(
      async () => (await env.server.call("GET", "/api/settings", { token: user.token })).body.notifications,
      (value) => expect(value).toEqual({ backupSuccess: false, backupFailure: false, agentDisconnection: true }),
    );

    await page.getByRole("button", { name: "Send Test Notification" }).click();
    await waitForToast(page, "Test notification sent successfully. Please check your email.");
    expect(env.server.sentMail.some((mail) => mail.to === "ops@example.com" && mail.subject === "DBVault test notification")).toBe(true);
    await env.screenshot(page, "settings-notifications");
    await context.close();
  });

  test("Security: key shown and hidden, endpoint copied, key regenerated after confirming", async () => {
    const { context, page } = await env.openPage();
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: env.baseUrl });
    await signIn(page, user);
    await page.goto("/settings?tab=security");
    const keyField = page.getByLabel("API key", { exact: true });
    await keyField.waitFor();
    await eventually(
      () => keyField.inputValue(),
      (value) => expect(value).not.toContain(user.apiKey.slice(0, 12)),
    );
    await page.getByRole("button", { name: "Show" }).click();
    await eventually(
      () => keyField.inputValue(),
      (value) => expect(value).toBe(user.apiKey),
    );
    await page.getByRole("button", { name: "Hide" }).click();
    await eventually(
      () => keyField.inputValue(),
      (value) => expect(value).not.toBe(user.apiKey),
    );

    await eventually(
      () => page.getByRole("textbox", { name: "Service endpoint" }).inputValue(),
      (value) => expect(value).toBe(`${env.baseUrl}/api`),
    );
    await page.getByRole("button", { name: "Copy service endpoint" }).click();
    await waitForToast(page, "Copied to clipboard!");
    await eventually(
      () => page.evaluate(() => navigator.clipboard.readText()),
      (value) => expect(value).toBe(`${env.baseUrl}/api`),
    );

    await page.getByRole("button", { name: "Regenerate API Key" }).click();
    const dialog = page.getByRole("dialog");
    await eventually(
      () => dialog.innerText(),
      (value) => expect(value).toContain("agents must be set up (or set up again with dbvault-agent setup --force) with the new key"),
    );
    await eventually(
      () => dialog.innerText(),
      (value) => expect(value).toContain("Agents already set up keep running on their own credentials."),
    );
    await dialog.getByRole("button", { name: "Cancel" }).click();
    expect((await env.server.call("GET", "/api/user/profile", { token: user.token })).body.apiKey).toBe(user.apiKey);

    // The key is replaced only with the password: a signed-in session alone cannot.
    await page.getByRole("button", { name: "Regenerate API Key" }).click();
    await dialog.getByLabel("Current password").fill("not-my-password");
    await dialog.getByRole("button", { name: "Regenerate API Key" }).click();
    await dialog.getByText("Current password is incorrect").waitFor();
    expect((await env.server.call("GET", "/api/user/profile", { token: user.token })).body.apiKey).toBe(user.apiKey);
    await dialog.getByLabel("Current password").fill(user.password);
    await dialog.getByRole("button", { name: "Regenerate API Key" }).click();
    await waitForToast(page, "API key regenerated");
    // The new key is shown straight away (for 30 s) and is the one the server now holds.
    const fresh = (await env.server.call("GET", "/api/user/profile", { token: user.token })).body.apiKey as string;
    expect(fresh).not.toBe(user.apiKey);
    await eventually(
      () => keyField.inputValue(),
      (value) => expect(value).toBe(fresh),
    );
    await env.screenshot(page, "settings-security");
    await context.close();
  });
});

describe("profile and audit log", () => {
  let user: TestUser;
  let newEmail: string;

  beforeAll(async () => {
    // A second free plan to switch to (the default catalogue has one free plan).
    await env.server.ctx.db
      .insert(plans)
      .values({ name: "Hobby", price: 0, storageLimit: 2 * 1024 ** 3, dbLimit: 2, retentionLimit: 168, frequencyLimit: 24, sortOrder: 1 })
      .onConflictDoNothing();
    user = await env.server.registerUser({ name: "Profile User" });
    newEmail = `renamed-with-a-rather-long-address-${Date.now().toString(36)}@example.com`;
  });

  test("Account: name and e-mail change (the password in the form, then the link mailed to the new address)", async () => {
    const { context, page } = await env.openPage();
    await signIn(page, user);
    await page.goto("/profile");
    await page.getByRole("heading", { name: "My Profile" }).waitFor();
    await eventually(
      () => page.title(),
      (value) => expect(value).toBe("DBVault - My Profile"),
    );
    await eventually(
      () => page.getByRole("link", { name: "Back to Dashboard" }).getAttribute("href"),
      (value) => expect(value).toBe("/dashboard"),
    );
    await eventually(
      () => page.getByLabel("Full name").inputValue(),
      (value) => expect(value).toBe("Profile User"),
    );
    await page.getByLabel("Full name").fill("G");
    await page.getByRole("button", { name: "Save Changes" }).click();
    await page.getByText("Name must be at least 2 characters").waitFor();
    await page.getByLabel("Full name").fill("Grace Hopper");
    // A new e-mail asks for the current password in the same form.
    await page.getByLabel("Email address").fill(newEmail);
    await page.getByRole("button", { name: "Save Changes" }).click();
    await page.getByText("Enter your current password to change your e-mail").waitFor();
    await page.getByLabel("Current password").fill("not-my-password");
    await page.getByRole("button", { name: "Save Changes" }).click();
    await waitForToast(page, "Current password is incorrect");
    await page.getByLabel("Current password").fill(user.password);
    await page.getByRole("button", { name: "Save Changes" }).click();
    await waitForToast(page, "Profile updated successfully!");
    await page.getByText(`Waiting for confirmation: open the link we sent to ${newEmail}`).waitFor();
    let profile = await env.server.call("GET", "/api/user/profile", { token: user.token });
    expect(profile.body.name).toBe("Grace Hopper");
    expect(profile.body.email).toBe(user.email);
    await env.screenshot(page, "profile-account");

    // The old address is told; the new one confirms with its link.
    await waitUntil(() => env.server.sentMail.find((m) => m.to === user.email && m.subject === "Your DBVault e-mail is being changed"), {
      message: "the notice to the old address",
    });
    const confirmMail = await waitUntil(() => env.server.sentMail.find((m) => m.to === newEmail), { message: "the confirmation link" });
    const link = new URL(confirmMail.text.match(/https?:\/\/\S+/)![0]);
    await page.goto(link.pathname);
    await page.getByRole("button", { name: "Confirm my new e-mail" }).click();
    await page.getByText(`Your e-mail is now ${newEmail}. Use it to sign in.`).waitFor();
    await env.screenshot(page, "email-change-confirmed");
    profile = await env.server.call("GET", "/api/user/profile", { token: user.token });
    expect(profile.body.email).toBe(newEmail);
    await context.close();
  });

  test("Security: key show/hide; password change rules, wrong current password, success", async () => {
    const { context, page } = await env.openPage();
    await signIn(page, { email: newEmail, password: user.password });
    await page.goto("/profile");
    await tab(page, "Security").click();
    const key = page.getByLabel("API key", { exact: true });
    await eventually(
      () => key.getAttribute("type"),
      (value) => expect(value).toBe("password"),
    );
    await page.getByRole("button", { name: "Show" }).click();
    await eventually(
      () => key.getAttribute("type"),
      (value) => expect(value).toBe("text"),
    );
    await eventually(
      () => key.inputValue(),
      (value) => expect(value).toBe(user.apiKey),
    );

    // The Change Password form's own field: the API tokens card asks for the password too.
    const passwordForm = page.locator("form", { has: page.getByRole("button", { name: "Update Password" }) });
    const change = async (current: string, next: string, confirm: string) => {
      await passwordForm.getByLabel("Current password").fill(current);
      await page.getByLabel("New password", { exact: true }).fill(next);
      await page.getByLabel("Confirm new password").fill(confirm);
      await page.getByRole("button", { name: "Update Password" }).click();
    };
    await change(user.password, "abcdef", "abcdeg");
    await page.getByRole("alert").getByText("New passwords do not match").waitFor();
    await change(user.password, "abc", "abc");
    await page.getByRole("alert").getByText("Password must be at least 6 characters").waitFor();
    await change("not-my-password", "brand-new-pass", "brand-new-pass");
    await page.getByRole("alert").getByText("Current password is incorrect").waitFor();
    await env.screenshot(page, "profile-password-error");
    // "Also replace the API key" is ticked by default: whoever learnt the old password may have
    // copied the key shown above, and the change takes it from them in the same step.
    const rotate = page.getByRole("checkbox", { name: /Also replace the API key/ });
    expect(await rotate.isChecked()).toBe(true);
    await change(user.password, "brand-new-pass", "brand-new-pass");
    await waitForToast(page, "Password updated successfully!");
    await eventually(
      () => passwordForm.getByLabel("Current password").inputValue(),
      (value) => expect(value).toBe(""),
    );
    const checkKey = (apiKey: string) => env.server.call("GET", "/api/agent/check-key", { headers: { authorization: `Bearer ${apiKey}` } });
    expect((await checkKey(user.apiKey)).status).toBe(401);
    const rotated = (await env.server.call("POST", "/api/auth/login", { body: { email: newEmail, password: "brand-new-pass" } })).body.user.apiKey as string;
    expect(rotated).not.toBe(user.apiKey);
    await eventually(
      () => key.inputValue(),
      (value) => expect(value).toBe(rotated),
    );
    await env.screenshot(page, "profile-password-changed-key-replaced");
    // Unticked, the key stays.
    await rotate.uncheck();
    await change("brand-new-pass", "brand-new-pass-2", "brand-new-pass-2");
    await waitForToast(page, "Password updated successfully!");
    await eventually(
      () => passwordForm.getByLabel("Current password").inputValue(),
      (value) => expect(value).toBe(""),
    );
    expect((await checkKey(rotated)).status).toBe(200);

    // This session carries on with the new token; the new password signs in.
    await page.reload();
    await page.getByRole("heading", { name: "My Profile" }).waitFor();
    const login = await env.server.call("POST", "/api/auth/login", { body: { email: newEmail, password: "brand-new-pass-2" } });
    expect(login.status).toBe(200);
    expect(login.body.user.apiKey).toBe(rotated);
    user = { ...user, email: newEmail, password: "brand-new-pass-2", token: login.body.token, apiKey: rotated };
    await context.close();
  });

  test("Billing & Plan: storage bar, paid plans locked, switch to a free plan", async () => {
    const { context, page } = await env.openPage();
    await signIn(page, user);
    await page.goto("/profile");
    await tab(page, "Billing & Plan").click();
    await eventually(
      () => page.getByTestId("current-plan").innerText(),
      (value) => expect(value).toBe("Free"),
    );
    const bar = page.getByRole("progressbar", { name: "Storage used" });
    await eventually(
      () => bar.getAttribute("aria-valuenow"),
      (value) => expect(value).toBe("0"),
    );
    await eventually(
      () => bar.locator("div").getAttribute("class"),
      (value) => expect(value).toContain("bg-emerald-500"),
    );
    const starter = page.getByRole("group", { name: "Starter plan" });
    await eventually(
      () => starter.getByRole("button", { name: "Contact support to upgrade" }).isDisabled(),
      (value) => expect(value).toBe(true),
    );
    await eventually(
      () => page.getByRole("group", { name: "Free plan" }).innerText(),
      (value) => expect(value).toContain("Current Plan"),
    );
    await page.getByRole("group", { name: "Hobby plan" }).getByRole("button", { name: "Switch to Hobby" }).click();
    await waitForToast(page, "Plan updated to Hobby!");
    await page.getByTestId("current-plan").getByText("Hobby").waitFor();
    expect((await env.server.call("GET", "/api/user/plan", { token: user.token })).body.name).toBe("Hobby");
    await env.screenshot(page, "profile-billing");
    await context.close();
  });

  test("Billing & Plan: leaving a paid plan for Free asks first; Cancel keeps the plan", async () => {
    // Support put this account on Starter (a paid plan).
    const payer = await env.server.registerUser({ name: "Paying Customer" });
    const [starterPlan] = await env.server.ctx.db.select().from(plans).where(eq(plans.name, "Starter"));
    // A tenth of a percent stored: the dashboard and Billing give the same figure.
    await env.server.ctx.db
      .update(organizations)
      .set({ planId: starterPlan!.id, storageUsed: Math.round(starterPlan!.storageLimit / 1000) })
      .where(eq(organizations.id, payer.id));
    const { context, page } = await env.openPage();
    await signIn(page, payer);
    await page.getByText(/ \(0\.1%\)$/).waitFor();
    await page.goto("/profile");
    await tab(page, "Billing & Plan").click();
    await page.getByTestId("current-plan").getByText("Starter").waitFor();
    await page.getByText(/ \(0\.1%\)$/).waitFor();
    await page.getByRole("group", { name: "Free plan" }).getByRole("button", { name: "Switch to Free" }).click();
    const confirm = page.getByRole("dialog", { name: "Switch to Free?" });
    await confirm.getByText(/^The Free plan's limits apply at once: .+\. Moving back to Starter goes through support\.$/).waitFor();
    await confirm.getByRole("button", { name: "Cancel" }).click();
    await confirm.waitFor({ state: "hidden" });
    expect((await env.server.call("GET", "/api/user/plan", { token: payer.token })).body.name).toBe("Starter");
    await page.getByRole("group", { name: "Free plan" }).getByRole("button", { name: "Switch to Free" }).click();
    await confirm.getByRole("button", { name: "Switch to Free" }).click();
    await waitForToast(page, "Plan updated to Free!");
    expect((await env.server.call("GET", "/api/user/plan", { token: payer.token })).body.name).toBe("Free");
    await context.close();
  });

  test("Audit Logs: the actions just done, entity and details rules, filter and paging", async () => {
    await registerScriptedAgent(env.baseUrl, user.apiKey, ["audit-db"], "audit-agent");
    // Enough entries for a second page (20 a page): each schedule change writes two.
    for (let i = 0; i < 10; i++) {
      const frequency = i % 2 === 0 ? "weekly" : "daily";
      expect((await env.server.call("PUT", "/api/settings", { token: user.token, body: { frequency } })).status).toBe(200);
    }
    const { context, page } = await env.openPage();
    await signIn(page, user);
    await page.goto("/audit-logs");
    await page.getByRole("heading", { name: "Audit Logs" }).waitFor();
    await page.getByText("Page 1 of 2").waitFor();
    await eventually(
      () => page.getByRole("button", { name: "Previous" }).isDisabled(),
      (value) => expect(value).toBe(true),
    );
    await eventually(
      () => page.getByRole("button", { name: "Next" }).isDisabled(),
      (value) => expect(value).toBe(false),
    );
    const firstRow = page.locator("tbody tr").first();
    await eventually(
      () => firstRow.locator("td").first().innerText(),
      (value) => expect(value).toMatch(/^[A-Z][a-z]{2} \d{1,2}, \d{4} \d{2}:\d{2}:\d{2}$/),
    );
    await eventually(
      () => page.locator("tbody tr").count(),
      (value) => expect(value).toBe(20),
    );
    await env.screenshot(page, "audit-logs");

    await page.getByRole("button", { name: "Next" }).click();
    await page.getByText("Page 2 of 2").waitFor();
    await eventually(
      () => page.getByRole("button", { name: "Next" }).isDisabled(),
      (value) => expect(value).toBe(true),
    );
    const agentRow = page.getByRole("row", { name: /AGENT_REGISTERED/ });
    await eventually(
      () => agentRow.innerText(),
      (value) => expect(value).toContain("Agent: audit-agent"),
    );

    const filter = page.getByLabel("Filter by action");
    await filter.selectOption("PLAN_CHANGED");
    await page.getByText("Page 1 of 1").waitFor();
    const planRow = page.getByRole("row", { name: /PLAN_CHANGED/ });
    await planRow.waitFor();
    await eventually(
      () => page.locator("tbody tr").count(),
      (value) => expect(value).toBe(1),
    );
    await eventually(
      () => planRow.locator("td").nth(2).innerText(),
      (value) => expect(value).toBe("User"),
    );
    const badge = planRow.getByText("PLAN_CHANGED");
    await eventually(
      () => badge.getAttribute("class"),
      (value) => expect(value).toContain("bg-violet-100"),
    );
    // The colour really reaches the page (the stylesheet holds the class).
    await eventually(
      () => badge.evaluate((el) => getComputedStyle(el).backgroundColor),
      (value) => expect(value).not.toBe("rgba(0, 0, 0, 0)"),
    );
    await eventually(
      () => page.getByRole("button", { name: "Previous" }).isDisabled(),
      (value) => expect(value).toBe(true),
    );
    await eventually(
      () => page.getByRole("button", { name: "Next" }).isDisabled(),
      (value) => expect(value).toBe(true),
    );

    await filter.selectOption("EMAIL_CHANGED");
    const emailRow = page.getByRole("row", { name: /EMAIL_CHANGED/ });
    await emailRow.waitFor();
    // Details: in words, not raw JSON, cut at 50 characters; the whole on expanding the row (no hover needed).
    const details = emailRow.getByTestId("audit-details");
    const shown = await details.innerText();
    // (The stored details' keys come back in jsonb's order: "to" before "from".)
    expect(shown).toMatch(/^(From|To): .{46,48}\.\.\.$/);
    expect(shown).toHaveLength(53);
    await emailRow.getByRole("button", { name: "Show all" }).click();
    await eventually(
      () => details.innerText(),
      (value) => expect(value.split(" · ").sort()).toEqual([expect.stringMatching(/^From: \S+@example\.com$/), `To: ${newEmail}`]),
    );
    expect(await details.innerText()).not.toContain("{");
    expect(await details.innerText()).toStartWith(shown.slice(0, 50));
    await emailRow.getByRole("button", { name: "Show less" }).click();
    await eventually(
      () => details.innerText(),
      (value) => expect(value).toBe(shown),
    );

    await filter.selectOption("PASSWORD_CHANGED");
    await page
      .getByRole("row", { name: /PASSWORD_CHANGED/ })
      .first()
      .waitFor();
    await filter.selectOption("BACKUP_FAILED");
    await page.getByText("No logs found").waitFor();
    await filter.selectOption("all");
    await page.getByText("Page 1 of 2").waitFor();
    await context.close();
  });
});
