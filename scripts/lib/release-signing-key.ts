// The release key that builds sign the agent's release manifest with: RELEASE_SIGNING_KEY, else
// the one kept in the data directory's secrets.json (DATA_DIR, default ./data as for the server;
// generated there on first use). On one machine that builds and serves (npm start), the server
// then trusts the very key its builds were signed with; elsewhere the key stays where builds are
// made and the server is given only RELEASE_PUBLIC_KEY (docs/security.md).
import { resolve } from "node:path";
import type { KeyObject } from "node:crypto";
import { encodePublicKey, signingKeyFromSeed } from "../../protocol/release-manifest";
import { loadServerSecrets } from "../../server/src/lib/secrets";

export type BuildSigningKey = { privateKey: KeyObject; publicKey: string; source: string };

/** The key builds sign with; throws when RELEASE_SIGNING_KEY is set but not 32 bytes of base64. */
export function resolveReleaseSigningKey(env: Record<string, string | undefined> = process.env): BuildSigningKey {
  const configured = env.RELEASE_SIGNING_KEY?.trim() || null;
  const dataDir = resolve(env.DATA_DIR?.trim() || "./data");
  const seed = configured ?? loadServerSecrets(dataDir, {}, ["releaseSigningKey"]).releaseSigningKey;
  const privateKey = signingKeyFromSeed(Buffer.from(seed, "base64"));
  return { privateKey, publicKey: encodePublicKey(privateKey), source: configured ? "RELEASE_SIGNING_KEY" : `${dataDir}/secrets.json` };
}
