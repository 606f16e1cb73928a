import { jwt } from "@elysiajs/jwt";

/**
 * `ra`: when the holder last confirmed their password (and code), in seconds since the epoch.
 * `org`: a session from single sign-on reaches only this organization (auth/session-scope.ts).
 * `rao`: `ra` came from that organization's provider, so it counts only inside it.
 */
export type SessionClaims = { sub: string; tv: number; ra: number | null; org: string | null; rao: string | null };

/** What limits a session beyond its user: the organization it is scoped to, and where its re-authentication counts. */
export type SessionScope = { organizationId?: string | null; reauthenticatedIn?: string | null };

export type SessionTokens = {
  /**
   * A signed session token (JWT with an `exp` claim) for the user at this token version;
   * `reauthenticatedAt` stamps it with a fresh confirmation of the password (modules/auth/reauthentication.ts);
   * `maxHours` shortens its life below SESSION_HOURS (sessions from single sign-on).
   */
  issue(userId: string, tokenVersion: number, reauthenticatedAt?: Date, maxHours?: number, scope?: SessionScope): Promise<string>;
  /** The claims of a valid, unexpired token signed by us; null for anything else. */
  verify(token: string | undefined): Promise<SessionClaims | null>;
};

/** The only algorithm the server signs with, so the only one it accepts. */
const SESSION_ALGORITHM = "HS256";

export function createSessionTokens(secret: string, sessionHours: number): SessionTokens {
  const signer = jwt({ name: "sessionJwt", secret, alg: SESSION_ALGORITHM, exp: `${sessionHours}h` }).decorator.sessionJwt;
  return {
    issue: (userId, tokenVersion, reauthenticatedAt, maxHours, scope) =>
      signer.sign({
        ...(scope?.organizationId ? { org: scope.organizationId } : {}),
        ...(scope?.reauthenticatedIn ? { rao: scope.reauthenticatedIn } : {}),
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
      return {
        sub: claims.sub,
        tv: claims.tv,
        ra: typeof claims.ra === "number" ? claims.ra : null,
        org: typeof claims.org === "string" ? claims.org : null,
        rao: typeof claims.rao === "string" ? claims.rao : null,
      };
    },
  };
}
