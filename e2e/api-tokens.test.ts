// Profile → Security → API tokens in Chromium against the real server: a token is created with
// its scopes and expiry, shown once, works for what its scopes allow over plain HTTP (as a script
// would call), shows when it was last used, and stops working once revoked.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type E2EEnv, startE2E } from "./support/e2e-env";
import { eventually } from "./support/eventually";
import { signIn } from "./support/sign-in";
import { waitForToast } from "./support/toasts";

let env: E2EEnv;
beforeAll(async () => {
  env = await startE2E();
});
afterAll(async () => {
  await env?.close();
});

describe("API tokens", () => {
  test("create one with scopes, copy it once, see its last use, revoke it", async () => {
    const user = await env.server.registerUser({ name: "Token User" });
    const { page } = await env.openPage();
    await signIn(page, user);
    await page.goto("/profile");
    await page.getByRole("tab", { name: "Security", exact: true }).click();
    await page.getByRole("heading", { name: "API tokens" }).waitFor();
    await page.getByText("No API tokens yet.").waitFor();

    // A name is needed; the server's rules are explained in the form.
    await page.getByRole("button", { name: "Create token" }).click();
    await page.getByRole("alert").getByText("Give the token a name that says where it is used, e.g. nightly CI.").waitFor();

    await page.getByLabel("Token name").fill("nightly CI");
    expect(await page.getByRole("checkbox", { name: /^read/ }).isChecked()).toBe(true);
    await page.getByRole("checkbox", { name: /^backup/ }).check();
    await page.getByLabel("Expires after").selectOption("90");
    // A token outlives the session: the form asks the password (the API tokens card comes before Change Password).
    await page.getByLabel("Current password").first().fill(user.password);
    await page.getByRole("button", { name: "Create token" }).click();
    const token = await page.getByLabel("New API token").inputValue();
    expect(token).toMatch(/^dbvp_/);
    await page.getByText("Copy this token now: it is not shown again.").waitFor();
    const row = page.getByRole("listitem").filter({ hasText: "nightly CI" });
    await row.getByText(`${token.slice(0, 9)}… · read, backup`).waitFor();
    await row.getByText(/Expires .* · Last used: Never/).waitFor();

    // Used by a script: read works, admin does not.
    const call = (path: string) => fetch(`${env.baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
    expect((await call("/api/backups/")).status).toBe(200);
    expect((await call("/api/settings/webhooks/")).status).toBe(403);
    await page.getByRole("button", { name: "Done" }).click();
    expect(await page.getByLabel("New API token").count()).toBe(0);
    await eventually(
      async () => {
        await page.reload();
        await page.getByRole("tab", { name: "Security", exact: true }).click();
        return row.textContent();
      },
      (text) => expect(text).not.toContain("Last used: Never"),
    );

    await row.getByRole("button", { name: "Revoke nightly CI" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Revoke" }).click();
    await waitForToast(page, 'Token "nightly CI" revoked. Requests with it are refused from now on.');
    await page.getByText("No API tokens yet.").waitFor();
    expect((await call("/api/backups/")).status).toBe(401);
  }, 90_000);
});
