// Sign-up, sign-out, sign-in, password reset by e-mail link, validation messages, guards, bans.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { uniqueEmail } from "../server/test/harness";
import { type E2EEnv, startE2E } from "./support/e2e-env";
import { eventually, holdUntilReleased } from "./support/eventually";
import { totpCode } from "../testkit/totp";
import { waitUntil } from "../testkit/wait-until";
import { signIn } from "./support/sign-in";

let env: E2EEnv;
beforeAll(async () => {
  env = await startE2E();
}, 60_000);
afterAll(async () => {
  await env?.close();
});

/** The validation message shown under a field (linked to it with aria-describedby). */
async function fieldMessage(page: Page, label: string): Promise<string | null> {
  const describedBy = await page.getByLabel(label, { exact: true }).getAttribute("aria-describedby");
  if (!describedBy) return null;
  return page.locator(`[id="${describedBy.split(" ")[0]}"]`).innerText();
}

const toastText = (page: Page) => page.getByTestId("toasts").innerText();

describe("sign-in flows", () => {
  test("register (with validation), sign out, sign back in", async () => {
    const { context, page } = await env.openPage();
    const email = uniqueEmail("e2e");
    await page.goto("/register");
    await page.getByRole("heading", { name: "Create your account" }).waitFor();
    await eventually(
      () => page.title(),
      (value) => expect(value).toBe("DBVault - Sign up"),
    );
    const form = page.locator("form");
    await eventually(
      () => form.getByRole("link", { name: "Terms of Service" }).getAttribute("href"),
      (value) => expect(value).toBe("/terms"),
    );
    await eventually(
      () => form.getByRole("link", { name: "Privacy Policy" }).getAttribute("href"),
      (value) => expect(value).toBe("/privacy"),
    );
    await eventually(
      () => page.getByRole("main").locator('a[href="/login"]').count(),
      (value) => expect(value).toBe(1),
    );

    await page.getByLabel("Full name").fill("A");
    await page.getByLabel("Email address").fill("not-an-email");
    await page.getByLabel("Password", { exact: true }).fill("123");
    await page.getByLabel("Confirm password").fill("456");
    await page.getByRole("button", { name: "Create account" }).click();
    await eventually(
      () => fieldMessage(page, "Full name"),
      (value) => expect(value).toBe("Name must be at least 2 characters"),
    );
    await eventually(
      () => fieldMessage(page, "Email address"),
      (value) => expect(value).toBe("Please enter a valid email address"),
    );
    await eventually(
      () => fieldMessage(page, "Password"),
      (value) => expect(value).toBe("Password must be at least 6 characters"),
    );
    await eventually(
      () => fieldMessage(page, "Confirm password"),
      (value) => expect(value).toBe("Passwords don't match"),
    );
    await env.screenshot(page, "register-validation");

    await page.getByLabel("Full name").fill("Ada Lovelace");
    await page.getByLabel("Email address").fill(email);
    await page.getByLabel("Password", { exact: true }).fill("secret123");
    await page.getByLabel("Confirm password").fill("secret123");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.waitForURL("**/dashboard");
    await page.getByRole("heading", { name: "Dashboard" }).waitFor();
    const stored = await page.evaluate(() => JSON.parse(localStorage.getItem("dbvault.auth") ?? "null"));
    expect(stored.user.email).toBe(email);
    expect(typeof stored.token).toBe("string");
    expect(typeof stored.timestamp).toBe("string");
    // The API key stays out of storage (it is fetched when Settings shows it).
    expect(stored.user.apiKey).toBeUndefined();
    const nav = page.getByRole("navigation", { name: "Main" });
    for (const name of ["Dashboard", "Settings", "Profile", "Audit Logs"]) await nav.getByRole("link", { name, exact: true }).waitFor();
    await eventually(
      () => nav.getByRole("link", { name: "Admin" }).count(),
      (value) => expect(value).toBe(0),
    );
    await env.screenshot(page, "dashboard-placeholder");

    // The session survives a reload (restored from storage).
    await page.reload();
    await page.getByRole("heading", { name: "Dashboard" }).waitFor();

    await nav.getByRole("button", { name: "Log out" }).click();
    await page.waitForURL("**/login");
    await eventually(
      () => toastText(page),
      (value) => expect(value).toContain("Signed out"),
    );
    await eventually(
      () => toastText(page),
      (value) => expect(value).toContain("You have been signed out."),
    );
    await eventually(
      () => page.evaluate(() => localStorage.getItem("dbvault.auth")),
      (value) => expect(value).toBeNull(),
    );
    // Signing out ended the session on the server too: the token the page held is refused.
    await eventually(
      async () => (await env.server.call("GET", "/api/user/profile", { token: stored.token })).status,
      (value) => expect(value).toBe(401),
    );

    await page.getByLabel("Email address").fill("bad");
    await page.getByLabel("Password", { exact: true }).fill("1");
    await page.getByRole("button", { name: "Sign in" }).click();
    await eventually(
      () => fieldMessage(page, "Email address"),
      (value) => expect(value).toBe("Please enter a valid email address"),
    );
    await eventually(
      () => fieldMessage(page, "Password"),
      (value) => expect(value).toBe("Password must be at least 6 characters"),
    );

    await page.getByLabel("Email address").fill(email);
    await page.getByLabel("Password", { exact: true }).fill("wrong-password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("alert").filter({ hasText: "Invalid email or password" }).waitFor();
    await env.screenshot(page, "login-error");

    await page.getByLabel("Password", { exact: true }).fill("secret123");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL("**/dashboard");
    await context.close();
  });

  test("login page links and busy label", async () => {
    const { context, page } = await env.openPage();
    await page.goto("/login");
    await eventually(
      () => page.getByRole("link", { name: "Forgot your password?" }).getAttribute("href"),
      (value) => expect(value).toBe("/forgot-password"),
    );
    await eventually(
      () => page.getByRole("link", { name: "create a new account" }).getAttribute("href"),
      (value) => expect(value).toBe("/register"),
    );
    await eventually(
      () => page.getByRole("link", { name: "Create Account" }).getAttribute("href"),
      (value) => expect(value).toBe("/register"),
    );
    await env.screenshot(page, "login");
    const user = await env.server.registerUser();
    // Hold the answer back until the busy label has been seen.
    const loginHeld = holdUntilReleased();
    await page.route("**/api/auth/login", async (route) => {
      await loginHeld.wait();
      await route.continue();
    });
    await page.getByLabel("Email address").fill(user.email);
    await page.getByLabel("Password", { exact: true }).fill(user.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("button", { name: "Signing in..." }).waitFor();
    loginHeld.release();
    await page.waitForURL("**/dashboard");
    await context.close();
  });

  test("forgot password, then reset with the e-mailed link", async () => {
    const user = await env.server.registerUser();
    const { context, page } = await env.openPage();
    await page.goto("/forgot-password");
    await page.getByRole("button", { name: "Send reset link" }).click();
    await eventually(
      () => fieldMessage(page, "Email address"),
      (value) => expect(value).toBe("Please enter a valid email address"),
    );
    await page.getByLabel("Email address").fill(user.email);
    await page.getByRole("button", { name: "Send reset link" }).click();
    await page.getByText("If an account with that email exists, a password reset link has been sent.").waitFor();
    await page.getByRole("button", { name: "Try another email" }).waitFor();
    await eventually(
      () => page.getByRole("link", { name: "Back to login" }).getAttribute("href"),
      (value) => expect(value).toBe("/login"),
    );
    await env.screenshot(page, "forgot-password-sent");

    // The mail goes out just after the answer (so timing does not reveal which addresses exist).
    const mail = await waitUntil(() => env.server.sentMail.find((m) => m.to === user.email), { message: "the reset mail" });
    const link = mail.text.match(/\/reset-password\/[\w-]+/)?.[0];
    expect(link).toBeTruthy();

    await page.goto("/reset-password/not-a-real-token");
    await page.getByText("Invalid or expired reset token").waitFor();
    await eventually(
      () => page.getByRole("link", { name: "Request a new reset link" }).getAttribute("href"),
      (value) => expect(value).toBe("/forgot-password"),
    );
    await env.screenshot(page, "reset-password-invalid");

    // The token check is held back until its spinner text has been seen.
    const checkHeld = holdUntilReleased();
    await page.route("**/api/auth/reset-password/*", async (route) => {
      if (route.request().method() === "GET") await checkHeld.wait();
      await route.continue();
    });
    await page.goto(link!);
    await page.getByText("Verifying reset token...").waitFor();
    checkHeld.release();
    await page.getByLabel("New Password").waitFor();
    await page.getByLabel("New Password").fill("brand-new-pass");
    await page.getByLabel("Confirm Password").fill("different");
    await page.getByRole("button", { name: "Reset password" }).click();
    await eventually(
      () => fieldMessage(page, "Confirm Password"),
      (value) => expect(value).toBe("Passwords don't match"),
    );
    await page.getByLabel("Confirm Password").fill("brand-new-pass");
    await page.getByRole("button", { name: "Reset password" }).click();
    await page.getByRole("link", { name: "Go to login" }).waitFor();
    await env.screenshot(page, "reset-password-done");
    const started = Date.now();
    await page.waitForURL("**/login", { timeout: 6000 });
    expect(Date.now() - started).toBeGreaterThan(2000);

    await page.getByLabel("Email address").fill(user.email);
    await page.getByLabel("Password", { exact: true }).fill("brand-new-pass");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL("**/dashboard");
    await context.close();
  });

  test("two-factor sign-in: turned on in Profile → Security from the shown key, then sign-in asks for a code", async () => {
    const user = await env.server.registerUser();
    const { context, page } = await env.openPage();
    await signIn(page, user);
    await page.goto("/profile");
    await page.getByRole("tab", { name: "Security", exact: true }).click();
    const card = page.getByRole("region", { name: "Two-factor sign-in" });
    await card.getByRole("button", { name: "Turn on two-factor sign-in" }).click();
    await card.getByLabel("Current password").fill(user.password);
    await card.getByRole("button", { name: "Continue" }).click();
    const qr = card.getByRole("img", { name: "QR code for your authenticator app" });
    await qr.waitFor();
    // The QR image really decodes as an image in Chromium (an SVG of the otpauth URL).
    await eventually(
      () => qr.evaluate((img) => (img as HTMLImageElement).naturalWidth),
      (value) => expect(value).toBeGreaterThan(0),
    );
    const secret = await card.getByTestId("two-factor-secret").innerText();
    await env.screenshot(page, "two-factor-setup");
    // What an authenticator app computes from the key (RFC 6238, testkit/totp.ts).
    await card.getByLabel("Authentication code").fill(totpCode(secret, Date.now()));
    await card.getByRole("button", { name: "Verify and turn on" }).click();
    // The codes appear once the server has answered: wait for them before reading the list.
    await card.getByTestId("recovery-codes").locator("li").first().waitFor();
    const codes = (await card.getByTestId("recovery-codes").locator("li").allInnerTexts()).map((c) => c.trim());
    expect(codes).toHaveLength(10);
    await env.screenshot(page, "two-factor-recovery-codes");
    await card.getByRole("button", { name: "I have saved them" }).click();
    await eventually(
      () => card.getByTestId("two-factor-status").innerText(),
      (value) => expect(value).toContain("10 recovery codes left"),
    );
    // This page carries on with the token the server answered (other sessions ended).
    await page.reload();
    await page.getByRole("tab", { name: "Security", exact: true }).click();
    await eventually(
      () => card.getByTestId("two-factor-status").innerText(),
      (value) => expect(value).toContain("On since"),
    );

    await context.clearCookies();
    await page.evaluate(() => localStorage.clear());
    await page.goto("/login");
    await page.getByLabel("Email address").fill(user.email);
    await page.getByLabel("Password", { exact: true }).fill(user.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByLabel("Authentication code").waitFor();
    await page.getByLabel("Authentication code").fill("000000" === totpCode(secret, Date.now() + 30_000) ? "111111" : "000000");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByText("Invalid authentication code").waitFor();
    await env.screenshot(page, "two-factor-sign-in");
    // The next step's code: the step used to turn it on cannot be used again.
    await page.getByLabel("Authentication code").fill(totpCode(secret, Date.now() + 30_000));
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL("**/dashboard");

    // New recovery codes ask for the password and a code (a session alone cannot make them).
    await page.goto("/profile");
    await page.getByRole("tab", { name: "Security", exact: true }).click();
    await card.getByRole("button", { name: "New recovery codes" }).click();
    await card.getByLabel("Current password").fill("not-my-password");
    await card.getByLabel("Authentication code").fill(codes[0]!);
    await card.getByRole("button", { name: "Make new codes" }).click();
    await card.getByText("Current password is incorrect").waitFor();
    await card.getByLabel("Current password").fill(user.password);
    await card.getByRole("button", { name: "Make new codes" }).click();
    await card.getByTestId("recovery-codes").locator("li").first().waitFor();
    const fresh = (await card.getByTestId("recovery-codes").locator("li").allInnerTexts()).map((c) => c.trim());
    expect(fresh).toHaveLength(10);
    expect(fresh).not.toContain(codes[1]);
    await card.getByRole("button", { name: "I have saved them" }).click();

    // A new API key asks for a code too (its dialog), and so does a password change (its form).
    await page.goto("/settings?tab=security");
    await page.getByRole("button", { name: "Regenerate API Key" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByLabel("Current password").fill(user.password);
    await dialog.getByLabel("Authentication code").fill(fresh[0]!);
    await dialog.getByRole("button", { name: "Regenerate API Key" }).click();
    await page.getByTestId("toasts").getByText("API key regenerated", { exact: true }).waitFor();
    await page.goto("/profile");
    await page.getByRole("tab", { name: "Security", exact: true }).click();
    // The Change Password form's own field: the API tokens card asks for the password too.
    const passwordForm = page.locator("form", { has: page.getByRole("button", { name: "Update Password" }) });
    await passwordForm.getByLabel("Current password").fill(user.password);
    await page.getByLabel("New password", { exact: true }).fill("brand-new-pass-2");
    await page.getByLabel("Confirm new password").fill("brand-new-pass-2");
    await page.getByLabel("Authentication code").last().fill(fresh[1]!);
    await page.getByRole("button", { name: "Update Password" }).click();
    await page.getByTestId("toasts").getByText("Password updated successfully!", { exact: true }).waitFor();
    await context.close();
  });
});

describe("guards and session", () => {
  test("signed-in pages send visitors to /login; admin pages send users to /dashboard", async () => {
    const { context, page } = await env.openPage();
    await page.goto("/settings");
    await page.waitForURL("**/login");
    const user = await env.server.registerUser();
    await page.getByLabel("Email address").fill(user.email);
    await page.getByLabel("Password", { exact: true }).fill(user.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL("**/dashboard");
    await page.goto("/admin");
    await page.waitForURL("**/dashboard");
    await page.goto("/login");
    await page.waitForURL("**/dashboard");
    await context.close();
  });

  test("an expired stored session is cleared with 'Session expired'", async () => {
    const { context, page } = await env.openPage();
    await page.goto("/");
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
    const expired = `${encode({ alg: "HS256" })}.${encode({ sub: "x", exp: 1 })}.sig`;
    await page.evaluate((token) => {
      localStorage.setItem(
        "dbvault.auth",
        JSON.stringify({ token, user: { id: "x", email: "x@example.com", name: "X", role: "user" }, timestamp: new Date().toISOString() }),
      );
    }, expired);
    await page.goto("/dashboard");
    await page.waitForURL("**/login");
    await eventually(
      () => toastText(page),
      (value) => expect(value).toContain("Session expired"),
    );
    await eventually(
      () => toastText(page),
      (value) => expect(value).toContain("Please sign in again."),
    );
    await eventually(
      () => page.evaluate(() => localStorage.getItem("dbvault.auth")),
      (value) => expect(value).toBeNull(),
    );
    await context.close();
  });

  test("a banned user lands on /banned with the reason and can sign out; signing in again answers the ban, not a session", async () => {
    const admin = await env.server.registerAdmin();
    const user = await env.server.registerUser();
    const { context, page } = await env.openPage();
    await signIn(page, user);
    const ban = await env.server.call("PUT", `/api/admin/users/${user.id}/ban`, {
      token: admin.token,
      body: { isBanned: true, banReason: "Abuse of service" },
    });
    expect(ban.status).toBe(200);
    // A session open when the ban came: its next call is refused and the page says why.
    await page.goto("/dashboard");
    await page.waitForURL("**/banned");
    await page.getByRole("heading", { name: "Account Suspended" }).waitFor();
    await page.getByText("Abuse of service").waitFor();
    await page.getByRole("button", { name: "Sign Out" }).click();
    await page.waitForURL("**/login");
    await eventually(
      () => page.evaluate(() => localStorage.getItem("dbvault.auth")),
      (value) => expect(value).toBeNull(),
    );

    // Signing in again: the server answers 403 with the reason, no token; the same page shows it.
    await page.getByLabel("Email address").fill(user.email);
    await page.getByLabel("Password", { exact: true }).fill(user.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL("**/banned");
    await page.getByText("Abuse of service").waitFor();
    await eventually(
      () => page.getByText("Unknown date").count(),
      (value) => expect(value).toBe(0),
    );
    await env.screenshot(page, "banned");
    await eventually(
      () => page.evaluate(() => localStorage.getItem("dbvault.auth")),
      (value) => expect(value).toBeNull(),
    );
    await page.getByRole("button", { name: "Sign Out" }).click();
    await page.waitForURL("**/login");
    await context.close();
  });

  test("F8 moves focus to the notifications", async () => {
    const { context, page } = await env.openPage();
    await page.goto("/");
    await page.getByRole("heading", { level: 1 }).waitFor();
    await page.keyboard.press("F8");
    await eventually(
      () => page.evaluate(() => document.activeElement?.getAttribute("data-testid")),
      (value) => expect(value).toBe("toasts"),
    );
    await context.close();
  });
});
