import { createHash, hkdfSync, randomBytes } from "node:crypto";
import { InvalidKeyError, WrongKeyError } from "./errors.ts";
import { KEY_ID_LENGTH, LABEL_HEADER_V1, LABEL_KEY_ID, LABEL_PAYLOAD_V1, MASTER_KEY_LENGTH, SALT_LENGTH } from "./format.ts";

// Text form of a master key: a versioned prefix so a key is recognisable in a config file or a
// password manager, and a 4-byte checksum so a mistyped key is reported as mistyped instead of
// as "wrong key" after downloading a whole backup.
const KEY_TEXT_PREFIX = "dbvk1_";
const KEY_CHECKSUM_LENGTH = 4;

/** A master key, or a keyring: the current key first, then older ones; a file's key id picks one. */
export type MasterKeys = Uint8Array | readonly Uint8Array[];

/** Returns a new random 32-byte master key. */
export function generateMasterKey(): Buffer {
  return randomBytes(MASTER_KEY_LENGTH);
}

/** Throws InvalidKeyError unless the key is exactly 32 bytes. */
export function assertMasterKey(masterKey: Uint8Array): void {
  if (!(masterKey instanceof Uint8Array) || masterKey.length !== MASTER_KEY_LENGTH) {
    const got = masterKey instanceof Uint8Array ? `${masterKey.length} bytes` : typeof masterKey;
    throw new InvalidKeyError(`a master key is ${MASTER_KEY_LENGTH} bytes, got ${got}`);
  }
}

/** Encodes a master key as `dbvk1_` + base64url(key ‖ checksum); throws InvalidKeyError on a bad key. */
export function encodeMasterKey(masterKey: Uint8Array): string {
  assertMasterKey(masterKey);
  return encodeKeyText(KEY_TEXT_PREFIX, masterKey);
}

/** `prefix` + base64url(key ‖ SHA-256(key)[0..4]): the text form of every 32-byte key the agent stores. */
export function encodeKeyText(prefix: string, key: Uint8Array): string {
  return prefix + Buffer.concat([key, computeKeyChecksum(key)]).toString("base64url");
}

/** Decodes the `dbvk1_` text form (or 64 hex digits); throws InvalidKeyError, never echoing the text. */
export function decodeMasterKey(text: string): Buffer {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, "hex");
  return decodeKeyText(KEY_TEXT_PREFIX, trimmed, "(as printed by dbvault-agent key export) or 64 hex digits");
}

/** Decodes what encodeKeyText wrote; throws InvalidKeyError naming `expected`, never echoing the text. */
export function decodeKeyText(prefix: string, text: string, expected: string): Buffer {
  const trimmed = text.trim();
  if (!trimmed.startsWith(prefix)) throw new InvalidKeyError(`expected text starting with "${prefix}" ${expected}`);
  const encoded = trimmed.slice(prefix.length);
  const body = Buffer.from(encoded, "base64url");
  if (!/^[A-Za-z0-9_-]+$/.test(encoded) || body.length !== MASTER_KEY_LENGTH + KEY_CHECKSUM_LENGTH) {
    throw new InvalidKeyError("the key text has the wrong length or characters; copy it again");
  }
  const key = body.subarray(0, MASTER_KEY_LENGTH);
  if (!computeKeyChecksum(key).equals(body.subarray(MASTER_KEY_LENGTH))) {
    throw new InvalidKeyError("the key text's checksum does not match: it was mistyped or damaged");
  }
  return Buffer.from(key);
}

/** Returns the hex key id (public fingerprint) of a master key; throws InvalidKeyError on a bad key. */
export function deriveKeyId(masterKey: Uint8Array): string {
  return deriveKeyIdBytes(masterKey).toString("hex");
}

/** Returns the 16-byte key id: HKDF-SHA256(ikm = master key, salt = empty, info = "dbvault key id"). */
export function deriveKeyIdBytes(masterKey: Uint8Array): Buffer {
  assertMasterKey(masterKey);
  return Buffer.from(hkdfSync("sha256", masterKey, new Uint8Array(0), LABEL_KEY_ID, KEY_ID_LENGTH));
}

/** The two per-file keys of version 1, both bound to the file's random salt. */
export interface FileKeysV1 {
  headerKey: Buffer;
  payloadKey: Buffer;
}

/** Derives the v1 header-MAC key and payload key from the master key and a 32-byte salt. */
export function deriveFileKeysV1(masterKey: Uint8Array, salt: Uint8Array): FileKeysV1 {
  assertMasterKey(masterKey);
  if (salt.length !== SALT_LENGTH) throw new InvalidKeyError(`salt must be ${SALT_LENGTH} bytes`);
  const derive = (label: string) => Buffer.from(hkdfSync("sha256", masterKey, salt, label, 32));
  return { headerKey: derive(LABEL_HEADER_V1), payloadKey: derive(LABEL_PAYLOAD_V1) };
}

function computeKeyChecksum(masterKey: Uint8Array): Buffer {
  return createHash("sha256").update(masterKey).digest().subarray(0, KEY_CHECKSUM_LENGTH);
}

/** The master key among `keys` whose key id is `keyId`, or undefined. */
export function findKeyById(keys: readonly Uint8Array[], keyId: Uint8Array): Uint8Array | undefined {
  return keys.find((key) => deriveKeyIdBytes(key).equals(keyId));
}

/** The error for a file whose key id no supplied key has: names the id needed and the ids tried. */
export function missingKeyError(fileKeyId: Uint8Array, keys: readonly Uint8Array[]): WrongKeyError {
  const tried = keys.map((key) => deriveKeyId(key));
  return new WrongKeyError(Buffer.from(fileKeyId).toString("hex"), tried[0] ?? "", tried);
}
