// Envelope encryption of format version 2: each file's random data key, wrapped (AES-256-GCM from
// node:crypto) under a key derived from a master key and a fresh per-wrap salt. Rotating the master
// key rewraps this small value; the file's data, sealed under keys derived from the data key, stays.
import { createCipheriv, createDecipheriv, hkdfSync } from "node:crypto";
import { InvalidKeyError } from "./errors.ts";
import { DATA_KEY_LENGTH, LABEL_HEADER_V2, LABEL_PAYLOAD_V2, LABEL_WRAP_V2, TAG_LENGTH, WRAP_SALT_LENGTH } from "./format.ts";
import { assertMasterKey } from "./keys.ts";

// Every wrap key is used once (its salt is fresh), so a fixed nonce never repeats under a key.
const WRAP_NONCE = Buffer.alloc(12);

/** A data key sealed to one master key: the ciphertext and its tag. */
export interface WrappedDataKey {
  wrappedKey: Buffer;
  tag: Buffer;
}

/** Wraps a data key; `aad` binds it to the stanza naming the master key (kind ‖ key id). */
export function wrapDataKey(masterKey: Uint8Array, wrapSalt: Uint8Array, dataKey: Uint8Array, aad: Uint8Array): WrappedDataKey {
  assertDataKey(dataKey);
  const cipher = createCipheriv("aes-256-gcm", deriveWrapKey(masterKey, wrapSalt), WRAP_NONCE);
  cipher.setAAD(aad);
  const wrappedKey = Buffer.concat([cipher.update(dataKey), cipher.final()]);
  return { wrappedKey, tag: cipher.getAuthTag() };
}

/** Unwraps a data key; returns undefined when the tag does not verify (damaged stanza or wrong key). */
export function unwrapDataKey(masterKey: Uint8Array, wrapSalt: Uint8Array, wrapped: WrappedDataKey, aad: Uint8Array): Buffer | undefined {
  const decipher = createDecipheriv("aes-256-gcm", deriveWrapKey(masterKey, wrapSalt), WRAP_NONCE);
  decipher.setAAD(aad);
  decipher.setAuthTag(wrapped.tag);
  try {
    return Buffer.concat([decipher.update(wrapped.wrappedKey), decipher.final()]);
  } catch {
    return undefined;
  }
}

/** The header-MAC and payload keys of a version 2 file, both derived from its data key alone. */
export function deriveFileKeysV2(dataKey: Uint8Array): { headerKey: Buffer; payloadKey: Buffer } {
  assertDataKey(dataKey);
  const derive = (label: string) => Buffer.from(hkdfSync("sha256", dataKey, new Uint8Array(0), label, 32));
  return { headerKey: derive(LABEL_HEADER_V2), payloadKey: derive(LABEL_PAYLOAD_V2) };
}

function deriveWrapKey(masterKey: Uint8Array, wrapSalt: Uint8Array): Buffer {
  assertMasterKey(masterKey);
  if (wrapSalt.length !== WRAP_SALT_LENGTH) throw new InvalidKeyError(`wrap salt must be ${WRAP_SALT_LENGTH} bytes`);
  return Buffer.from(hkdfSync("sha256", masterKey, wrapSalt, LABEL_WRAP_V2, 32));
}

function assertDataKey(dataKey: Uint8Array): void {
  if (dataKey.length !== DATA_KEY_LENGTH) throw new InvalidKeyError(`a data key is ${DATA_KEY_LENGTH} bytes`);
}

/** Tag length of a wrapped data key (the GCM tag). */
export const WRAP_TAG_LENGTH = TAG_LENGTH;
