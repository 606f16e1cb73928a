// Issue 41's single sign-on attacks, played against a real OpenID Connect provider (testkit) and a
// real DNS server on loopback: a team owner runs the provider and lists her members' e-mail
// domain. Her provider must sign nobody in for a domain she has not proved; where the domain is
// proved, its session reaches her organization only, never the member's account, personal
// organization or other teams; an account with two-factor sign-in is not signed in by a provider
// it did not link; an account SSO created does not merge with the real person who resets it.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { memberships, passwordResetTokens, users } from "@db/schema";
import { startTestDnsServer, type TestDnsServer } from "../../testkit/dns-server";
import { startTestOidcProvider, type TestOidcProvider } from "../../testkit/oidc-provider";
import { totpCode } from "../../testkit/totp";
import { waitUntil } from "../../testkit/wait-until";
import { hashLinkToken, SSO_CREATED_RESET_MESSAGE } from "../src/modules/auth/service";
import { createTeamOrganization } from "../src/modules/organizations/create-team";
import { LINK_IT_YOURSELF_MESSAGE, NO_SSO_FOR_DOMAIN_MESSAGE } from "../src/modules/sso/sign-in";
import { type StoppedClock, startTestServer, stopServerClock, type TestServer, type TestUser } from "./harness";

const PUBLIC_URL = "http://dbvault.test";

let server: TestServer;
let clock: StoppedClock;
let provider: TestOidcProvider;
let dns: TestDnsServer;
let mallory: TestUser;
let bob: TestUser;
let evil: { id: string };
let bobsTeam: { id: string };
const asMallory = () => ({ token: mallory.token, headers: { "X-Organization-Id": evil.id } });

/** "Sign in with SSO" as a browser makes it; answers the session or the error the /sso page shows. */
async function signInWithSso(email: string) {
  const started = await server.call("POST", "/api/auth/sso/start", { body: { email } });
  if (started.status !== 200) return { error: started.body.message as string, status: started.status };
  const stateCookie = started.headers.get("set-cookie")!.split(";")[0]!;
  const callbackUrl = await provider.followSignIn(started.body.url);
  const landed = await server.call("GET", `${callbackUrl.pathname}${callbackUrl.search}`, { headers: { cookie: stateCookie } });
  const fragment = new URLSearchParams(new URL(landed.headers.get("location")!).hash.slice(1));
  if (!fragment.get("code")) return { error: fragment.get("error"), status: 303 };
  const exchanged = await server.call("POST", "/api/auth/sso/exchange", { body: { code: fragment.get("code") }, headers: { cookie: stateCookie } });
  expect(exchanged.status).toBe(200);
  return { session: exchanged.body as { token: string; user: { id: string } } };
}

/** Mallory's organization proves corp.test (here: a server admin vouches, as on a self-hosted server). */
async function proveCorpForEvil() {
  const admin = await server.registerUser({ email: "root@dbvault.test" });
  await server.ctx.db.update(users).set({ role: "admin" }).where(eq(users.id, admin.id));
  const proved = await server.call("POST", `/api/admin/organizations/${evil.id}/sso-domains`, { token: admin.token, body: { domain: "corp.test" } });
  expect([proved.status, proved.body.verifiedDomains]).toEqual([200, ["corp.test"]]);
}

beforeAll(async () => {
  dns = await startTestDnsServer();
  server = await startTestServer({ PUBLIC_URL, SSO_DNS_RESOLVER: dns.address, SSO_ALLOW_PRIVATE: "true" });
  clock = stopServerClock(server);
  provider = await startTestOidcProvider({ redirectUris: [`${PUBLIC_URL}/api/auth/sso/callback`] });
  mallory = await server.registerUser({ email: "mallory@evil.test" });
  evil = (await createTeamOrganization(server.ctx, { name: "Evil", ownerId: mallory.id })).organization;
  bob = await server.registerUser({ email: "bob@corp.test" });
  bobsTeam = (await createTeamOrganization(server.ctx, { name: "Bob's team", ownerId: bob.id })).organization;
  // Bob joined Mallory's team (as a viewer): she is a hostile owner of a team he shares.
  await server.ctx.db.insert(memberships).values({ organizationId: evil.id, userId: bob.id, role: "viewer" });
  const saved = await server.call("PUT", "/api/organizations/current/sso/", {
    ...asMallory(),
    body: {
      issuer: provider.issuer,
      clientId: provider.clientId,
      clientSecret: provider.clientSecret,
      allowedDomains: ["corp.test"],
      defaultRole: "viewer",
      ssoRequired: false,
    },
  });
  expect(saved.status).toBe(200);
  provider.addAccount({ email: bob.email });
}, 60_000);
afterAll(async () => {
  dns?.stop();
  await provider?.stop().catch(() => {});
  await server?.close();
});
beforeEach(() => clock.move(60 * 60 * 1000));

describe("a domain claimed, not proved", () => {
  test("signs nobody in: Mallory's provider vouching for bob@corp.test gets no session", async () => {
    const attempt = await signInWithSso(bob.email);
    expect(attempt.session).toBeUndefined();
    expect([attempt.status, attempt.error]).toEqual([404, NO_SSO_FOR_DOMAIN_MESSAGE]);
  });

  test("is proved only by the TXT record in DNS, and blocks nobody else's claim", async () => {
    const missing = await server.call("POST", "/api/organizations/current/sso/domains/verify", { ...asMallory(), body: { domain: "corp.test" } });
    expect(missing.status).toBe(400);
    expect(missing.body.message).toContain("_dbvault-verify.corp.test");
    // A record with another value (another organization's) proves nothing.
    dns.addTxt("_dbvault-verify.corp.test", "dbvault-verify=someone-else");
    expect((await server.call("POST", "/api/organizations/current/sso/domains/verify", { ...asMallory(), body: { domain: "corp.test" } })).status).toBe(400);
    // Bob's own team may list the same domain: Mallory's claim does not take it.
    const bobsClaim = await server.call("PUT", "/api/organizations/current/sso/", {
      token: bob.token,
      headers: { "X-Organization-Id": bobsTeam.id },
      body: {
        issuer: provider.issuer,
        clientId: provider.clientId,
        clientSecret: provider.clientSecret,
        allowedDomains: ["corp.test"],
        defaultRole: "viewer",
        ssoRequired: false,
      },
    });
    expect(bobsClaim.status).toBe(200);
    await server.call("DELETE", "/api/organizations/current/sso/", { token: bob.token, headers: { "X-Organization-Id": bobsTeam.id } });
  });
});

describe("a proved domain's session", () => {
  let session: { token: string; user: { id: string } };
  beforeAll(async () => {
    await proveCorpForEvil();
    const signedIn = await signInWithSso(bob.email);
    expect(signedIn.session?.user.id).toBe(bob.id);
    session = signedIn.session!;
  });

  const call = (method: string, path: string, options: { organization?: string; body?: unknown } = {}) =>
    server.call(method, path, { token: session.token, headers: options.organization ? { "X-Organization-Id": options.organization } : {}, body: options.body });

  test("reaches Mallory's organization only: not Bob's personal organization, nor his own team, nor their API keys", async () => {
    const list = await call("GET", "/api/organizations/");
    expect(list.body.map((organization: { id: string }) => organization.id)).toEqual([evil.id]);
    expect((await call("GET", "/api/organizations/current")).body.id).toBe(evil.id);
    for (const organization of [bob.id, bobsTeam.id]) {
      const settings = await call("GET", "/api/settings/", { organization });
      expect([settings.status, settings.body.code]).toEqual([403, "SSO_SESSION"]);
      const profile = await call("GET", "/api/user/profile", { organization });
      expect(profile.status).toBe(403);
    }
  });

  test("changes nothing of Bob's account, even after confirming through the same provider", async () => {
    const start = await call("POST", "/api/auth/reauthenticate/sso/start");
    expect(start.status).toBe(200);
    const stateCookie = start.headers.get("set-cookie")!.split(";")[0]!;
    const callbackUrl = await provider.followSignIn(start.body.url);
    const landed = await server.call("GET", `${callbackUrl.pathname}${callbackUrl.search}`, { headers: { cookie: stateCookie } });
    const code = new URLSearchParams(new URL(landed.headers.get("location")!).hash.slice(1)).get("reauthentication");
    const confirmed = await call("POST", "/api/auth/reauthenticate/sso", { body: { code } });
    expect(confirmed.status).toBe(200);
    const stamped = confirmed.body.token as string;
    const as = (method: string, path: string, body?: unknown) => server.call(method, path, { token: stamped, body });
    expect((await as("PUT", "/api/user/update", { email: "mallory+bob@evil.test" })).body.code).toBe("SSO_SESSION");
    expect((await as("PUT", "/api/user/password", { newPassword: "mallory owns this now" })).body.code).toBe("SSO_SESSION");
    expect((await as("POST", "/api/auth/two-factor/setup", { password: "x" })).body.code).toBe("SSO_SESSION");
    expect((await as("POST", "/api/organizations/", { name: "Elsewhere" })).body.code).toBe("SSO_SESSION");
    // The confirmation keeps the session's scope: Bob's personal organization stays out of reach.
    expect((await server.call("GET", "/api/settings/", { token: stamped, headers: { "X-Organization-Id": bob.id } })).status).toBe(403);
    const [row] = await server.ctx.db.select().from(users).where(eq(users.id, bob.id));
    expect(row!.email).toBe(bob.email);
    const login = await server.call("POST", "/api/auth/login", { body: { email: bob.email, password: bob.password } });
    expect(login.status).toBe(200);
  });

  test("a confirmation through Mallory's provider counts in her organization only, never for Bob's password", async () => {
    // Bob, signed in with his password, confirms through the provider of Mallory's team.
    const start = await server.call("POST", "/api/auth/reauthenticate/sso/start", { token: bob.token });
    expect(start.status).toBe(200);
    const stateCookie = start.headers.get("set-cookie")!.split(";")[0]!;
    const callbackUrl = await provider.followSignIn(start.body.url);
    const landed = await server.call("GET", `${callbackUrl.pathname}${callbackUrl.search}`, { headers: { cookie: stateCookie } });
    const code = new URLSearchParams(new URL(landed.headers.get("location")!).hash.slice(1)).get("reauthentication");
    const confirmed = await server.call("POST", "/api/auth/reauthenticate/sso", { token: bob.token, body: { code } });
    expect(confirmed.status).toBe(200);
    const password = await server.call("PUT", "/api/user/password", { token: confirmed.body.token, body: { newPassword: "changed by the provider" } });
    expect([password.status, password.body.code]).toEqual([403, "REAUTHENTICATION_REQUIRED"]);
    const tokenHere = await server.call("POST", "/api/user/api-tokens", {
      token: confirmed.body.token,
      headers: { "X-Organization-Id": evil.id },
      body: { name: "ci", scopes: ["read"], expiresInDays: 7 },
    });
    expect(tokenHere.status).toBe(201);
    const tokenInPersonal = await server.call("POST", "/api/user/api-tokens", {
      token: confirmed.body.token,
      body: { name: "ci", scopes: ["read"], expiresInDays: 7 },
    });
    expect([tokenInPersonal.status, tokenInPersonal.body.code]).toEqual([403, "REAUTHENTICATION_REQUIRED"]);
  });

  test("an account with a password and two-factor sign-in is not signed in by a provider it did not link", async () => {
    const tina = await server.registerUser({ email: "tina@corp.test" });
    await server.ctx.db.insert(memberships).values({ organizationId: evil.id, userId: tina.id, role: "viewer" });
    const setup = await server.call("POST", "/api/auth/two-factor/setup", { token: tina.token, body: { password: tina.password } });
    const enabled = await server.call("POST", "/api/auth/two-factor/enable", { token: tina.token, body: { code: totpCode(setup.body.secret, clock.now()) } });
    expect(enabled.status).toBe(200);
    provider.addAccount({ email: tina.email });
    const attempt = await signInWithSso(tina.email);
    expect(attempt.session).toBeUndefined();
    expect(attempt.error).toBe(LINK_IT_YOURSELF_MESSAGE);
    // Tina links it herself: signed in with password and code, she confirms through the provider.
    const start = await server.call("POST", "/api/auth/reauthenticate/sso/start", { token: enabled.body.token });
    expect(start.status).toBe(200);
    const stateCookie = start.headers.get("set-cookie")!.split(";")[0]!;
    const callbackUrl = await provider.followSignIn(start.body.url);
    await server.call("GET", `${callbackUrl.pathname}${callbackUrl.search}`, { headers: { cookie: stateCookie } });
    const [linked] = await server.ctx.db.select().from(users).where(eq(users.id, tina.id));
    expect([linked!.ssoOrganizationId, linked!.ssoLink]).toEqual([evil.id, "confirmed"]);
    const afterLinking = await signInWithSso(tina.email);
    expect(afterLinking.session?.user.id).toBe(tina.id);
  });

  test("an invitation the account accepts links it to the organization that proved its domain", async () => {
    const ivan = await server.registerUser({ email: "ivan@corp.test" });
    const invited = await server.call("POST", "/api/organizations/current/invitations", { ...asMallory(), body: { email: ivan.email, role: "viewer" } });
    expect(invited.status).toBe(201);
    const mail = await waitUntil(() => server.sentMail.find((sent) => sent.to === ivan.email && sent.text.includes("/invite/")), { message: "the invitation" });
    const invitationToken = mail.text.match(/\/invite\/([A-Za-z0-9_-]+)/)![1]!;
    expect((await server.call("POST", `/api/invitations/${invitationToken}/accept`, { token: ivan.token })).status).toBe(200);
    const [row] = await server.ctx.db.select().from(users).where(eq(users.id, ivan.id));
    expect([row!.ssoOrganizationId, row!.ssoLink]).toEqual([evil.id, "invitation"]);
  });

  test("an account SSO created before its owner came is cut loose by a password reset, and the provider does not get it back", async () => {
    provider.addAccount({ email: "ceo@corp.test" });
    const squatted = await signInWithSso("ceo@corp.test");
    const ceoId = squatted.session!.user.id;
    const token = "reset-token-of-the-real-ceo";
    await server.ctx.db.insert(passwordResetTokens).values({ userId: ceoId, tokenHash: hashLinkToken(token), expiresAt: new Date(clock.now() + 60_000) });
    const reset = await server.call("POST", `/api/auth/reset-password/${token}`, { body: { password: "the real ceo's passphrase" } });
    expect(reset.status).toBe(200);
    expect(reset.body.message).toContain(SSO_CREATED_RESET_MESSAGE);
    const [row] = await server.ctx.db.select().from(users).where(eq(users.id, ceoId));
    expect([row!.ssoOrganizationId, row!.ssoLink]).toEqual([null, "cut"]);
    // The squatter's session ended with the reset, and her provider signs the account in no more.
    expect((await server.call("GET", "/api/user/profile", { token: squatted.session!.token })).status).toBe(401);
    const again = await signInWithSso("ceo@corp.test");
    expect(again.session).toBeUndefined();
    expect(again.error).toBe(LINK_IT_YOURSELF_MESSAGE);
  });
});
