// Agent releases for tests: a release key of the test's own and a folder of "binaries" (any
// bytes) signed with it exactly as scripts/build-agent.ts signs its builds, so that a server given
// the key's public half (RELEASE_PUBLIC_KEY) offers them, and the key builds of this checkout sign
// with (dist/, and test builds with --outdir), for servers that hand out real builds.
import { generateKeyPairSync, type KeyObject } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { findAgentPlatform } from "../protocol/agent-platforms";
import { encodePublicKey } from "../protocol/release-manifest";
import { type SignedRelease, writeSignedRelease } from "../protocol/signed-release";
import { resolveReleaseSigningKey } from "../scripts/lib/release-signing-key";

export type TestReleaseKey = { privateKey: KeyObject; publicKey: string };

/** A fresh Ed25519 release key. */
export function createTestReleaseKey(): TestReleaseKey {
  const { privateKey } = generateKeyPairSync("ed25519");
  return { privateKey, publicKey: encodePublicKey(privateKey) };
}

/** The public key npm run build:agent signs this checkout's builds with (RELEASE_SIGNING_KEY or ./data). */
export function buildReleasePublicKey(): string {
  return resolveReleaseSigningKey().publicKey;
}

/**
 * Signs the files of `dir` named in `files` (file name → its platform id and version, 1.0.0 when
 * not given) as one release; the manifest line's file name is the platform's download name.
 */
export function signAgentDir(dir: string, key: TestReleaseKey, files: Record<string, { platform: string; version?: string }>): Promise<SignedRelease> {
  const entries = Object.entries(files).map(([name, { platform, version }]) => {
    const bytes = readFileSync(join(dir, name));
    const fileName = findAgentPlatform(platform)?.fileName ?? name;
    return { platform, fileName, version: version ?? "1.0.0", sha256: new Bun.CryptoHasher("sha256").update(bytes).digest("hex"), size: bytes.byteLength };
  });
  return writeSignedRelease(dir, entries, key.privateKey);
}
