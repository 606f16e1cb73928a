import { jwt } from "@elysiajs/jwt";

/** `ra`: when the holder last confirmed their password (and code), in seconds since the epoch. */
export type SessionClaims = { sub: string; tv: number; ra: number | null };

export type SessionTokens = {
  /**
   * A signed session token (JWT with an `exp` claim) for the user at this token version;
   * `reauthenticatedAt` stamps it with a fresh confirmation of the password (modules/auth/reauthentication.ts);
   * `maxHours` shortens its life below SESSION_HOURS (sessions from single sign-on).
   */
  issue(userId: string, tokenVersion: number, reauthenticatedAt?: Date, maxHours?: number): Promise<string>;
  /** The claims of a valid, unexpired token signed by us; null for anything else. */
  verify(token: string | undefined): Promise<SessionClaims | null>;
};

/** The only algorithm the server signs with, so the only one it accepts. */
const SESSION_ALGORITHM = "HS256";

export function createSessionTokens(secret: string, sessionHours: number): SessionTokens {
  const signer = jwt({ name: "sessionJwt", secret, alg: SESSION_ALGORITHM, exp: `${sessionHours}h` }).decorator.sessionJwt;
  return {
    issue: (userId, tokenVersion, reauthenticatedAt, maxHours) =>
      signer.sign({
        sub: userId,
        tv: tokenVersion,
        ...(reauthenticatedAt ? { ra: Math.floor(reauthenticatedAt.getTime() / 1000) } : {}),
        ...(maxHours !== undefined && maxHours < sessionHours ? { exp: `${maxHours}h` } : {}),
      }),
    async verify(token) {
      // A token of another HMAC algorithm under the same secret, or one that never expires, was
      // not made by this server: refused even though its signature checks out.
      const claims = await signer.verify(token, { algorithms: [SESSION_ALGORITHM], requiredClaims: ["exp"] });
      if (!claims || typeof claims.sub !== "string" || typeof claims.tv !== "number") return null;
      return { sub: claims.sub, tv: claims.tv, ra: typeof claims.ra === "number" ? claims.ra : null };
    },
  };
}
