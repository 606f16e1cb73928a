import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export type ServerSecrets = {
  jwtSecret: string;
  apiKeySecret: string;
  /** Base64 of the 32-byte Ed25519 seed that agent builds sign the release manifest with (scripts/lib/release-signing-key.ts); the server only derives its public half (lib/release-key.ts). */
  releaseSigningKey: string;
};

const GENERATE: Record<keyof ServerSecrets, () => string> = {
  jwtSecret: () => randomBytes(32).toString("base64url"),
  apiKeySecret: () => randomBytes(32).toString("base64url"),
  releaseSigningKey: () => randomBytes(32).toString("base64"),
};

const ALL_SECRETS = Object.keys(GENERATE) as (keyof ServerSecrets)[];

/**
 * Returns the configured secrets among `names` (all by default); any not configured is generated
 * once and kept (mode 0600) in `${dataDir}/secrets.json`, so tokens, stored API keys and the
 * release signing key (which set-up agents trust) survive restarts of a self-hosted server.
 * Several instances behind a load balancer must be given the same JWT_SECRET and API_KEY_SECRET.
 * Secrets of the file not among `names` are kept as they are.
 */
export function loadServerSecrets<Name extends keyof ServerSecrets = keyof ServerSecrets>(
  dataDir: string,
  configured: Partial<Record<keyof ServerSecrets, string | null>>,
  names: readonly Name[] = ALL_SECRETS as Name[],
): Pick<ServerSecrets, Name> {
  const file = join(dataDir, "secrets.json");
  let stored: Partial<ServerSecrets> = {};
  if (existsSync(file)) stored = JSON.parse(readFileSync(file, "utf8")) as Partial<ServerSecrets>;
  const secrets = Object.fromEntries(names.map((name) => [name, configured[name] ?? stored[name] ?? GENERATE[name]()])) as Pick<ServerSecrets, Name>;
  // A configured secret is not written down; one generated earlier stays in the file for the day
  // the variable is removed again.
  const toStore: Partial<ServerSecrets> = { ...stored };
  for (const name of names) toStore[name] = configured[name] ? stored[name] : secrets[name];
  if (names.some((name) => toStore[name] !== stored[name])) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(file, JSON.stringify(toStore, null, 2), { mode: 0o600 });
  }
  return secrets;
}
