// Changes that hand an account to whoever makes them (new recovery codes, two-factor off, a new
// e-mail or password, a new API key) need more than a session token, which can be stolen: the
// password and, when two-factor sign-in is on, a code. Either in the request itself, or within
// REAUTHENTICATION_WINDOW_MS before it through POST /api/auth/reauthenticate, which stamps a new
// token (its `ra` claim). Signing in does not stamp the token it answers.
import type { AppContext } from "../../context";
import { AppError, badRequest } from "../../lib/errors";
import type { AuthenticatedUser, SessionInfo } from "../auth/guard";
import { confirmCurrentPassword } from "../auth/password";
import { acceptSecondFactor, isTwoFactorOn } from "../auth/second-factor";
import { SSO_SESSION_MAX_HOURS, ssoConnectionOf } from "../organizations/sso-required";

export const REAUTHENTICATION_WINDOW_MS = 10 * 60 * 1000;

/** Credentials a request may carry instead of (or besides) a recent stamp; each one given is checked. */
export type GivenCredentials = { password?: string; code?: string };

const reauthenticationRequired = async (ctx: AppContext, user: AuthenticatedUser) => {
  // Members who sign in through their organization's provider (often with no password they know)
  // may confirm there instead: the web then offers "Confirm with SSO".
  const ssoAvailable = (await ssoConnectionOf(ctx.db, user)) !== null;
  return new AppError(
    403,
    "REAUTHENTICATION_REQUIRED",
    isTwoFactorOn(user)
      ? `Please confirm it is you: enter your password and a code from your authenticator app${ssoAvailable ? ", or confirm with SSO" : ""}.`
      : `Please confirm it is you: enter your password${ssoAvailable ? ", or confirm with SSO" : ""}.`,
    { reauthenticationRequired: true, twoFactorRequired: isTwoFactorOn(user), ssoAvailable },
  );
};

/** Whether the session's token was stamped by a re-authentication in the last ten minutes. */
export function isRecentlyReauthenticated(ctx: AppContext, session: SessionInfo): boolean {
  const at = session.reauthenticatedAt?.getTime();
  return at !== undefined && ctx.now().getTime() - at <= REAUTHENTICATION_WINDOW_MS;
}

/**
 * Throws unless the caller has proved to be the owner: 403 REAUTHENTICATION_REQUIRED when neither
 * a recent stamp nor the credentials given cover the password (and code); 400 for a wrong password
 * or code, 429 past their limits. Whatever is given is checked, even with a recent stamp.
 */
export async function requireRecentReauthentication(ctx: AppContext, user: AuthenticatedUser, session: SessionInfo, given: GivenCredentials = {}) {
  const twoFactor = isTwoFactorOn(user);
  const complete = given.password !== undefined && (!twoFactor || given.code !== undefined);
  if (!complete && !isRecentlyReauthenticated(ctx, session)) throw await reauthenticationRequired(ctx, user);
  if (given.password !== undefined) await confirmCurrentPassword(ctx, user, given.password);
  if (twoFactor && given.code !== undefined && !(await acceptSecondFactor(ctx, user, given.code))) {
    throw badRequest("Invalid authentication code");
  }
}

/** POST /api/auth/reauthenticate: the password and code now, answered with a stamped token. */
export async function reauthenticate(ctx: AppContext, user: AuthenticatedUser, session: SessionInfo, given: { password: string; code?: string }) {
  await requireRecentReauthentication(ctx, user, { reauthenticatedAt: null }, given);
  return stampedToken(ctx, user, session, null);
}

/**
 * A token stamped with a re-authentication made now: by password and code (`viaProviderOf` null),
 * or through the provider of the organization `viaProviderOf`, where alone it then counts. A
 * session from single sign-on keeps its scope and its shorter life.
 */
export async function stampedToken(ctx: AppContext, user: AuthenticatedUser, session: SessionInfo, viaProviderOf: string | null) {
  const at = ctx.now();
  const scope = session.organizationScope ?? null;
  return {
    message: "Thank you. You can make changes to your account's security for the next 10 minutes.",
    token: await ctx.tokens.issue(user.id, user.tokenVersion, at, scope ? SSO_SESSION_MAX_HOURS : undefined, {
      organizationId: scope,
      reauthenticatedIn: viaProviderOf,
    }),
    reauthenticatedUntil: new Date(at.getTime() + REAUTHENTICATION_WINDOW_MS).toISOString(),
  };
}
