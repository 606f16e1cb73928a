// The agent release manifest: which agent build the server offers for each platform, with its
// version, SHA-256 and size. The build signs its exact text with the release key (Ed25519;
// protocol/signed-release.ts), the server hands it out as it is, and the agent (before an update)
// and install.sh (with openssl) check that signature with the key
// they trust, then check the download against the SHA-256 the manifest names. A line format, so
// a POSIX shell script can read it with `read`:
//
//   dbvault-agent-release 1
//   <platform id> <file name> <version> <sha256> <size>
//   …
import { createPrivateKey, createPublicKey, type KeyObject, sign, verify } from "node:crypto";

export const MANIFEST_HEADER = "dbvault-agent-release 1";

export type ManifestEntry = { platform: string; fileName: string; version: string; sha256: string; size: number };

/** Thrown when a manifest's text or signature is not what it must be; the message says which. */
export class ManifestError extends Error {
  override readonly name = "ManifestError";
}

const VERSION = String.raw`\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?`;
/** A semantic version (what versions are compared as), at most 32 characters as the protocol allows. */
export const SEMVER = new RegExp(`^(?=.{1,32}$)${VERSION}$`);
const ENTRY = new RegExp(`^([a-z0-9-]+) (dbvault-agent-[a-z0-9-]+(?:\\.exe)?) (${VERSION}) ([0-9a-f]{64}) ([0-9]{1,15})$`);

/** The manifest's text for these entries (one line each, newline-terminated); never throws. */
export function renderManifest(entries: readonly ManifestEntry[]): string {
  return [MANIFEST_HEADER, ...entries.map((e) => `${e.platform} ${e.fileName} ${e.version} ${e.sha256} ${e.size}`)].join("\n") + "\n";
}

/** Reads a manifest's text; throws ManifestError when any line is malformed. */
export function parseManifest(text: string): ManifestEntry[] {
  const lines = text.split("\n");
  if (lines[0] !== MANIFEST_HEADER) throw new ManifestError("the release manifest does not start with its header");
  if (lines.at(-1) !== "") throw new ManifestError("the release manifest does not end with a newline");
  return lines.slice(1, -1).map((line, index) => {
    const match = ENTRY.exec(line);
    if (!match) throw new ManifestError(`line ${index + 2} of the release manifest is malformed`);
    return { platform: match[1]!, fileName: match[2]!, version: match[3]!, sha256: match[4]!, size: Number(match[5]) };
  });
}

// DER prefixes of an Ed25519 key's standard encodings (RFC 8410): followed by the 32 raw bytes.
const SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");
const PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

/** An Ed25519 private key from its 32-byte seed; throws ManifestError for a wrong length. */
export function signingKeyFromSeed(seed: Uint8Array): KeyObject {
  if (seed.byteLength !== 32) throw new ManifestError("an Ed25519 signing key is 32 bytes");
  return createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: "der", type: "pkcs8" });
}

/** The public key's 32 raw bytes in base64: how the key is shown, pinned and passed around. */
export function encodePublicKey(key: KeyObject): string {
  const spki = createPublicKey(key).export({ format: "der", type: "spki" });
  return spki.subarray(SPKI_PREFIX.length).toString("base64");
}

/** A public key from its base64 form; throws ManifestError when it is not 32 bytes of base64. */
export function decodePublicKey(text: string): KeyObject {
  const raw = /^[A-Za-z0-9+/]{43}=$/.test(text) ? Buffer.from(text, "base64") : null;
  if (!raw || raw.byteLength !== 32) throw new ManifestError("a release signing key is 32 bytes in base64 (44 characters ending in =)");
  return createPublicKey({ key: Buffer.concat([SPKI_PREFIX, raw]), format: "der", type: "spki" });
}

/** Signs the manifest's exact text (Ed25519); the signature in base64. */
export function signManifest(text: string, privateKey: KeyObject): string {
  return sign(null, Buffer.from(text, "utf8"), privateKey).toString("base64");
}

/** Checks the signature over the manifest's exact text, then reads it; throws ManifestError when either fails. */
export function verifyManifest(text: string, signature: string, publicKey: string): ManifestEntry[] {
  const key = decodePublicKey(publicKey);
  const signatureBytes = /^[A-Za-z0-9+/]+={0,2}$/.test(signature) ? Buffer.from(signature, "base64") : Buffer.alloc(0);
  if (signatureBytes.byteLength !== 64 || !verify(null, Buffer.from(text, "utf8"), key, signatureBytes)) {
    throw new ManifestError("the release manifest's signature does not match this server's release signing key");
  }
  return parseManifest(text);
}
