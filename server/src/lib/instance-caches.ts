// What one server instance remembers between calls to spare a peer the same question, held in the
// context (ctx.caches) so each test's context starts empty. Losing any of it (a restart) costs a
// repeated request, nothing more.
import type * as oidc from "openid-client";

export type InstanceCaches = {
  /** Discovered OpenID Connect providers by connection (modules/sso/provider-cache.ts). */
  ssoProviders: Map<string, { config: Promise<oidc.Configuration>; expiresAt: number }>;
  /** Object Lock dates already extended, in ms by backup id (modules/retention/lock.ts). */
  lockedUntil: Map<string, number>;
};

export const createInstanceCaches = (): InstanceCaches => ({ ssoProviders: new Map(), lockedUntil: new Map() });
