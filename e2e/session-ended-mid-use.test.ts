// A session that ends while the user is working: signed out on another device (which ends every
// session of the account) while a settings form is being filled in. The user is told ('Session
// expired', not the refused call's own failure) and sent to sign in; nothing was saved by the
// refused call, and signing in again goes to the dashboard (spec: success goes to /dashboard).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type E2EEnv, startE2E } from "./support/e2e-env";
import { signIn } from "./support/sign-in";

let env: E2EEnv;
beforeAll(async () => {
  env = await startE2E();
}, 60_000);
afterAll(async () => {
  await env?.close();
});

describe("a session ended mid-use", () => {
  test("signed out on another device: 'Session expired' on the sign-in page, and nothing saved", async () => {
    const user = await env.server.registerUser();
    const { context, page } = await env.openPage();
    await signIn(page, user);
    await page.goto("/settings?tab=notifications");
    await page.getByLabel("Notification email").fill("alerts@example.com");

    // The other device signs out: every session of the account ends.
    const elsewhere = await env.server.call("POST", "/api/auth/login", { body: { email: user.email, password: user.password } });
    expect((await env.server.call("POST", "/api/auth/logout", { token: elsewhere.body.token })).status).toBeLessThan(300);

    await page.getByRole("button", { name: "Save All Changes" }).click();
    await page.waitForURL("**/login");
    // The spec's toast, not the form's own failure ('Failed to save settings...') in its place.
    const toasts = page.getByTestId("toasts");
    await toasts.getByText("Session expired", { exact: true }).waitFor();
    await toasts.getByText("Please sign in again.", { exact: true }).waitFor();
    expect(await toasts.innerText()).not.toContain("Failed to save settings");
    expect((await env.server.call("GET", "/api/settings", { token: user.token })).status).toBe(401);

    await page.getByLabel("Email address").fill(user.email);
    await page.getByLabel("Password", { exact: true }).fill(user.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL("**/dashboard");
    const fresh = await env.server.call("POST", "/api/auth/login", { body: { email: user.email, password: user.password } });
    expect((await env.server.call("GET", "/api/settings", { token: fresh.body.token })).body.notificationEmail).not.toBe("alerts@example.com");
    await context.close();
  });
});
