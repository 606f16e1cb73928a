// Single sign-on against a real OpenID Connect provider (panva's oidc-provider, certified) on
// loopback: the owner's settings, the sign-in a member makes, and the attacks the callback must
// refuse (forged, expired or misdirected ID tokens, a replayed state, e-mails the organization
// does not own or the provider did not verify), "SSO required" with its break-glass, and a
// provider that is down.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { decodeJwt } from "jose";
import { auditLogs, memberships, ssoConnections, users } from "@db/schema";
import { startTestDnsServer, type TestDnsServer } from "../../testkit/dns-server";
import { startTestOidcProvider, type TestOidcProvider } from "../../testkit/oidc-provider";
import { totpCode } from "../../testkit/totp";
import { SSO_STARTS_PER_ADDRESS } from "../src/modules/auth/throttle";
import { BREAK_GLASS_MESSAGE } from "../src/modules/sso/connections";
import { createTeamOrganization } from "../src/modules/organizations/create-team";
import { LAST_BREAK_GLASS_MESSAGE, NO_BREAK_GLASS_LEFT_MESSAGE, SSO_REQUIRED_MESSAGE } from "../src/modules/organizations/sso-required";
import { PROVIDER_CACHE_TTL_MS } from "../src/modules/sso/provider-cache";
import { PROVIDER_DOWN_MESSAGE, SIGN_IN_REFUSED_MESSAGE } from "../src/modules/sso/provider-client";
import { NO_SSO_FOR_DOMAIN_MESSAGE, OTHER_BROWSER_MESSAGE, REAUTHENTICATION_REFUSED_MESSAGE, USED_SIGN_IN_MESSAGE } from "../src/modules/sso/sign-in";
import { NO_SSO_TO_CONFIRM_MESSAGE, SSO_CONFIRMATION_USED_MESSAGE } from "../src/modules/sso/reauthentication";
import { type StoppedClock, startTestServer, stopServerClock, type TestServer, type TestUser } from "./harness";

const PUBLIC_URL = "http://dbvault.test";
const REDIRECT_URI = `${PUBLIC_URL}/api/auth/sso/callback`;

let server: TestServer;
let clock: StoppedClock;
let provider: TestOidcProvider;
let dns: TestDnsServer;
let owner: TestUser;
let acme: { id: string };
const ownerHeaders = () => ({ "X-Organization-Id": acme.id });

/** A team organization with `founder` as its owner. */
async function createTeam(name: string, founder: TestUser) {
  return (await createTeamOrganization(server.ctx, { name, ownerId: founder.id })).organization;
}

const connectionInput = (changes: Record<string, unknown> = {}) => ({
  issuer: provider.issuer,
  clientId: provider.clientId,
  clientSecret: provider.clientSecret,
  allowedDomains: ["acme.test"],
  defaultRole: "operator",
  ssoRequired: false,
  ...changes,
});

const saveConnection = (changes: Record<string, unknown> = {}, token = owner.token, headers: Record<string, string> = ownerHeaders()) =>
  server.call("PUT", "/api/organizations/current/sso/", { token, headers, body: connectionInput(changes) });

/** What the browser lands on after the callback: the /sso page with a code or an error in its fragment. */
async function callBack(callbackUrl: URL, stateCookie: string | null) {
  const res = await server.call("GET", `${callbackUrl.pathname}${callbackUrl.search}`, { headers: stateCookie ? { cookie: stateCookie } : {} });
  expect(res.status).toBe(303);
  const location = new URL(res.headers.get("location")!);
  // The state cookie is spent by the callback, unless it handed out a sign-in's code: the exchange checks it then.
  if (!location.hash.startsWith("#code=")) expect(res.headers.get("set-cookie")).toStartWith("dbvault_sso_state=; Path=/api/auth/sso; Max-Age=0;");
  expect(`${location.origin}${location.pathname}${location.search}`).toBe(`${PUBLIC_URL}/sso`);
  const fragment = new URLSearchParams(location.hash.slice(1));
  return { code: fragment.get("code"), error: fragment.get("error"), reauthentication: fragment.get("reauthentication") };
}

/** The start of a sign-in: the provider's URL, and the state cookie the browser keeps for the callback. */
async function startSso(email: string) {
  const started = await server.call("POST", "/api/auth/sso/start", { body: { email } });
  expect(started.status).toBe(200);
  const setCookie = started.headers.get("set-cookie")!;
  expect(setCookie).toContain("HttpOnly; SameSite=Lax");
  return { url: started.body.url as string, stateCookie: setCookie.split(";")[0]! };
}

/** "Sign in with SSO" as the browser makes it: start, the provider's sign-in, the callback, the exchange. */
async function signInWithSso(email: string) {
  const { url, stateCookie } = await startSso(email);
  const callbackUrl = await provider.followSignIn(url);
  const landed = await callBack(callbackUrl, stateCookie);
  if (!landed.code) return { error: landed.error, callbackUrl, stateCookie };
  const exchanged = await server.call("POST", "/api/auth/sso/exchange", { body: { code: landed.code }, headers: { cookie: stateCookie } });
  expect(exchanged.status).toBe(200);
  return { session: exchanged.body, callbackUrl, stateCookie, code: landed.code };
}

const membershipOf = async (email: string) => {
  const [user] = await server.ctx.db.select().from(users).where(eq(users.email, email));
  if (!user) return null;
  const [membership] = await server.ctx.db
    .select()
    .from(memberships)
    .where(and(eq(memberships.organizationId, acme.id), eq(memberships.userId, user.id)));
  return membership?.role ?? "not a member";
};

beforeAll(async () => {
  dns = await startTestDnsServer();
  server = await startTestServer({ PUBLIC_URL, SSO_DNS_RESOLVER: dns.address, SSO_ALLOW_PRIVATE: "true" });
  clock = stopServerClock(server);
  provider = await startTestOidcProvider({ redirectUris: [REDIRECT_URI] });
  owner = await server.registerUser({ name: "Olivia Owner", email: "olivia@acme.test" });
  acme = await createTeam("Acme", owner);
  provider.addAccount({ email: owner.email });
  const saved = await saveConnection();
  if (saved.status !== 200) throw new Error(`connection not saved: ${JSON.stringify(saved.body)}`);
  // Acme proves it owns acme.test: the TXT record Settings → SSO names, found through DNS.
  dns.addTxt("_dbvault-verify.acme.test", saved.body.domainRecord.value);
  const proved = await server.call("POST", "/api/organizations/current/sso/domains/verify", {
    token: owner.token,
    headers: ownerHeaders(),
    body: { domain: "acme.test" },
  });
  if (proved.status !== 200) throw new Error(`domain not proved: ${JSON.stringify(proved.body)}`);
}, 60_000);
afterAll(async () => {
  dns?.stop();
  await provider?.stop().catch(() => {});
  await server?.close();
});
// Past the sign-in throttle's window: each test starts with clean counters.
beforeEach(() => clock.move(60 * 60 * 1000));

describe("Settings → SSO (owners)", () => {
  test("the owner reads the connection back without its client secret, with the redirect URI to register", async () => {
    const res = await server.call("GET", "/api/organizations/current/sso/", { token: owner.token, headers: ownerHeaders() });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      available: true,
      configured: true,
      issuer: provider.issuer,
      clientId: provider.clientId,
      clientSecretSet: true,
      allowedDomains: ["acme.test"],
      defaultRole: "operator",
      ssoRequired: false,
      redirectUri: REDIRECT_URI,
    });
    expect(JSON.stringify(res.body)).not.toContain(provider.clientSecret);
    const [audit] = await server.ctx.db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.organizationId, acme.id), eq(auditLogs.actorId, owner.id), eq(auditLogs.action, "SSO_CONFIGURED")));
    expect(audit!.details).toMatchObject({ organizationId: acme.id, issuer: provider.issuer, allowedDomains: ["acme.test"], secretChanged: true });
    expect(JSON.stringify(audit!.details)).not.toContain(provider.clientSecret);
    const [row] = await server.ctx.db.select().from(ssoConnections).where(eq(ssoConnections.organizationId, acme.id));
    expect(row!.clientSecretCiphertext).not.toContain(provider.clientSecret);
  });

  test("an admin of the organization may not change it, nor anyone in their personal organization", async () => {
    const admin = await server.registerUser({ email: "adam@acme.test" });
    await server.ctx.db.insert(memberships).values({ organizationId: acme.id, userId: admin.id, role: "admin" });
    const asAdmin = await saveConnection({ ssoRequired: true }, admin.token, { "X-Organization-Id": acme.id });
    expect([asAdmin.status, asAdmin.body.code, asAdmin.body.requiredRole]).toEqual([403, "ROLE", "owner"]);
    const personal = await saveConnection({ allowedDomains: ["adam.test"] }, admin.token, {});
    expect(personal.status).toBe(400);
    expect(personal.body.message).toContain("team organizations");
    // The settings page asks on every visit: a personal organization's owner is told, not refused.
    const personalRead = await server.call("GET", "/api/organizations/current/sso/", { token: admin.token });
    expect([personalRead.status, personalRead.body.available, personalRead.body.configured]).toEqual([200, false, false]);
    const adminRead = await server.call("GET", "/api/organizations/current/sso/", { token: admin.token, headers: { "X-Organization-Id": acme.id } });
    expect(adminRead.status).toBe(403);
    const removed = await server.call("DELETE", "/api/organizations/current/sso/", { token: admin.token, headers: { "X-Organization-Id": acme.id } });
    expect(removed.status).toBe(403);
  });

  test("an issuer that does not answer, or is not an OpenID Connect provider, is refused with what to check", async () => {
    const down = await saveConnection({ issuer: "http://127.0.0.1:9" });
    expect([down.status, down.body.message]).toEqual([502, PROVIDER_DOWN_MESSAGE]);
    const notOidc = await saveConnection({ issuer: `${server.listen()}/not-a-provider` });
    expect(notOidc.status).toBe(400);
    expect(notOidc.body.message).toContain("No OpenID Connect provider answers at");
    const plainHttp = await saveConnection({ issuer: "http://login.example.com" });
    expect(plainHttp.status).toBe(400);
    expect(plainHttp.body.message).toContain("https://");
    const badDomain = await saveConnection({ allowedDomains: ["not a domain"] });
    expect(badDomain.status).toBe(400);
  });

  test("SSO required is refused while no owner has two-factor sign-in (the break-glass)", async () => {
    const res = await saveConnection({ ssoRequired: true });
    expect([res.status, res.body.message]).toEqual([400, BREAK_GLASS_MESSAGE]);
  });

  test("a domain another organization signs in with is refused", async () => {
    const rival = await server.registerUser({ email: "rita@rival.test" });
    const rivalTeam = await createTeam("Rival", rival);
    const res = await saveConnection({ allowedDomains: ["rival.test", "acme.test"] }, rival.token, { "X-Organization-Id": rivalTeam.id });
    expect(res.status).toBe(409);
    expect(res.body.message).toContain("acme.test");
  });
});

describe("signing in with SSO", () => {
  test("a new person of an allowed domain becomes a member with the default role, signed in for at most 12 hours", async () => {
    provider.addAccount({ email: "nina@acme.test", name: "Nina New" });
    const { session } = await signInWithSso("nina@acme.test");
    expect(session.user.email).toBe("nina@acme.test");
    expect(session.organizationId).toBe(acme.id);
    expect(await membershipOf("nina@acme.test")).toBe("operator");
    const profile = await server.call("GET", "/api/user/profile", { token: session.token, headers: { "X-Organization-Id": acme.id } });
    expect(profile.status).toBe(200);
    const [audit] = await server.ctx.db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.organizationId, acme.id), eq(auditLogs.actorId, session.user.id), eq(auditLogs.action, "SSO_SIGNED_IN")));
    expect(audit!.details).toEqual({ organizationId: acme.id, issuer: provider.issuer, joinedAs: "operator" });
    const claims = decodeJwt(session.token);
    expect(claims.exp! - claims.iat!).toBe(12 * 3600);
    // The account has no password anyone knows.
    const guessed = await server.call("POST", "/api/auth/login", { body: { email: "nina@acme.test", password: "secret123" } });
    expect(guessed.status).toBe(401);
  });

  test("an existing member signs in to their own account", async () => {
    const { session } = await signInWithSso(owner.email);
    expect(session.user.id).toBe(owner.id);
    expect(await membershipOf(owner.email)).toBe("owner");
  });

  test("an existing account that never joined the organization is not signed in by its provider", async () => {
    const outsider = await server.registerUser({ email: "otto@acme.test" });
    provider.addAccount({ email: outsider.email });
    const { error } = await signInWithSso(outsider.email);
    expect(error).toContain("already exists and is not a member of this organization");
    expect(await membershipOf(outsider.email)).toBe("not a member");
  });

  test("the one-time code gives one session only", async () => {
    provider.addAccount({ email: "carl@acme.test" });
    const { code, stateCookie } = await signInWithSso("carl@acme.test");
    const again = await server.call("POST", "/api/auth/sso/exchange", { body: { code }, headers: { cookie: stateCookie! } });
    expect([again.status, again.body.message]).toEqual([400, USED_SIGN_IN_MESSAGE]);
  });

  test("starts from one address are limited, so the provider is not hammered through DBVault", async () => {
    const starts = [];
    for (let i = 0; i <= SSO_STARTS_PER_ADDRESS; i++)
      starts.push((await server.call("POST", "/api/auth/sso/start", { body: { email: "nina@acme.test" } })).status);
    expect(starts.filter((status) => status === 200).length).toBe(SSO_STARTS_PER_ADDRESS);
    expect(starts.at(-1)).toBe(429);
  });

  test("an e-mail of a domain no organization signs in with is told so", async () => {
    const res = await server.call("POST", "/api/auth/sso/start", { body: { email: "someone@elsewhere.test" } });
    expect([res.status, res.body.message]).toEqual([404, NO_SSO_FOR_DOMAIN_MESSAGE]);
  });
});

describe("the provider's configuration", () => {
  const DISCOVERY = "/.well-known/openid-configuration";

  test("is discovered once per ten minutes, not on every start and callback", async () => {
    provider.addAccount({ email: "dora@acme.test" });
    const before = provider.requestsTo(DISCOVERY);
    expect((await signInWithSso("dora@acme.test")).session).toBeDefined();
    expect((await signInWithSso("dora@acme.test")).session).toBeDefined();
    expect(provider.requestsTo(DISCOVERY) - before).toBe(1);
    clock.move(PROVIDER_CACHE_TTL_MS + 1000);
    expect((await signInWithSso("dora@acme.test")).session).toBeDefined();
    expect(provider.requestsTo(DISCOVERY) - before).toBe(2);
  });

  test("after the provider rotates its signing key, members still sign in: a refusal drops the cached configuration", async () => {
    provider.addAccount({ email: "kira@acme.test" });
    expect((await signInWithSso("kira@acme.test")).session).toBeDefined();
    await provider.rotateSigningKey();
    // openid-client refetches the JWKS for an unknown kid only once its copy is a minute old: a
    // sign-in right after may be refused, the next one (with the configuration and keys fetched
    // afresh) must pass.
    provider.replaceNextIdToken((issued) => provider.mintIdToken(issued, {}));
    const first = await signInWithSso("kira@acme.test");
    if (first.error) {
      expect(first.error).toBe(SIGN_IN_REFUSED_MESSAGE);
      provider.replaceNextIdToken((issued) => provider.mintIdToken(issued, {}));
      const again = await signInWithSso("kira@acme.test");
      expect(again.session.user.email).toBe("kira@acme.test");
    }
  });
});

describe("confirming it is you through SSO (re-authentication)", () => {
  /** "Confirm with SSO" as the browser makes it: the start, a fresh sign-in at the provider, the callback. */
  async function confirmWithSso(token: string) {
    const started = await server.call("POST", "/api/auth/reauthenticate/sso/start", { token });
    expect(started.status).toBe(200);
    const url = new URL(started.body.url);
    expect([url.searchParams.get("prompt"), url.searchParams.get("max_age")]).toEqual(["login", "0"]);
    const stateCookie = started.headers.get("set-cookie")!.split(";")[0]!;
    return callBack(await provider.followSignIn(url.href), stateCookie);
  }

  const ssoMember = async (email: string) => {
    provider.addAccount({ email });
    const { session } = await signInWithSso(email);
    return session as { token: string; user: { id: string } };
  };

  test("a member created by SSO (no password they know) confirms at the provider and makes the security change", async () => {
    const session = await ssoMember("rita@acme.test");
    const tokenInput = { name: "ci", scopes: ["read"], expiresInDays: 30 };
    const refused = await server.call("POST", "/api/user/api-tokens", { token: session.token, body: tokenInput });
    expect([refused.status, refused.body.code, refused.body.ssoAvailable]).toEqual([403, "REAUTHENTICATION_REQUIRED", true]);
    expect(refused.body.message).toBe("Please confirm it is you: enter your password, or confirm with SSO.");
    const landed = await confirmWithSso(session.token);
    expect(landed.error).toBeNull();
    const confirmed = await server.call("POST", "/api/auth/reauthenticate/sso", { token: session.token, body: { code: landed.reauthentication } });
    expect(confirmed.status).toBe(200);
    const created = await server.call("POST", "/api/user/api-tokens", { token: confirmed.body.token, body: tokenInput });
    expect([created.status, created.body.scopes]).toEqual([201, ["read"]]);
    // Once only.
    const again = await server.call("POST", "/api/auth/reauthenticate/sso", { token: session.token, body: { code: landed.reauthentication } });
    expect([again.status, again.body.message]).toEqual([400, SSO_CONFIRMATION_USED_MESSAGE]);
  });

  test("a member created by SSO, even confirmed at the provider, changes neither e-mail nor password: the session reaches the organization only", async () => {
    const session = await ssoMember("ursula@acme.test");
    const unconfirmed = await server.call("PUT", "/api/user/password", { token: session.token, body: { newPassword: "a new passphrase 1" } });
    expect([unconfirmed.status, unconfirmed.body.code]).toEqual([403, "SSO_SESSION"]);
    const landed = await confirmWithSso(session.token);
    const confirmed = await server.call("POST", "/api/auth/reauthenticate/sso", { token: session.token, body: { code: landed.reauthentication } });
    expect(confirmed.status).toBe(200);
    const email = await server.call("PUT", "/api/user/update", { token: confirmed.body.token, body: { email: "ursula.new@acme.test" } });
    expect([email.status, email.body.code]).toEqual([403, "SSO_SESSION"]);
    const password = await server.call("PUT", "/api/user/password", { token: confirmed.body.token, body: { newPassword: "a new passphrase 1" } });
    expect([password.status, password.body.code]).toEqual([403, "SSO_SESSION"]);
    // A password of their own comes by "Forgot password", which cuts the SSO link.
    const signedIn = await server.call("POST", "/api/auth/login", { body: { email: "ursula@acme.test", password: "a new passphrase 1" } });
    expect(signedIn.status).toBe(401);
  });

  test("a confirmation's code opens no session, and another member cannot spend it", async () => {
    const session = await ssoMember("sam@acme.test");
    const other = await ssoMember("tess@acme.test");
    const landed = await confirmWithSso(session.token);
    const asSignIn = await server.call("POST", "/api/auth/sso/exchange", {
      body: { code: landed.reauthentication },
      headers: { cookie: "dbvault_sso_state=x" },
    });
    expect([asSignIn.status, asSignIn.body.message]).toEqual([400, USED_SIGN_IN_MESSAGE]);
    const byOther = await server.call("POST", "/api/auth/reauthenticate/sso", { token: other.token, body: { code: landed.reauthentication } });
    expect([byOther.status, byOther.body.message]).toEqual([400, SSO_CONFIRMATION_USED_MESSAGE]);
  });

  test("the provider vouching for another person, or for a sign-in made earlier, confirms nothing", async () => {
    const session = await ssoMember("vera@acme.test");
    provider.addAccount({ email: "walter@acme.test" });
    provider.signInNextAs("walter@acme.test");
    expect(await confirmWithSso(session.token)).toEqual({ code: null, reauthentication: null, error: REAUTHENTICATION_REFUSED_MESSAGE });
    provider.replaceNextIdToken((issued) => provider.mintIdToken(issued, { auth_time: Math.floor(Date.now() / 1000) - 3600 }));
    expect((await confirmWithSso(session.token)).error).toBe(SIGN_IN_REFUSED_MESSAGE);
  });

  test("an account that does not sign in with SSO is told to use its password", async () => {
    const res = await server.call("POST", "/api/auth/reauthenticate/sso/start", { token: owner.token });
    // The owner's e-mail is of the organization's domain: they may confirm either way.
    expect(res.status).toBe(200);
    const outsider = await server.registerUser({ email: "pat@elsewhere.test" });
    const refused = await server.call("POST", "/api/auth/reauthenticate/sso/start", { token: outsider.token });
    expect([refused.status, refused.body.message]).toEqual([400, NO_SSO_TO_CONFIRM_MESSAGE]);
  });
});

describe("what the callback refuses", () => {
  const refusedSignIn = async (email: string, prepare: () => void) => {
    provider.addAccount({ email });
    prepare();
    const { error } = await signInWithSso(email);
    expect(await membershipOf(email)).toBeNull();
    return error;
  };

  test("(control) an ID token minted here unchanged with the provider's key signs in, so each refusal below is its change's", async () => {
    provider.addAccount({ email: "connie@acme.test" });
    provider.replaceNextIdToken((issued) => provider.mintIdToken(issued, {}));
    const { session } = await signInWithSso("connie@acme.test");
    expect(session.user.email).toBe("connie@acme.test");
  });

  test("an ID token signed with another key (forged)", async () => {
    const error = await refusedSignIn("fiona@acme.test", () => provider.replaceNextIdToken((issued) => provider.mintIdToken(issued, {}, { forged: true })));
    expect(error).toBe(SIGN_IN_REFUSED_MESSAGE);
  });

  test("an expired ID token", async () => {
    const error = await refusedSignIn("eve@acme.test", () =>
      provider.replaceNextIdToken((issued) => {
        const past = Math.floor(Date.now() / 1000) - 2 * 3600;
        return provider.mintIdToken(issued, { iat: past - 600, exp: past });
      }),
    );
    expect(error).toBe(SIGN_IN_REFUSED_MESSAGE);
  });

  test("an ID token for another client (wrong audience)", async () => {
    const error = await refusedSignIn("walt@acme.test", () => provider.replaceNextIdToken((issued) => provider.mintIdToken(issued, { aud: "another-client" })));
    expect(error).toBe(SIGN_IN_REFUSED_MESSAGE);
  });

  test("a replayed state, even after a sign-in that worked", async () => {
    provider.addAccount({ email: "ray@acme.test" });
    const { callbackUrl, stateCookie } = await signInWithSso("ray@acme.test");
    const replayed = await callBack(callbackUrl, stateCookie);
    expect(replayed.code).toBeNull();
    expect(replayed.error).toBe(USED_SIGN_IN_MESSAGE);
  });

  test("a callback link opened in a browser that did not start the sign-in (login CSRF)", async () => {
    // Mallory signs in as herself and sends Victor the link the provider redirected her to.
    provider.addAccount({ email: "mallory@acme.test" });
    const { url, stateCookie } = await startSso("mallory@acme.test");
    const callbackUrl = await provider.followSignIn(url);
    const inVictorsBrowser = await callBack(callbackUrl, null);
    expect(inVictorsBrowser).toEqual({ code: null, error: OTHER_BROWSER_MESSAGE, reauthentication: null });
    const withAnotherState = await callBack(callbackUrl, "dbvault_sso_state=another-sign-in");
    expect(withAnotherState.error).toBe(OTHER_BROWSER_MESSAGE);
    // Mallory's own browser still finishes it: the refusal spent nothing.
    expect((await callBack(callbackUrl, stateCookie)).code).toBeString();
  });

  test("a one-time code opened in a browser that did not start the sign-in (login CSRF with #code=)", async () => {
    // Mallory finishes her own sign-in up to the code and sends Victor /sso#code=<hers>.
    provider.addAccount({ email: "mallory@acme.test" });
    const { url, stateCookie } = await startSso("mallory@acme.test");
    const { code } = await callBack(await provider.followSignIn(url), stateCookie);
    const noCookie = await server.call("POST", "/api/auth/sso/exchange", { body: { code } });
    expect([noCookie.status, noCookie.body.message]).toEqual([400, OTHER_BROWSER_MESSAGE]);
    // Victor's browser holds a state of its own sign-in: not hers.
    const victors = await startSso("victor@acme.test");
    const otherState = await server.call("POST", "/api/auth/sso/exchange", { body: { code }, headers: { cookie: victors.stateCookie } });
    expect([otherState.status, otherState.body.token]).toEqual([400, undefined]);
    // Her own browser still exchanges it: the refusals spent nothing.
    const hers = await server.call("POST", "/api/auth/sso/exchange", { body: { code }, headers: { cookie: stateCookie } });
    expect([hers.status, hers.headers.get("set-cookie")?.startsWith("dbvault_sso_state=; Path=/api/auth/sso; Max-Age=0;")]).toEqual([200, true]);
  });

  test("an e-mail outside the organization's domains", async () => {
    provider.addAccount({ email: "mallory@evil.test" });
    const error = await refusedSignIn("mal@acme.test", () => provider.signInNextAs("mallory@evil.test"));
    expect(error).toBe("mallory@evil.test is not in the e-mail domains this organization signs in with SSO. Sign in with your work address.");
    expect((await server.ctx.db.select().from(users).where(eq(users.email, "mallory@evil.test"))).length).toBe(0);
  });

  test("an e-mail the provider has not verified", async () => {
    provider.addAccount({ email: "uma@acme.test", emailVerified: false });
    const { error } = await signInWithSso("uma@acme.test");
    expect(error).toContain("has not verified your e-mail address");
    expect(await membershipOf("uma@acme.test")).toBeNull();
  });
});

describe("SSO required", () => {
  let member: TestUser;
  let breakGlassOwner: TestUser & { seed: string };

  beforeAll(async () => {
    member = await server.registerUser({ email: "mia@acme.test" });
    await server.ctx.db.insert(memberships).values({ organizationId: acme.id, userId: member.id, role: "viewer" });
    const second = await server.registerUser({ email: "owen@acme.test" });
    await server.ctx.db.insert(memberships).values({ organizationId: acme.id, userId: second.id, role: "owner" });
    const setup = await server.call("POST", "/api/auth/two-factor/setup", { token: second.token, body: { password: second.password } });
    const enabled = await server.call("POST", "/api/auth/two-factor/enable", { token: second.token, body: { code: totpCode(setup.body.secret, clock.now()) } });
    expect(enabled.status).toBe(200);
    breakGlassOwner = { ...second, token: enabled.body.token, seed: setup.body.secret };
    expect((await saveConnection({ ssoRequired: true, clientSecret: undefined })).status).toBe(200);
  });

  const passwordSignIn = (user: TestUser, code?: string) =>
    server.call("POST", "/api/auth/login", { body: { email: user.email, password: user.password, ...(code ? { code } : {}) } });

  test("a member of an allowed domain is refused password sign-in and pointed to “Sign in with SSO”", async () => {
    const res = await passwordSignIn(member);
    expect([res.status, res.body.code, res.body.message]).toEqual([403, "SSO_REQUIRED", SSO_REQUIRED_MESSAGE]);
    // A wrong password learns nothing about the organization.
    const wrong = await server.call("POST", "/api/auth/login", { body: { email: member.email, password: "not-the-password" } });
    expect(wrong.status).toBe(401);
  });

  test("an owner without two-factor sign-in is refused too; one with it signs in with password and code (break-glass)", async () => {
    expect((await passwordSignIn(owner)).body.code).toBe("SSO_REQUIRED");
    clock.move(30_000);
    const res = await passwordSignIn(breakGlassOwner, totpCode(breakGlassOwner.seed, clock.now()));
    expect(res.status).toBe(200);
    expect(res.body.user.email).toBe(breakGlassOwner.email);
  });

  test("the only owner with two-factor sign-in may not turn it off while SSO is required (409): it is the break-glass", async () => {
    clock.move(30_000);
    const res = await server.call("POST", "/api/auth/two-factor/disable", {
      token: breakGlassOwner.token,
      body: { password: breakGlassOwner.password, code: totpCode(breakGlassOwner.seed, clock.now()) },
    });
    expect([res.status, res.body.message]).toEqual([409, LAST_BREAK_GLASS_MESSAGE]);
    const status = await server.call("GET", "/api/auth/two-factor", { token: breakGlassOwner.token });
    expect(status.body.enabled).toBe(true);
  });

  test("the only break-glass owner may not leave, be removed or be demoted while SSO is required (409)", async () => {
    // Making, demoting or removing an owner needs a session re-authenticated within 10 minutes.
    const stamped = async (user: { email: string }) => {
      const [row] = await server.ctx.db.select().from(users).where(eq(users.email, user.email));
      return server.ctx.tokens.issue(row!.id, row!.tokenVersion, server.ctx.now());
    };
    const asOlivia = { token: await stamped(owner), headers: ownerHeaders() };
    const demoted = await server.call("PATCH", `/api/organizations/current/members/${breakGlassOwner.id}`, { ...asOlivia, body: { role: "admin" } });
    expect([demoted.status, demoted.body.message]).toEqual([409, NO_BREAK_GLASS_LEFT_MESSAGE]);
    const removed = await server.call("DELETE", `/api/organizations/current/members/${breakGlassOwner.id}`, asOlivia);
    expect([removed.status, removed.body.message]).toEqual([409, NO_BREAK_GLASS_LEFT_MESSAGE]);
    const left = await server.call("POST", "/api/organizations/current/leave", { token: breakGlassOwner.token, headers: ownerHeaders() });
    expect([left.status, left.body.message]).toEqual([409, NO_BREAK_GLASS_LEFT_MESSAGE]);
    expect(await membershipOf(breakGlassOwner.email)).toBe("owner");
    // Another owner's changes are not held up by it.
    const toAdmin = await server.call("PATCH", `/api/organizations/current/members/${owner.id}`, {
      token: await stamped(breakGlassOwner),
      headers: ownerHeaders(),
      body: { role: "admin" },
    });
    expect(toAdmin.status).toBe(200);
    await server.ctx.db
      .update(memberships)
      .set({ role: "owner" })
      .where(and(eq(memberships.organizationId, acme.id), eq(memberships.userId, owner.id)));
  });

  test("a provider that is down: members are told so clearly, owners still sign in with password and code", async () => {
    // One sign-in gets as far as the provider's redirect back, then the provider goes down.
    provider.addAccount({ email: member.email });
    const { url, stateCookie } = await startSso(member.email);
    const callbackUrl = await provider.followSignIn(url);
    await provider.stop();
    expect(await callBack(callbackUrl, stateCookie)).toEqual({ code: null, error: PROVIDER_DOWN_MESSAGE, reauthentication: null });
    const res = await server.call("POST", "/api/auth/sso/start", { body: { email: member.email } });
    expect([res.status, res.body.message]).toEqual([502, PROVIDER_DOWN_MESSAGE]);
    clock.move(30_000);
    const breakGlass = await passwordSignIn(breakGlassOwner, totpCode(breakGlassOwner.seed, clock.now()));
    expect(breakGlass.status).toBe(200);
  });
});
