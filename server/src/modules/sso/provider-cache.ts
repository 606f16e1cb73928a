// Discovery answers for a while: each "Sign in with SSO" start and callback would otherwise fetch
// the provider's discovery document (and, with a new configuration each time, its JWKS) again.
// An entry lives CACHE_TTL_MS and is dropped when a sign-in through it fails, so a provider that
// moved its endpoints or rotated its keys is asked afresh at the next attempt. Within an entry,
// openid-client keeps the JWKS for 5 minutes and refetches it on an unknown `kid` once the copy
// is a minute old, so a provider that publishes its new key before signing with it (the usual
// rotation) is followed without a failure.
import { createHash } from "node:crypto";
import type * as oidc from "openid-client";
import type { InstanceCaches } from "../../lib/instance-caches";
import { discoverProvider, type ProviderConnection } from "./provider-client";

export const PROVIDER_CACHE_TTL_MS = 10 * 60 * 1000;

// The secret is part of the configuration (client authentication): a changed one is another entry.
const keyOf = (connection: ProviderConnection) =>
  `${connection.issuer}\n${connection.clientId}\n${createHash("sha256").update(connection.clientSecret).digest("base64url")}`;

type Caller = { log: { warn(message: string, fields?: object): void }; now(): Date; caches: Pick<InstanceCaches, "ssoProviders"> };

/** The provider's configuration, discovered at most once per PROVIDER_CACHE_TTL_MS; a failed discovery is not kept. */
export function cachedProvider(caller: Caller, connection: ProviderConnection): Promise<oidc.Configuration> {
  const cache = caller.caches.ssoProviders;
  const key = keyOf(connection);
  const now = caller.now().getTime();
  const entry = cache.get(key);
  if (entry && entry.expiresAt > now) return entry.config;
  const config = discoverProvider(connection, caller.log);
  cache.set(key, { config, expiresAt: now + PROVIDER_CACHE_TTL_MS });
  config.catch(() => {
    if (cache.get(key)?.config === config) cache.delete(key);
  });
  return config;
}

/** Drops the connection's configuration: the next sign-in discovers (and fetches the keys) anew. */
export function forgetProvider(caller: Pick<Caller, "caches">, connection: ProviderConnection): void {
  caller.caches.ssoProviders.delete(keyOf(connection));
}
