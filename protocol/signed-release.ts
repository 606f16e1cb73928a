// The signed release file a build writes beside the agent binaries (agent-release.signed.json):
// the release manifest (protocol/release-manifest.ts), its Ed25519 signature made with the release
// key where the build ran, and that key's public half. The server hands the manifest and signature
// out exactly as they are (it holds no signing key): it only checks them against the public key it
// trusts, which it never takes from this file (anyone who can write the file could put their own
// key in it), except for the copy compiled into the single-file server.
import { existsSync, readFileSync } from "node:fs";
import { rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { KeyObject } from "node:crypto";
import { encodePublicKey, type ManifestEntry, renderManifest, signManifest, verifyManifest } from "./release-manifest";

export const SIGNED_RELEASE_FILE = "agent-release.signed.json";

export type SignedRelease = { publicKey: string; manifest: string; signature: string };

/** Reads a signed release file's text; null when it is not one (bad JSON, a field missing). Never throws. */
export function parseSignedRelease(text: string): SignedRelease | null {
  try {
    const value = JSON.parse(text) as Partial<SignedRelease>;
    const fields = [value.publicKey, value.manifest, value.signature];
    return fields.every((field) => typeof field === "string") ? (value as SignedRelease) : null;
  } catch {
    return null;
  }
}

/** The signed release file in `dir`; null when there is none or it is unreadable. Never throws. */
export function readSignedRelease(dir: string): SignedRelease | null {
  const path = join(dir, SIGNED_RELEASE_FILE);
  if (!existsSync(path)) return null;
  try {
    return parseSignedRelease(readFileSync(path, "utf8"));
  } catch {
    return null;
  }
}

/** The manifest's entries when `release` is signed by `publicKey`, else null. Never throws. */
export function verifiedEntries(release: SignedRelease | null, publicKey: string): ManifestEntry[] | null {
  if (!release) return null;
  try {
    return verifyManifest(release.manifest, release.signature, publicKey);
  } catch {
    return null;
  }
}

/** Signs a manifest of `entries` with `privateKey` and writes it into `dir` (atomically). */
export async function writeSignedRelease(dir: string, entries: readonly ManifestEntry[], privateKey: KeyObject): Promise<SignedRelease> {
  const manifest = renderManifest(entries);
  const release: SignedRelease = { publicKey: encodePublicKey(privateKey), manifest, signature: signManifest(manifest, privateKey) };
  const temporary = join(dir, `.${SIGNED_RELEASE_FILE}.${process.pid}.tmp`);
  await writeFile(temporary, `${JSON.stringify(release, null, 2)}\n`);
  await rename(temporary, join(dir, SIGNED_RELEASE_FILE));
  return release;
}
