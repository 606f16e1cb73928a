/** A JWT's claims, or null if they cannot be read. */
function readClaims(token: string): Record<string, unknown> | null {
  const payload = token.split(".")[1];
  if (!payload) return null;
  try {
    const base64 = payload
      .replace(/-/g, "+")
      .replace(/_/g, "/")
      .padEnd(Math.ceil(payload.length / 4) * 4, "=");
    const claims = JSON.parse(atob(base64)) as unknown;
    return claims !== null && typeof claims === "object" ? (claims as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** When a JWT expires (ms since epoch), from its `exp` claim; null if it cannot be read. */
export function readTokenExpiry(token: string): number | null {
  const exp = readClaims(token)?.exp;
  return typeof exp === "number" && Number.isFinite(exp) ? exp * 1000 : null;
}

/**
 * The organization a session from single sign-on is limited to (its `org` claim); null for a
 * password session. Only for what the page offers: the server refuses such a session the account's
 * own changes (403 SSO_SESSION) whatever the page shows.
 */
export function readSessionScope(token: string): string | null {
  const org = readClaims(token)?.org;
  return typeof org === "string" && org !== "" ? org : null;
}

/** True when the token is past its expiry, or unreadable (which the session treats the same). */
export function isTokenExpired(token: string, now = Date.now()): boolean {
  const expiresAt = readTokenExpiry(token);
  return expiresAt === null || expiresAt <= now;
}
