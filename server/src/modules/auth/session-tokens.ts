import { jwt } from "@elysiajs/jwt";

export type SessionClaims = { sub: string; tv: number };

export type SessionTokens = {
  /** A signed session token (JWT with an `exp` claim) for the user at this token version. */
  issue(userId: string, tokenVersion: number): Promise<string>;
  /** The claims of a valid, unexpired token signed by us; null for anything else. */
  verify(token: string | undefined): Promise<SessionClaims | null>;
};

export function createSessionTokens(secret: string, sessionHours: number): SessionTokens {
  const signer = jwt({ name: "sessionJwt", secret, exp: `${sessionHours}h` }).decorator.sessionJwt;
  return {
    issue: (userId, tokenVersion) => signer.sign({ sub: userId, tv: tokenVersion }),
    async verify(token) {
      const claims = await signer.verify(token);
      if (!claims || typeof claims.sub !== "string" || typeof claims.tv !== "number") return null;
      return { sub: claims.sub, tv: claims.tv };
    },
  };
}
