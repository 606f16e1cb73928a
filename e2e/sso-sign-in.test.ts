// "Sign in with SSO" in Chromium against a real OpenID Connect provider on loopback
// (testkit/oidc-provider.ts: it signs in the account the login_hint names, with no form), and
// Settings → SSO for an owner of a team organization.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { and, eq } from "drizzle-orm";
import { memberships, ssoConnections, users } from "@db/schema";
import { createTeamOrganization } from "../server/src/modules/organizations/create-team";
import { startTestOidcProvider, type TestOidcProvider } from "../testkit/oidc-provider";
import { type E2EEnv, startE2E } from "./support/e2e-env";
import { eventually } from "./support/eventually";
import { findOverflow, PHONE } from "./support/phone-checks";
import { signIn } from "./support/sign-in";

let env: E2EEnv;
let provider: TestOidcProvider;
let team: { id: string };
let owner: { token: string; id: string; email: string; password: string };

beforeAll(async () => {
  env = await startE2E({ SSO_ALLOW_PRIVATE: "true" });
  provider = await startTestOidcProvider({ redirectUris: [`${env.baseUrl}/api/auth/sso/callback`] });
  owner = await env.server.registerUser({ name: "Olivia Owner", email: "olivia@acme.test" });
  team = (await createTeamOrganization(env.server.ctx, { name: "Acme", ownerId: owner.id })).organization;
  const saved = await env.server.call("PUT", "/api/organizations/current/sso/", {
    token: owner.token,
    headers: { "X-Organization-Id": team.id },
    body: {
      issuer: provider.issuer,
      clientId: provider.clientId,
      clientSecret: provider.clientSecret,
      allowedDomains: ["acme.test"],
      defaultRole: "viewer",
      ssoRequired: false,
    },
  });
  if (saved.status !== 200) throw new Error(`connection not saved: ${JSON.stringify(saved.body)}`);
  // Proved (the DNS proof itself is server/test/sso.integration.test.ts's): only a proved domain signs anyone in.
  await env.server.ctx.db
    .update(ssoConnections)
    .set({ verifiedDomains: ["acme.test"] })
    .where(eq(ssoConnections.organizationId, team.id));
}, 60_000);
afterAll(async () => {
  await provider?.stop();
  await env?.close();
});

describe("Sign in with SSO", () => {
  test("from the sign-in page, through the provider, back signed in as a new member", async () => {
    provider.addAccount({ email: "nina@acme.test", name: "Nina New" });
    const { context, page } = await env.openPage();
    await page.goto("/login");
    await page.getByRole("link", { name: "Sign in with SSO" }).click();
    await page.getByRole("heading", { name: "Sign in with SSO" }).waitFor();
    await page.getByLabel("Work email address").fill("nina@acme.test");
    await page.getByRole("button", { name: "Continue with SSO" }).click();
    await page.waitForURL("**/dashboard");
    // No code or token left in the address or its history entry.
    expect(page.url()).toBe(`${env.baseUrl}/dashboard`);
    // Signed in through the team's provider, the session reaches the team only: no switcher (one
    // organization), and the server lists that one organization for its token.
    await page.getByText("Your backups, restores and agents at a glance.").waitFor();
    expect(await page.getByRole("navigation", { name: "Main" }).getByRole("combobox", { name: "Organization" }).count()).toBe(0);
    const organizations = await env.server.call("GET", "/api/organizations", { token: await storedToken(page) });
    expect((organizations.body as { id: string; role: string }[]).map((organization) => [organization.id, organization.role])).toEqual([[team.id, "viewer"]]);
    const [nina] = await env.server.ctx.db.select().from(users).where(eq(users.email, "nina@acme.test"));
    const [membership] = await env.server.ctx.db
      .select()
      .from(memberships)
      .where(and(eq(memberships.organizationId, team.id), eq(memberships.userId, nina!.id)));
    expect(membership!.role).toBe("viewer");
    await env.screenshot(page, "sso-signed-in");
    await context.close();
  });

  test("a refusal comes back to the SSO page in words the user can act on", async () => {
    provider.addAccount({ email: "mallory@evil.test" });
    provider.signInNextAs("mallory@evil.test");
    const { context, page } = await env.openPage();
    await page.goto("/sso");
    await page.getByLabel("Work email address").fill("mal@acme.test");
    await page.getByRole("button", { name: "Continue with SSO" }).click();
    await eventually(
      () => page.getByRole("alert").innerText(),
      (text) => expect(text).toContain("mallory@evil.test is not in the e-mail domains this organization signs in with SSO"),
    );
    expect(new URL(page.url()).hash).toBe("");
    await env.screenshot(page, "sso-refused");
    await context.close();
  });
});

/** The session token the web app keeps for the signed-in user. */
async function storedToken(page: Page): Promise<string> {
  const stored = await page.evaluate(() => localStorage.getItem("dbvault.auth"));
  return (JSON.parse(stored ?? "{}") as { token: string }).token;
}

/** A member of the team's domain signs in through the provider (created on first sign-in), on the dashboard. */
async function signInWithSso(email: string, name: string) {
  provider.addAccount({ email, name });
  const opened = await env.openPage();
  await opened.page.goto("/sso");
  await opened.page.getByLabel("Work email address").fill(email);
  await opened.page.getByRole("button", { name: "Continue with SSO" }).click();
  await opened.page.waitForURL("**/dashboard");
  return opened;
}

describe("Confirm with SSO", () => {
  test("a member signed in by SSO (no password they know) confirms at the provider, then regenerates the API key", async () => {
    const { context, page } = await signInWithSso("rosa@acme.test", "Rosa Ready");
    // An SSO session acts in the team only: the team's API key is an admin's to regenerate.
    const [rosa] = await env.server.ctx.db.select().from(users).where(eq(users.email, "rosa@acme.test"));
    await env.server.ctx.db
      .update(memberships)
      .set({ role: "admin" })
      .where(and(eq(memberships.organizationId, team.id), eq(memberships.userId, rosa!.id)));
    await page.goto("/settings?tab=security");
    await page.getByRole("button", { name: "Regenerate API Key" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByRole("button", { name: "Confirm with SSO" }).click();
    // The provider signs her in afresh and the browser comes back to the page that asked (the
    // dialog goes with the page it was on: the address alone was the same before leaving).
    await dialog.waitFor({ state: "detached" });
    await page.waitForURL("**/settings?tab=security");
    await page.getByRole("button", { name: "Regenerate API Key" }).click();
    await eventually(
      () => dialog.innerText(),
      (text) => expect(text).toContain("You confirmed it is you with SSO"),
    );
    await env.screenshot(page, "sso-reauthenticated");
    await dialog.getByRole("button", { name: "Regenerate API Key" }).click();
    await eventually(
      () => page.getByTestId("toasts").innerText(),
      (text) => expect(text).toContain("API key regenerated"),
    );
    await context.close();
  });
});

describe("An SSO session and the account", () => {
  test("a member signed in by SSO cannot change the account's e-mail or password: those are the account's own", async () => {
    const { context, page } = await signInWithSso("pia@acme.test", "Pia Profile");
    const token = await storedToken(page);
    const email = await env.server.call("PUT", "/api/user/update", { token, body: { name: "Pia Profile", email: "pia.new@acme.test" } });
    expect([email.status, email.body.code]).toEqual([403, "SSO_SESSION"]);
    const password = await env.server.call("PUT", "/api/user/password", { token, body: { newPassword: "pia's own passphrase" } });
    expect([password.status, password.body.code]).toEqual([403, "SSO_SESSION"]);
    const [pia] = await env.server.ctx.db.select().from(users).where(eq(users.email, "pia@acme.test"));
    expect(pia!.email).toBe("pia@acme.test");

    // Profile offers her no form the server would refuse: it says who manages the account instead.
    for (const viewport of [{ width: 1280, height: 900 }, PHONE]) {
      await page.setViewportSize(viewport);
      await page.goto("/profile");
      const notice = page.getByTestId("sso-managed-notice");
      await notice.getByText("Your account is managed by your organization's single sign-on in this session").waitFor();
      expect(await notice.innerText()).toContain("your name and e-mail address cannot be changed here");
      await page.getByText("pia@acme.test").waitFor();
      expect(await page.getByLabel("Email address").count()).toBe(0);
      expect(await page.getByRole("button", { name: "Save Changes" }).count()).toBe(0);
      await page.getByRole("tab", { name: "Security" }).click();
      await notice.getByText("your password and two-factor sign-in cannot be changed here").waitFor();
      expect(await page.getByRole("heading", { name: "Change Password" }).count()).toBe(0);
      expect(await page.getByLabel("New password").count()).toBe(0);
      expect(await page.getByRole("button", { name: "Update Password" }).count()).toBe(0);
      expect(await page.getByLabel("Also revoke every API token").count()).toBe(0);
      expect(await findOverflow(page)).toBeNull();
      await env.screenshot(page, `sso-profile-security-${viewport.width}`);
    }
    // Sign out everywhere, which the server would refuse with the tokens' revocation, goes through.
    await page.getByRole("button", { name: "Sign out everywhere" }).click();
    await page.waitForURL("**/login");
    await context.close();
  });

  test("a password session of the same kind of member still has the forms", async () => {
    const { context, page } = await env.openPage();
    await signIn(page, owner);
    await page.goto("/profile");
    await page.getByLabel("Email address").waitFor();
    expect(await page.getByTestId("sso-managed-notice").count()).toBe(0);
    await page.getByRole("tab", { name: "Security" }).click();
    await page.getByRole("heading", { name: "Change Password" }).waitFor();
    await context.close();
  });
});

describe("Settings → SSO", () => {
  test("an owner of the team sees the connection, the redirect URI to register, and no secret", async () => {
    const { context, page } = await env.openPage();
    // What the organization switcher will send: the team chosen (another part of issue 30).
    await context.setExtraHTTPHeaders({ "X-Organization-Id": team.id });
    await page.goto("/login");
    await page.getByLabel("Email address").fill(owner.email);
    await page.getByLabel("Password", { exact: true }).fill(owner.password);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL("**/dashboard");
    await page.goto("/settings?tab=sso");
    await page.getByRole("heading", { name: "Single sign-on (OpenID Connect)" }).waitFor();
    await eventually(
      () => page.getByTestId("sso-redirect-uri").innerText(),
      (text) => expect(text).toBe(`${env.baseUrl}/api/auth/sso/callback`),
    );
    expect(await page.getByLabel("Issuer URL").inputValue()).toBe(provider.issuer);
    expect(await page.getByLabel("Client secret").inputValue()).toBe("");
    await page.getByLabel("Allowed e-mail domains").fill("acme.test, acme-labs.test");
    await page.getByRole("button", { name: "Save" }).click();
    await eventually(
      () => page.getByTestId("toasts").innerText(),
      (text) => expect(text).toContain("Single sign-on saved"),
    );
    await env.screenshot(page, "sso-settings");
    await context.close();
  });

  test("a one-person account's settings keep their five tabs, and nothing is refused", async () => {
    const solo = await env.server.registerUser({ name: "Solo User" });
    const { context, page } = await env.openPage();
    const refused: string[] = [];
    page.on("response", (response) => {
      if (response.url().includes("/api/") && response.status() >= 400) refused.push(`${response.status()} ${response.url()}`);
    });
    await signIn(page, solo);
    await page.goto("/settings?tab=sso");
    await page.getByRole("tab", { name: "General", selected: true }).waitFor();
    await eventually(
      () => page.getByRole("tab").allInnerTexts(),
      (tabs) => expect(tabs).toEqual(["General", "Agents", "Databases", "Security", "Notifications"]),
    );
    expect(refused).toEqual([]);
    await context.close();
  });
});
