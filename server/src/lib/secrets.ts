import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export type ServerSecrets = { jwtSecret: string; apiKeySecret: string };

/**
 * Returns the configured secrets; any not configured is generated once and kept (mode 0600) in
 * `${dataDir}/secrets.json`, so tokens and stored API keys survive restarts of a self-hosted server.
 * Several instances behind a load balancer must be given the same JWT_SECRET and API_KEY_SECRET.
 */
export function loadServerSecrets(dataDir: string, configured: Partial<Record<keyof ServerSecrets, string | null>>): ServerSecrets {
  const file = join(dataDir, "secrets.json");
  let stored: Partial<ServerSecrets> = {};
  if (existsSync(file)) stored = JSON.parse(readFileSync(file, "utf8")) as Partial<ServerSecrets>;
  const secrets: ServerSecrets = {
    jwtSecret: configured.jwtSecret ?? stored.jwtSecret ?? randomBytes(32).toString("base64url"),
    apiKeySecret: configured.apiKeySecret ?? stored.apiKeySecret ?? randomBytes(32).toString("base64url"),
  };
  const toStore = {
    jwtSecret: configured.jwtSecret ? stored.jwtSecret : secrets.jwtSecret,
    apiKeySecret: configured.apiKeySecret ? stored.apiKeySecret : secrets.apiKeySecret,
  };
  if (toStore.jwtSecret !== stored.jwtSecret || toStore.apiKeySecret !== stored.apiKeySecret) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, JSON.stringify(toStore, null, 2), { mode: 0o600 });
  }
  return secrets;
}
