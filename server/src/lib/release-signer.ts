// The instance's release signing key: Ed25519, its seed from RELEASE_SIGNING_KEY or generated
// into secrets.json. It signs the agent release manifest (protocol/release-manifest.ts); set-up
// agents pin its public key and refuse an update whose manifest it did not sign.
import { encodePublicKey, signingKeyFromSeed, signManifest } from "@protocol/release-manifest";

/** Builds the signer from the seed's base64; throws when the seed is not 32 bytes (config.ts checks it first). */
export function createReleaseSigner(seedBase64: string) {
  const privateKey = signingKeyFromSeed(Buffer.from(seedBase64, "base64"));
  const publicKey = encodePublicKey(privateKey);
  return {
    /** The public key's 32 bytes in base64: shown in the web app, printed by setup, pinned by agents. */
    publicKey,
    /** The base64 Ed25519 signature of a manifest's exact text. */
    sign: (manifest: string) => signManifest(manifest, privateKey),
  };
}

export type ReleaseSigner = ReturnType<typeof createReleaseSigner>;
