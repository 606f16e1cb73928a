/** When a JWT expires (ms since epoch), from its `exp` claim; null if it cannot be read. */
export function readTokenExpiry(token: string): number | null {
  const payload = token.split(".")[1];
  if (!payload) return null;
  try {
    const base64 = payload
      .replace(/-/g, "+")
      .replace(/_/g, "/")
      .padEnd(Math.ceil(payload.length / 4) * 4, "=");
    const claims = JSON.parse(atob(base64)) as { exp?: unknown };
    return typeof claims.exp === "number" && Number.isFinite(claims.exp) ? claims.exp * 1000 : null;
  } catch {
    return null;
  }
}

/** True when the token is past its expiry, or unreadable (which the session treats the same). */
export function isTokenExpired(token: string, now = Date.now()): boolean {
  const expiresAt = readTokenExpiry(token);
  return expiresAt === null || expiresAt <= now;
}
