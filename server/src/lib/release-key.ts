// The public release key this server trusts: the agent release manifest it hands out must carry
// this key's signature (made where the agent was built: scripts/build-agent.ts). The server holds
// no signing key and signs nothing; it is shown in the web app, printed by setup and pinned by
// agents. In order: RELEASE_PUBLIC_KEY; the public half of RELEASE_SIGNING_KEY; in the single-file
// server, the key that signed the release compiled into it (part of the program, as trustworthy as
// the program itself); else the key builds on this machine sign with by default, kept in the data
// directory's secrets.json (npm start: the same machine builds and serves).
import { decodePublicKey, encodePublicKey, signingKeyFromSeed } from "@protocol/release-manifest";
import { parseSignedRelease, SIGNED_RELEASE_FILE } from "@protocol/signed-release";
import type { Config } from "../config";
import { findEmbeddedFile } from "./embedded-files";
import { loadServerSecrets } from "./secrets";

export type ReleaseKey = { publicKey: string; source: string };

/** The public half of a 32-byte Ed25519 seed in base64; throws for a wrong length (config.ts checks it first). */
export const publicKeyOfSeed = (seedBase64: string) => encodePublicKey(signingKeyFromSeed(Buffer.from(seedBase64, "base64")));

/** Decides the trusted release key; reads (or creates) secrets.json only when nothing else names one. */
export async function resolveReleaseKey(
  config: Pick<Config, "dataDir" | "releasePublicKey" | "releaseSigningKey">,
  embedded: readonly Blob[] = Bun.embeddedFiles,
): Promise<ReleaseKey> {
  if (config.releasePublicKey) return { publicKey: config.releasePublicKey, source: "RELEASE_PUBLIC_KEY" };
  if (config.releaseSigningKey) return { publicKey: publicKeyOfSeed(config.releaseSigningKey), source: "RELEASE_SIGNING_KEY" };
  const compiledIn = findEmbeddedFile(SIGNED_RELEASE_FILE, embedded);
  const compiledKey = compiledIn ? parseSignedRelease(await compiledIn.text())?.publicKey : undefined;
  if (compiledKey && isPublicKey(compiledKey)) return { publicKey: compiledKey, source: "the release compiled into this server" };
  const { releaseSigningKey } = loadServerSecrets(config.dataDir, {}, ["releaseSigningKey"]);
  return { publicKey: publicKeyOfSeed(releaseSigningKey), source: `${config.dataDir}/secrets.json` };
}

function isPublicKey(text: string): boolean {
  try {
    decodePublicKey(text);
    return true;
  } catch {
    return false;
  }
}
