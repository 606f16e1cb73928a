// "Sign in with SSO": start (the e-mail's domain names the organization; state, nonce and PKCE
// verifier are kept in the database, so any instance can take the callback), callback (each
// state once; openid-client checks the rest; then the account and its membership), and the
// exchange of the one-time code the browser brings back for a session of at most 12 hours.
// The session token never travels in a URL: the callback hands the browser a code in the
// fragment (never sent to a server, so never in an access log), which it POSTs once.
import { randomBytes } from "node:crypto";
import { and, arrayContains, eq, gt, isNull, lt, type SQL } from "drizzle-orm";
import { memberships, ssoConnections, ssoSignIns, users } from "@db/schema";
import type { AppContext } from "../../context";
import { AppError, badRequest, unauthorized } from "../../lib/errors";
import { actorOf, recordAudit } from "../audit/service";
import { accountRefusal } from "../auth/guard";
import { createUser, hashLinkToken, issueSession } from "../auth/service";
import { isTwoFactorOn } from "../auth/second-factor";
import { admitSsoStart } from "../auth/throttle";
import { emailDomain, SSO_SESSION_MAX_HOURS } from "../organizations/sso-required";
import { bindSsoOrganization } from "../users/sso-binding";
import { cachedProvider, forgetProvider } from "./provider-cache";
import { authorizationUrl, newSignInChecks, redeemCallback } from "./provider-client";

/** How long the provider's sign-in page may take. */
export const SIGN_IN_TTL_MS = 10 * 60 * 1000;
/** How long the browser has to exchange its code: it does so at once. */
const SESSION_CODE_TTL_MS = 60 * 1000;

export const USED_SIGN_IN_MESSAGE = "This sign-in was already used or has expired. Start again with “Sign in with SSO”.";

export const OTHER_BROWSER_MESSAGE =
  "This sign-in was started in another browser or tab that has since started another. Start again with “Sign in with SSO” here.";

export const NO_SSO_FOR_DOMAIN_MESSAGE = "No organization signs in with SSO for this e-mail domain. Check the address, or sign in with your password.";

async function connectionForDomain(ctx: AppContext, domain: string) {
  // Only a domain the organization proved it owns signs anyone in; one organization proves a
  // domain at most (domains.ts), so at most one row.
  const [connection] = await ctx.db
    .select()
    .from(ssoConnections)
    .where(arrayContains(ssoConnections.verifiedDomains, [domain]));
  return connection ?? null;
}

/** Starts a sign-in: answers the provider's authorization URL for the e-mail's organization (429 past the address's limit). */
export async function startSignIn(ctx: AppContext, input: { email: string; origin: string; clientIp: string }) {
  const { email, origin } = input;
  await admitSsoStart(ctx, input.clientIp);
  const connection = await connectionForDomain(ctx, emailDomain(email));
  if (!connection) throw new AppError(404, "NOT_FOUND", NO_SSO_FOR_DOMAIN_MESSAGE);
  return beginRoundTrip(ctx, connection, { email, origin, reauthenticatingUserId: null });
}

/**
 * Keeps one round trip's checks and answers the provider's URL. A re-authentication names the
 * signed-in user from the start and asks the provider for a fresh sign-in (prompt=login, max_age=0).
 */
export async function beginRoundTrip(
  ctx: AppContext,
  connection: typeof ssoConnections.$inferSelect,
  input: { email: string; origin: string; reauthenticatingUserId: string | null },
) {
  const config = await cachedProvider(ctx, openConnection(ctx, connection));
  const checks = newSignInChecks();
  const redirectUri = `${input.origin}/api/auth/sso/callback`;
  const now = ctx.now();
  // Sign-ins abandoned at the provider are dropped as new ones start.
  await ctx.db.delete(ssoSignIns).where(lt(ssoSignIns.expiresAt, new Date(now.getTime() - SIGN_IN_TTL_MS)));
  await ctx.db.insert(ssoSignIns).values({
    organizationId: connection.organizationId,
    stateHash: ctx.ssoBox.hash(checks.state),
    nonce: checks.nonce,
    codeVerifierCiphertext: ctx.ssoBox.seal(checks.codeVerifier),
    redirectUri,
    reauthentication: input.reauthenticatingUserId !== null,
    userId: input.reauthenticatingUserId,
    expiresAt: new Date(now.getTime() + SIGN_IN_TTL_MS),
  });
  const fresh = input.reauthenticatingUserId !== null;
  return { url: await authorizationUrl(config, checks, redirectUri, input.email, fresh), state: checks.state };
}

export const openConnection = (ctx: AppContext, connection: typeof ssoConnections.$inferSelect) => ({
  issuer: connection.issuer,
  clientId: connection.clientId,
  clientSecret: ctx.ssoBox.open(connection.clientSecretCiphertext),
});

/**
 * The provider's redirect back. Claims the state once (a replay finds it used), lets openid-client
 * check the code, PKCE and ID token, then requires a verified e-mail of an allowed domain.
 * Answers the one-time code for the browser; throws an AppError the callback route shows.
 */
export async function finishSignIn(
  ctx: AppContext,
  query: { state?: string; code?: string; error?: string },
  callbackUrl: URL,
  browserState: string | undefined,
) {
  if (!query.state) throw badRequest("The sign-in link is incomplete. Start again with “Sign in with SSO”.");
  // The state must come back to the browser that started the sign-in (its cookie): a callback
  // link someone else's sign-in produced would otherwise sign this browser in as them.
  if (browserState !== query.state) throw unauthorized(OTHER_BROWSER_MESSAGE);
  const [signIn] = await ctx.db
    .update(ssoSignIns)
    .set({ calledBackAt: ctx.now() })
    .where(and(eq(ssoSignIns.stateHash, ctx.ssoBox.hash(query.state)), isNull(ssoSignIns.calledBackAt), gt(ssoSignIns.expiresAt, ctx.now())))
    .returning();
  if (!signIn) throw unauthorized(USED_SIGN_IN_MESSAGE);
  if (query.error) throw unauthorized("Your organization's sign-in provider did not sign you in. Start again with “Sign in with SSO”.");
  const [connection] = await ctx.db.select().from(ssoConnections).where(eq(ssoConnections.organizationId, signIn.organizationId));
  if (!connection) throw unauthorized("This organization no longer signs in with SSO. Sign in with your password.");
  const provider = openConnection(ctx, connection);
  const config = await cachedProvider(ctx, provider);
  // The redirect URI the provider was given, with the query it sent back.
  const current = new URL(signIn.redirectUri);
  current.search = callbackUrl.search;
  const identity = await redeemCallback(
    config,
    current,
    { state: query.state, nonce: signIn.nonce, codeVerifier: ctx.ssoBox.open(signIn.codeVerifierCiphertext), fresh: signIn.reauthentication },
    ctx.log,
  ).catch((error) => {
    forgetProvider(ctx, provider);
    throw error;
  });
  if (!identity.email || !identity.emailVerified) {
    throw unauthorized(
      "Your sign-in provider has not verified your e-mail address, so DBVault cannot tell who you are. Ask your administrator to verify it there.",
    );
  }
  const domain = emailDomain(identity.email);
  if (!connection.allowedDomains.includes(domain)) {
    throw new AppError(403, "FORBIDDEN", `${identity.email} is not in the e-mail domains this organization signs in with SSO. Sign in with your work address.`);
  }
  if (!connection.verifiedDomains.includes(domain)) throw new AppError(403, "FORBIDDEN", unprovedDomainMessage(domain));
  if (signIn.reauthentication) return { code: await confirmReauthentication(ctx, signIn, identity), reauthentication: true };
  const { user, joined, role } = await memberFor(ctx, connection, identity.email, identity.name);
  const code = randomBytes(32).toString("base64url");
  await ctx.db.transaction(async (tx) => {
    await tx
      .update(ssoSignIns)
      .set({ userId: user.id, sessionCodeHash: hashLinkToken(code), sessionCodeExpiresAt: new Date(ctx.now().getTime() + SESSION_CODE_TTL_MS) })
      .where(eq(ssoSignIns.id, signIn.id));
    await recordAudit(
      tx,
      connection.organizationId,
      "SSO_SIGNED_IN",
      { organizationId: connection.organizationId, issuer: connection.issuer, ...(joined ? { joinedAs: connection.defaultRole } : {}) },
      actorOf(user, { role }),
    );
  });
  ctx.log.info("sso sign-in", { userId: user.id, organizationId: connection.organizationId });
  return { code, reauthentication: false };
}

export const REAUTHENTICATION_REFUSED_MESSAGE =
  "Your sign-in provider did not confirm it is you just now (another account, or an earlier sign-in). Try “Confirm with SSO” again and sign in as yourself.";

/**
 * A re-authentication's callback: the provider must vouch for the same person who started it
 * (their e-mail), and have authenticated them just now: with max_age=0 asked, openid-client
 * refuses an ID token without auth_time or with one older than its clock tolerance (30 s).
 * Answers the one-time code POST /api/auth/reauthenticate/sso takes.
 */
async function confirmReauthentication(
  ctx: AppContext,
  signIn: typeof ssoSignIns.$inferSelect,
  identity: { email: string | null; authenticatedAt: number | null },
) {
  const [user] = signIn.userId ? await ctx.db.select().from(users).where(eq(users.id, signIn.userId)) : [];
  const otherOrganization = Boolean(user?.ssoOrganizationId && user.ssoOrganizationId !== signIn.organizationId);
  if (!user || user.email !== identity.email || identity.authenticatedAt === null || otherOrganization) {
    ctx.log.warn("sso re-authentication refused", { userId: signIn.userId, sameEmail: user?.email === identity.email, otherOrganization });
    throw unauthorized(REAUTHENTICATION_REFUSED_MESSAGE);
  }
  // The account itself, signed in, went through this provider: it links the account to it.
  await bindAccount(ctx, user, signIn.organizationId, "confirmed");
  const code = randomBytes(32).toString("base64url");
  await ctx.db
    .update(ssoSignIns)
    .set({ sessionCodeHash: hashLinkToken(code), sessionCodeExpiresAt: new Date(ctx.now().getTime() + SESSION_CODE_TTL_MS) })
    .where(eq(ssoSignIns.id, signIn.id));
  return code;
}

/**
 * Spends a re-authentication's one-time code for `userId` (once, within a minute): the organization
 * whose provider confirmed it, or null when the code is not theirs or not valid.
 */
export async function redeemReauthenticationCode(ctx: AppContext, userId: string, code: string): Promise<string | null> {
  const [spent] = await spendCode(ctx, code, eq(ssoSignIns.reauthentication, true), eq(ssoSignIns.userId, userId));
  return spent?.organizationId ?? null;
}

/** Marks the round trip whose one-time code this is as spent, once and within its minute, where `conditions` hold too. */
const spendCode = (ctx: AppContext, code: string, ...conditions: SQL[]) =>
  ctx.db
    .update(ssoSignIns)
    .set({ exchangedAt: ctx.now() })
    .where(
      and(eq(ssoSignIns.sessionCodeHash, hashLinkToken(code)), isNull(ssoSignIns.exchangedAt), gt(ssoSignIns.sessionCodeExpiresAt, ctx.now()), ...conditions),
    )
    .returning();

/**
 * The account the provider vouched for: a member already, or a new account (with no password
 * anyone knows) made a member with the connection's default role. An existing account that is
 * not a member is refused: the provider of one organization does not get to sign in to an
 * account that never joined it (it must be invited first).
 */
async function memberFor(ctx: AppContext, connection: typeof ssoConnections.$inferSelect, email: string, name: string | null) {
  const [existing] = await ctx.db.select().from(users).where(eq(users.email, email));
  if (existing) {
    const refused = accountRefusal(existing);
    if (refused) throw refused;
    const [membership] = await ctx.db
      .select()
      .from(memberships)
      .where(and(eq(memberships.organizationId, connection.organizationId), eq(memberships.userId, existing.id)));
    if (!membership) {
      throw new AppError(
        403,
        "FORBIDDEN",
        "A DBVault account with this e-mail already exists and is not a member of this organization. Sign in with your password, and ask an owner to invite you.",
      );
    }
    const unlinked = linkRefusal(existing, connection.organizationId);
    if (unlinked) throw unlinked;
    await bindAccount(ctx, existing, connection.organizationId, "domain");
    return { user: existing, joined: false, role: membership.role };
  }
  const created = await createUser(ctx, {
    name: name?.trim() || email.split("@")[0]!,
    email,
    password: randomBytes(32).toString("base64url"),
    joining: { organizationId: connection.organizationId, role: connection.defaultRole },
    ssoCreatedBy: connection.organizationId,
  });
  ctx.log.info("sso member created", { userId: created.id, organizationId: connection.organizationId });
  return { user: created, joined: true, role: connection.defaultRole };
}

export const unprovedDomainMessage = (domain: string) =>
  `This organization has not proved it owns ${domain} yet, so its single sign-on signs nobody in with that domain. Sign in with your password; an owner can prove the domain in Settings → SSO.`;

export const BOUND_ELSEWHERE_MESSAGE =
  "This account signs in with the single sign-on of another organization, not this one. Sign in with your password, or through that organization.";

export const LINK_IT_YOURSELF_MESSAGE =
  "This account has a password of its own (and two-factor sign-in, or a reset), so only you can link it to this organization's single sign-on: sign in with your password and code, then use “Confirm with SSO” when DBVault asks it is you (or accept an invitation to the organization).";

/**
 * Why this organization's provider may not sign the account in, or null. An account's single
 * sign-on is bound to one organization; an account with two-factor sign-in is bound only by its
 * own act (an invitation it accepted, a “Confirm with SSO” from its own session), never by a
 * provider vouching for its address.
 */
function linkRefusal(user: typeof users.$inferSelect, organizationId: string): AppError | null {
  if (user.ssoOrganizationId === organizationId) return null;
  if (user.ssoOrganizationId) return new AppError(403, "FORBIDDEN", BOUND_ELSEWHERE_MESSAGE);
  // A reset cut an SSO-made account loose: its owner proved the mailbox, the provider does not get it back.
  if (isTwoFactorOn(user) || user.ssoLink === "cut") return new AppError(403, "FORBIDDEN", LINK_IT_YOURSELF_MESSAGE);
  return null;
}

/** Binds an account not bound yet to the organization's single sign-on (a bound one keeps its organization). */
async function bindAccount(ctx: AppContext, user: typeof users.$inferSelect, organizationId: string, how: "domain" | "confirmed") {
  if (user.ssoOrganizationId) return;
  await bindSsoOrganization(ctx.db, user.id, organizationId, how);
  ctx.log.info("sso linked", { userId: user.id, organizationId, how });
}

/**
 * Exchanges the callback's one-time code for a session (once, within a minute), only in the
 * browser that started the sign-in: a code someone else's sign-in produced, opened in a victim's
 * browser, would otherwise sign the victim in as them (login CSRF).
 */
export async function exchangeSessionCode(ctx: AppContext, code: string, browserState: string | undefined) {
  if (!browserState) throw badRequest(OTHER_BROWSER_MESSAGE);
  // A re-authentication's code confirms a session; it never opens one.
  const [signIn] = await spendCode(ctx, code, eq(ssoSignIns.reauthentication, false), eq(ssoSignIns.stateHash, ctx.ssoBox.hash(browserState)));
  // 400, not 401: a browser still holding an older session must show this, not "Session expired".
  if (!signIn?.userId) throw badRequest(USED_SIGN_IN_MESSAGE);
  const [user] = await ctx.db.select().from(users).where(eq(users.id, signIn.userId));
  if (!user) throw badRequest(USED_SIGN_IN_MESSAGE);
  const refused = accountRefusal(user);
  if (refused) throw refused;
  const scoped = { maxHours: SSO_SESSION_MAX_HOURS, organizationId: signIn.organizationId };
  return { ...(await issueSession(ctx, user, undefined, scoped)), organizationId: signIn.organizationId };
}
