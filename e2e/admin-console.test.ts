// The Admin Dashboard (/admin): cards, search, User Details (email, role, status, plan and its
// limits), ban with a reason (the banned user, in another browser, lands on /banned), unban,
// agent and user deletion, errors shown at the top with the list unchanged, and the admin guard.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { backups } from "@db/schema";
import { registerScriptedAgent } from "../server/test/scripted-agent";
import { type TestUser, uniqueEmail } from "../server/test/harness";
import { type E2EEnv, startE2E } from "./support/e2e-env";
import { eventually, holdUntilReleased } from "./support/eventually";
import { signIn } from "./support/sign-in";

let env: E2EEnv;
beforeAll(async () => {
  env = await startE2E();
}, 60_000);
afterAll(async () => {
  await env?.close();
});

const rows = (page: Page) => page.getByTestId("admin-user-row");
const row = (page: Page, text: string) => rows(page).filter({ hasText: text });
const details = (page: Page) => page.getByRole("region", { name: "User Details" });
const card = (page: Page, name: string) => page.getByRole("group", { name, exact: true });
const cardValue = (page: Page, name: string) => card(page, name).getByTestId("stat-value").innerText();
const topError = (page: Page) => page.getByRole("alert");
const asAdmin = (admin: TestUser, method: string, path: string, body?: unknown) => env.server.call(method, path, { token: admin.token, body });

async function openAdmin(page: Page) {
  await page.goto("/admin");
  await page.getByRole("heading", { name: "Admin Dashboard", level: 1 }).waitFor();
  await rows(page).first().waitFor();
}

async function selectUser(page: Page, name: string) {
  await row(page, name).getByRole("button", { name }).click();
  await eventually(
    () => details(page).getByLabel("Name").inputValue(),
    (value) => expect(value).toBe(name),
  );
}

describe("admin dashboard", () => {
  test("cards, search, details, plan/role/status/email, ban and unban, agents, delete user", async () => {
    const admin = await env.server.registerAdmin();
    const grace = await env.server.registerUser({ name: "Grace Hopper", email: uniqueEmail("grace") });
    const linus = await env.server.registerUser({ name: "Linus Torvalds", email: uniqueEmail("linus") });
    const agent = await registerScriptedAgent(env.baseUrl, grace.apiKey, ["orders-db"], "grace-prod-agent");
    await env.server.ctx.db.insert(backups).values([
      { organizationId: grace.id, databaseName: "orders-db", status: "completed", size: 1024 * 1024 },
      { organizationId: grace.id, databaseName: "orders-db", status: "completed", size: 512 * 1024 },
    ]);
    const userCount = (await asAdmin(admin, "GET", "/api/admin/users")).body.length as number;

    // Grace signs in first, in her own browser, and stays there while the admin works.
    const graceBrowser = await env.openPage();
    await signIn(graceBrowser.page, grace, /\/(dashboard|banned)$/);
    expect(graceBrowser.page.url()).toEndWith("/dashboard");

    const { context, page } = await env.openPage();
    // The users list is held back until the loading text has been seen.
    const usersHeld = holdUntilReleased();
    await page.route("**/api/admin/users", async (route) => {
      await usersHeld.wait();
      await route.continue();
    });
    await signIn(page, admin, /\/(dashboard|banned)$/);
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Admin" }).click();
    await page.getByText("Loading admin data...").waitFor();
    usersHeld.release();
    await openAdmin(page);
    await page.unroute("**/api/admin/users");
    // The plans' point-in-time hour inputs are sized for a number, not stretched across the page.
    const hourInputs = page.getByRole("region", { name: "Plans: point-in-time recovery window" }).getByRole("spinbutton");
    await hourInputs.first().waitFor();
    for (const width of await hourInputs.evaluateAll((inputs) => inputs.map((input) => input.getBoundingClientRect().width)))
      expect(width).toBeLessThanOrEqual(120);
    await eventually(
      () => page.title(),
      (value) => expect(value).toBe("DBVault - Admin Dashboard"),
    );
    await page.getByText("Manage users, plans, and monitor activity.").waitFor();
    await eventually(
      () => page.getByRole("link", { name: /Knowledge Base Management/ }).getAttribute("href"),
      (value) => expect(value).toBe("/admin/kb"),
    );

    // Cards and the table.
    await eventually(
      () => cardValue(page, "Users"),
      (value) => expect(value).toBe(String(userCount)),
    );
    await eventually(
      () => cardValue(page, "Banned"),
      (value) => expect(value).toBe("0"),
    );
    await eventually(
      () => cardValue(page, "Inactive"),
      (value) => expect(value).toBe("0"),
    );
    await eventually(
      () => cardValue(page, "Backups"),
      (value) => expect(value).toBe("2"),
    );
    await eventually(
      () => card(page, "Backups").innerText(),
      (value) => expect(value).toContain("1.5 MB"),
    );
    await eventually(
      () => rows(page).count(),
      (value) => expect(value).toBe(userCount),
    );
    for (const header of ["Name", "Email", "Role", "Plan", "Status"]) await page.getByRole("columnheader", { name: header }).waitFor();
    // The first user is selected by default.
    const firstName = await rows(page).first().locator("td").first().innerText();
    await eventually(
      () => details(page).getByLabel("Name").inputValue(),
      (value) => expect(value).toBe(firstName),
    );
    await eventually(
      () => rows(page).first().getAttribute("data-selected"),
      (value) => expect(value).toBe("true"),
    );
    await env.screenshot(page, "admin-dashboard");

    // Search: name, email and plan name, any case.
    const search = page.getByPlaceholder("Search by name, email, plan");
    await search.fill("HOPPER");
    await eventually(
      () => rows(page).count(),
      (value) => expect(value).toBe(1),
    );
    await eventually(
      () => rows(page).first().innerText(),
      (value) => expect(value).toContain(grace.email),
    );
    await search.fill(linus.email.slice(0, 12).toUpperCase());
    await eventually(
      () => rows(page).count(),
      (value) => expect(value).toBe(1),
    );
    await eventually(
      () => rows(page).first().innerText(),
      (value) => expect(value).toContain("Linus Torvalds"),
    );
    await search.fill("no-such-user-anywhere");
    await page.getByText("No users match the search.").waitFor();
    await env.screenshot(page, "admin-search-empty");
    await search.fill("");
    await eventually(
      () => rows(page).count(),
      (value) => expect(value).toBe(userCount),
    );

    // Details of Grace: plan with its limits.
    await selectUser(page, "Grace Hopper");
    const panel = details(page);
    await eventually(
      () => panel.getByLabel("Email").inputValue(),
      (value) => expect(value).toBe(grace.email),
    );
    await eventually(
      () => panel.getByLabel("Plan", { exact: true }).locator("option:checked").innerText(),
      (value) => expect(value).toBe("Free"),
    );
    await eventually(
      () => panel.getByLabel("Plan limits").innerText(),
      (value) => expect(value).toMatch(/Storage\s*1 GB\s*Retention\s*7 days\s*Frequency\s*every 24 hours\s*DB Limit\s*1/i),
    );
    const pro = ((await asAdmin(admin, "GET", "/api/admin/plans")).body as { _id: string; name: string }[]).find((p) => p.name === "Pro")!;
    await panel.getByLabel("Plan", { exact: true }).selectOption(pro._id);
    await row(page, "Grace Hopper").getByText("Pro").waitFor();
    await eventually(
      () => panel.getByLabel("Plan limits").innerText(),
      (value) => expect(value).toMatch(/200 GB[\s\S]*3 months[\s\S]*every 1 hour[\s\S]*10/),
    );
    const serverGrace = async () => ((await asAdmin(admin, "GET", "/api/admin/users")).body as any[]).find((u) => u._id === grace.id);
    expect((await serverGrace()).plan.name).toBe("Pro");
    await search.fill("pro");
    await eventually(
      () => rows(page).count(),
      (value) => expect(value).toBe(1),
    );
    await search.fill("");

    // Role and status.
    await panel.getByLabel("Role").selectOption("admin");
    await row(page, "Grace Hopper").getByText("admin").waitFor();
    expect((await serverGrace()).role).toBe("admin");
    await panel.getByLabel("Role").selectOption("user");
    await row(page, "Grace Hopper").getByText("User", { exact: true }).waitFor();
    await panel.getByLabel("Status").selectOption("inactive");
    await row(page, "Grace Hopper").getByText("inactive").waitFor();
    await eventually(
      () => cardValue(page, "Inactive"),
      (value) => expect(value).toBe("1"),
    );
    expect((await serverGrace()).status).toBe("inactive");
    // Inactive signs the account out everywhere: Grace's open page is sent to sign in again.
    await graceBrowser.page.goto("/dashboard");
    await graceBrowser.page.waitForURL(/\/login/);
    await panel.getByLabel("Status").selectOption("active");
    await row(page, "Grace Hopper").getByText("active", { exact: true }).waitFor();

    // Email: blank cannot be saved; the trimmed value is sent.
    const newEmail = uniqueEmail("grace-new");
    await panel.getByLabel("Email").fill("   ");
    await eventually(
      () => panel.getByRole("button", { name: "Save" }).isDisabled(),
      (value) => expect(value).toBe(true),
    );
    await panel.getByLabel("Email").fill(`  ${newEmail}  `);
    await panel.getByRole("button", { name: "Save" }).click();
    await row(page, "Grace Hopper").getByText(newEmail).waitFor();
    await eventually(
      () => panel.getByLabel("Email").inputValue(),
      (value) => expect(value).toBe(newEmail),
    );
    expect((await serverGrace()).email).toBe(newEmail);
    // Active again, Grace signs in with the address the admin set.
    await signIn(graceBrowser.page, { email: newEmail, password: grace.password });

    // Agents.
    const agentItem = panel.getByTestId("admin-agent");
    await agentItem.waitFor();
    await eventually(
      () => agentItem.innerText(),
      (value) => expect(value).toMatch(/grace-prod-agent[\s\S]*db-host\.internal · v1\.0\.0 · backup agent/),
    );
    await env.screenshot(page, "admin-user-details");

    // Ban asks first (Cancel bans no one); then with a reason, Grace's next request lands her on /banned with it.
    await panel.getByLabel("Ban reason (optional)").fill("Chargeback fraud");
    await panel.getByRole("button", { name: "Ban", exact: true }).click();
    const banDialog = page.getByRole("dialog", { name: "Ban Grace Hopper?" });
    await banDialog.getByText('They can no longer use DBVault and are shown the reason: "Chargeback fraud". You can unban them later.').waitFor();
    await banDialog.getByRole("button", { name: "Cancel" }).click();
    await banDialog.waitFor({ state: "hidden" });
    expect((await serverGrace()).isBanned).toBe(false);
    await panel.getByRole("button", { name: "Ban", exact: true }).click();
    await banDialog.getByRole("button", { name: "Ban", exact: true }).click();
    await panel.getByText("Reason: Chargeback fraud").waitFor();
    await row(page, "Grace Hopper").getByText("banned").waitFor();
    await eventually(
      () => cardValue(page, "Banned"),
      (value) => expect(value).toBe("1"),
    );
    await env.screenshot(page, "admin-user-banned");
    await graceBrowser.page.goto("/dashboard");
    await graceBrowser.page.waitForURL("**/banned");
    await graceBrowser.page.getByRole("heading", { name: "Account Suspended" }).waitFor();
    await graceBrowser.page.getByText("Chargeback fraud").waitFor();
    await env.screenshot(graceBrowser.page, "admin-banned-user-view");

    // Unban: the reason is cleared; Grace signs in again (no token from before the ban works).
    await panel.getByRole("button", { name: "Unban" }).click();
    await panel.getByRole("button", { name: "Ban", exact: true }).waitFor();
    await eventually(
      () => panel.getByText(/^Reason:/).count(),
      (value) => expect(value).toBe(0),
    );
    await eventually(
      () => cardValue(page, "Banned"),
      (value) => expect(value).toBe("0"),
    );
    await eventually(
      () => serverGrace(),
      (value) => expect(value).toMatchObject({ isBanned: false, banReason: null, bannedAt: null }),
    );
    expect((await env.server.call("GET", "/api/user/profile", { token: grace.token })).status).toBe(401);
    const signedIn = await env.server.call("POST", "/api/auth/login", { body: { email: (await serverGrace()).email, password: grace.password } });
    expect((await env.server.call("GET", "/api/user/profile", { token: signedIn.body.token })).status).toBe(200);

    // A ban without a reason gets 'Policy violation'; then unban again.
    await panel.getByRole("button", { name: "Ban", exact: true }).click();
    await banDialog.getByText('"Policy violation"', { exact: false }).waitFor();
    await banDialog.getByRole("button", { name: "Ban", exact: true }).click();
    await panel.getByText("Reason: Policy violation").waitFor();
    await panel.getByRole("button", { name: "Unban" }).click();
    await panel.getByRole("button", { name: "Ban", exact: true }).waitFor();

    // Delete the agent, after confirming (Cancel keeps it).
    await panel.getByRole("button", { name: "Delete agent grace-prod-agent" }).click();
    const agentDialog = page.getByRole("dialog", { name: "Delete agent grace-prod-agent?" });
    await agentDialog.getByRole("button", { name: "Cancel" }).click();
    await agentDialog.waitFor({ state: "hidden" });
    expect((await asAdmin(admin, "GET", `/api/admin/users/${grace.id}/agents`)).body).toHaveLength(1);
    await panel.getByRole("button", { name: "Delete agent grace-prod-agent" }).click();
    await agentDialog.getByRole("button", { name: "Delete" }).click();
    await panel.getByText("No agents registered.").waitFor();
    expect((await asAdmin(admin, "GET", `/api/admin/users/${grace.id}/agents`)).body).toEqual([]);
    expect(agent.agentId).toBeString();

    // Delete Linus through the dialog: Cancel keeps him, Delete removes him.
    await selectUser(page, "Linus Torvalds");
    await panel.getByRole("button", { name: "Delete User" }).click();
    const dialog = page.getByRole("dialog", { name: "Delete user" });
    await dialog.getByText("This action cannot be undone. All user data may be lost.").waitFor();
    await env.screenshot(page, "admin-delete-user-dialog");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "hidden" });
    await eventually(
      () => row(page, "Linus Torvalds").count(),
      (value) => expect(value).toBe(1),
    );
    await panel.getByRole("button", { name: "Delete User" }).click();
    await dialog.getByRole("button", { name: "Delete" }).click();
    await dialog.waitFor({ state: "hidden" });
    await row(page, "Linus Torvalds").waitFor({ state: "detached" });
    await panel.getByText("Select a user from the list.").waitFor();
    await eventually(
      () => cardValue(page, "Users"),
      (value) => expect(value).toBe(String(userCount - 1)),
    );
    expect(((await asAdmin(admin, "GET", "/api/admin/users")).body as any[]).some((u) => u._id === linus.id)).toBe(false);

    // The page reflects the server after a reload.
    await openAdmin(page);
    await eventually(
      () => rows(page).count(),
      (value) => expect(value).toBe(userCount - 1),
    );
    await graceBrowser.context.close();
    await context.close();
  });

  test("API errors show at the top and the list is unchanged", async () => {
    const admin = await env.server.registerAdmin();
    const other = await env.server.registerUser({ name: "Error Target", email: uniqueEmail("target") });
    const { context, page } = await env.openPage();
    await signIn(page, admin, /\/(dashboard|banned)$/);

    // A load failure: the stats call fails, the users still show.
    await page.route("**/api/admin/stats/backups", (route) =>
      route.fulfill({ status: 500, contentType: "application/json", body: JSON.stringify({ message: "boom" }) }),
    );
    await openAdmin(page);
    await eventually(
      () => topError(page).innerText(),
      (value) => expect(value).toContain("Failed to fetch stats"),
    );
    await eventually(
      () => cardValue(page, "Backups"),
      (value) => expect(value).toBe("—"),
    );
    await page.unroute("**/api/admin/stats/backups");

    await openAdmin(page);
    await eventually(
      () => topError(page).count(),
      (value) => expect(value).toBe(0),
    );
    const before = await rows(page).allInnerTexts();

    // The server refuses: an admin cannot remove their own admin role.
    const panel = details(page);
    const adminRow = rows(page).filter({ hasText: admin.email });
    await adminRow.getByRole("button", { name: "Admin User" }).click();
    await eventually(
      () => panel.getByLabel("Email").inputValue(),
      (value) => expect(value).toBe(admin.email),
    );
    await panel.getByLabel("Role").selectOption("user");
    await topError(page).getByText("Failed to update role").waitFor();
    await eventually(
      () => topError(page).innerText(),
      (value) => expect(value).toContain("You cannot remove your own admin role."),
    );
    await eventually(
      () => panel.getByLabel("Role").inputValue(),
      (value) => expect(value).toBe("admin"),
    );
    await eventually(
      () => rows(page).allInnerTexts(),
      (value) => expect(value).toEqual(before),
    );
    await env.screenshot(page, "admin-error");

    // Deleting oneself is refused too.
    await panel.getByRole("button", { name: "Delete User" }).click();
    await page.getByRole("dialog", { name: "Delete user" }).getByRole("button", { name: "Delete" }).click();
    await topError(page).getByText("Failed to delete user").waitFor();
    await eventually(
      () => rows(page).allInnerTexts(),
      (value) => expect(value).toEqual(before),
    );

    // A failing network answer for a ban, an e-mail taken by someone else, a failing agent delete.
    await selectUser(page, "Error Target");
    await page.route("**/api/admin/users/*/ban", (route) => route.abort());
    await panel.getByRole("button", { name: "Ban", exact: true }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Ban", exact: true }).click();
    await topError(page).getByText("Failed to update ban status").waitFor();
    await eventually(
      () => rows(page).allInnerTexts(),
      (value) => expect(value).toEqual(before),
    );
    await page.unroute("**/api/admin/users/*/ban");
    await panel.getByLabel("Email").fill(admin.email);
    await panel.getByRole("button", { name: "Save" }).click();
    await topError(page).getByText("Failed to update email").waitFor();
    await eventually(
      () => rows(page).allInnerTexts(),
      (value) => expect(value).toEqual(before),
    );
    expect(((await asAdmin(admin, "GET", "/api/admin/users")).body as any[]).find((u) => u._id === other.id).email).toBe(other.email);

    await registerScriptedAgent(env.baseUrl, other.apiKey, ["db"], "doomed-agent");
    await openAdmin(page);
    await selectUser(page, "Error Target");
    await panel.getByTestId("admin-agent").waitFor();
    await page.route("**/api/admin/agents/*", (route) => route.fulfill({ status: 500, contentType: "application/json", body: "{}" }));
    await panel.getByRole("button", { name: "Delete agent doomed-agent" }).click();
    await page.getByRole("dialog", { name: "Delete agent doomed-agent?" }).getByRole("button", { name: "Delete" }).click();
    await topError(page).getByText("Failed to delete agent").waitFor();
    await eventually(
      () => panel.getByTestId("admin-agent").count(),
      (value) => expect(value).toBe(1),
    );
    await context.close();
  });

  test("a non-admin is sent away from /admin", async () => {
    const user = await env.server.registerUser();
    const { context, page } = await env.openPage();
    await signIn(page, user, /\/(dashboard|banned)$/);
    await page.goto("/admin");
    await page.waitForURL("**/dashboard");
    await eventually(
      () => page.getByRole("heading", { name: "Admin Dashboard" }).count(),
      (value) => expect(value).toBe(0),
    );
    expect((await env.server.call("GET", "/api/admin/users", { token: user.token })).status).toBe(403);
    await context.close();
  });
});
