// The one place that talks OpenID Connect to an organization's provider, through panva's
// openid-client: discovery, the authorization URL (state, nonce, PKCE S256) and the code grant,
// which checks the ID token's signature, issuer, audience, expiry and nonce. Everything it
// throws is an AppError whose message a user can act on; the library's own text (which may
// quote the provider) goes only to the log.
import * as oidc from "openid-client";
import { AppError } from "../../lib/errors";
import { providerAddressErrorIn, providerFetch } from "./provider-address";

/** The scopes asked for: the e-mail and whether the provider verified it are all DBVault uses. */
export const SSO_SCOPES = "openid email profile";

const DISCOVERY_TIMEOUT_SECONDS = 10;

export const PROVIDER_DOWN_MESSAGE =
  "Your organization's sign-in provider cannot be reached right now. Try again in a few minutes; an owner can still sign in with a password and two-factor code.";

export type ProviderConnection = { issuer: string; clientId: string; clientSecret: string };

/**
 * Plain http is accepted only for a provider on this machine (a local test or development
 * provider): anywhere else the ID token would cross the network in clear text.
 */
export function isLoopbackHttp(issuer: URL): boolean {
  return issuer.protocol === "http:" && ["127.0.0.1", "localhost", "[::1]"].includes(issuer.hostname);
}

/** Checks the form of an issuer URL; throws 400 with what to fix. */
export function parseIssuer(issuer: string): URL {
  const url = URL.canParse(issuer) ? new URL(issuer) : null;
  if (!url || (url.protocol !== "https:" && !isLoopbackHttp(url)) || url.search || url.hash) {
    throw new AppError(
      400,
      "BAD_REQUEST",
      "The issuer must be the provider's https:// address, as its discovery document names it (e.g. https://login.example.com/realms/acme).",
    );
  }
  return url;
}

/**
 * The provider's configuration from its discovery document. Throws 502 when it cannot be
 * reached (`PROVIDER_DOWN_MESSAGE`) and 400 when what answers is not an OpenID Connect provider
 * for this issuer.
 */
export async function discoverProvider(
  connection: ProviderConnection,
  log: { warn(message: string, fields?: object): void },
  options: { allowPrivate: boolean },
): Promise<oidc.Configuration> {
  const issuer = parseIssuer(connection.issuer);
  try {
    return await oidc.discovery(issuer, connection.clientId, undefined, oidc.ClientSecretBasic(connection.clientSecret), {
      timeout: DISCOVERY_TIMEOUT_SECONDS,
      // Discovery, and then the JWKS, token and userinfo requests of this configuration.
      [oidc.customFetch]: providerFetch(options.allowPrivate),
      // Without non-repudiation checks openid-client trusts an ID token from the token endpoint
      // on TLS alone (OIDC Core 3.1.3.7 allows it) and never checks its signature: a forged
      // token then passes. The issue asks for the signature to be checked, against the JWKS.
      execute: [oidc.enableNonRepudiationChecks, ...(isLoopbackHttp(issuer) ? [oidc.allowInsecureRequests] : [])],
    });
  } catch (error) {
    log.warn("sso provider discovery failed", { issuer: connection.issuer, reason: (error as Error).message });
    const refused = providerAddressErrorIn(error);
    if (refused) throw new AppError(400, "BAD_REQUEST", refused.message);
    if (isUnreachable(error)) throw new AppError(502, "SERVICE_UNAVAILABLE", PROVIDER_DOWN_MESSAGE);
    throw new AppError(
      400,
      "BAD_REQUEST",
      `No OpenID Connect provider answers at ${connection.issuer}: its /.well-known/openid-configuration is missing or names another issuer. Check the issuer address.`,
    );
  }
}

function isUnreachable(error: unknown): boolean {
  // fetch's own failures (refused, reset, DNS, timeout) as opposed to an answer that is not OIDC.
  const cause = (error as { cause?: unknown }).cause;
  const name = (error as Error).name;
  return (
    error instanceof TypeError || name === "TimeoutError" || name === "AbortError" || cause instanceof TypeError || (cause as Error)?.name === "TimeoutError"
  );
}

export type SignInChecks = { state: string; nonce: string; codeVerifier: string };

/** New random state, nonce and PKCE verifier for one sign-in. */
export const newSignInChecks = (): SignInChecks => ({ state: oidc.randomState(), nonce: oidc.randomNonce(), codeVerifier: oidc.randomPKCECodeVerifier() });

/**
 * The provider's authorization URL for one sign-in (PKCE S256, the e-mail as login_hint). `fresh`
 * asks the provider to authenticate the person again now (prompt=login, max_age=0), not to reuse
 * its own session: a re-authentication.
 */
export async function authorizationUrl(config: oidc.Configuration, checks: SignInChecks, redirectUri: string, email: string, fresh = false): Promise<string> {
  return oidc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: SSO_SCOPES,
    state: checks.state,
    nonce: checks.nonce,
    code_challenge: await oidc.calculatePKCECodeChallenge(checks.codeVerifier),
    code_challenge_method: "S256",
    login_hint: email,
    ...(fresh ? { prompt: "login", max_age: "0" } : {}),
  }).href;
}

/** Who the provider says signed in. */
export type ProviderIdentity = {
  subject: string;
  email: string | null;
  emailVerified: boolean;
  name: string | null;
  /** When the provider last authenticated the person (`auth_time`, ms), when it says. */
  authenticatedAt: number | null;
};

export const SIGN_IN_REFUSED_MESSAGE =
  "Your organization's sign-in provider did not confirm who you are, so you were not signed in. Try “Sign in with SSO” again; if it keeps failing, tell your organization's owner.";

/**
 * Redeems the code of `callbackUrl` and validates everything openid-client checks (state, PKCE,
 * the ID token's signature, issuer, audience, expiry and nonce). The e-mail claims come from the
 * ID token, or from the userinfo endpoint for providers that keep them there. Throws 401 when a
 * check fails, 502 when the provider cannot be reached.
 */
export async function redeemCallback(
  config: oidc.Configuration,
  callbackUrl: URL,
  checks: SignInChecks & { fresh?: boolean },
  log: { warn(message: string, fields?: object): void },
): Promise<ProviderIdentity> {
  try {
    const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
      pkceCodeVerifier: checks.codeVerifier,
      expectedState: checks.state,
      expectedNonce: checks.nonce,
      idTokenExpected: true,
      // max_age=0 was asked: openid-client then requires auth_time, within its clock tolerance.
      ...(checks.fresh ? { maxAge: 0 } : {}),
    });
    const claims = tokens.claims()!;
    let source: Record<string, unknown> = claims;
    if (typeof claims.email !== "string") source = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
    return {
      subject: claims.sub,
      email: typeof source.email === "string" ? source.email.trim().toLowerCase() : null,
      // Only a boolean true counts: some providers send "true" strings, which is not what the claim is.
      emailVerified: source.email_verified === true,
      name: typeof source.name === "string" ? source.name : null,
      authenticatedAt: typeof claims.auth_time === "number" ? claims.auth_time * 1000 : null,
    };
  } catch (error) {
    log.warn("sso sign-in refused by its checks", { issuer: config.serverMetadata().issuer, reason: (error as Error).message });
    if (isUnreachable(error)) throw new AppError(502, "SERVICE_UNAVAILABLE", PROVIDER_DOWN_MESSAGE);
    throw new AppError(401, "UNAUTHORIZED", SIGN_IN_REFUSED_MESSAGE);
  }
}
