// Wrap kind 0x02 of format version 2: a file's data key sealed to an X25519 public key, composed
// as age's X25519 recipient stanza is (ephemeral key, ECDH, HKDF-SHA-256 salted with both public
// keys, AEAD). A write-only agent holds only the public key (the "recipient"), so nothing on the
// database host opens what it wrote; the private key (the "identity") is kept offline.
// node:crypto primitives only; the DER prefixes below are the fixed PKCS#8 / SPKI envelopes of a
// raw X25519 key (RFC 8410), so raw 32-byte keys can be stored as text and handed to node:crypto.
import { createCipheriv, createDecipheriv, createPrivateKey, createPublicKey, diffieHellman, generateKeyPairSync, hkdfSync } from "node:crypto";
import { InvalidKeyError } from "./errors.ts";
import { decodeKeyText, encodeKeyText } from "./keys.ts";
import { DATA_KEY_LENGTH, KEY_ID_LENGTH, LABEL_RECIPIENT_ID, LABEL_WRAP_X25519, TAG_LENGTH, WRAP_KIND_X25519 } from "./format.ts";

const X25519_KEY_LENGTH = 32;
const PKCS8_PREFIX = Buffer.from("302e020100300506032b656e04220420", "hex");
const SPKI_PREFIX = Buffer.from("302a300506032b656e032100", "hex");
// Every wrap key is used once (it derives from a fresh ephemeral key), so the nonce can be fixed.
const WRAP_NONCE = Buffer.alloc(12);

/** X25519 stanza body: ephemeral public key ‖ recipient fingerprint ‖ wrapped data key ‖ GCM tag. */
export const X25519_STANZA_LENGTH = X25519_KEY_LENGTH + KEY_ID_LENGTH + DATA_KEY_LENGTH + TAG_LENGTH;

// Text forms, with the master key's checksum: the identity (secret, kept offline) and the
// recipient (public, kept in a write-only agent's config).
const IDENTITY_TEXT_PREFIX = "dbvid1_";
const RECIPIENT_TEXT_PREFIX = "dbvpk1_";

export const encodeIdentity = (identity: Uint8Array): string => encodeKeyText(IDENTITY_TEXT_PREFIX, identity);
export const encodeRecipient = (recipient: Uint8Array): string => encodeKeyText(RECIPIENT_TEXT_PREFIX, recipient);

/** Decodes an identity file's text; throws InvalidKeyError, never echoing the text. */
export function decodeIdentity(text: string): Buffer {
  return decodeKeyText(IDENTITY_TEXT_PREFIX, text, "(the identity file written when write-only mode was turned on)");
}

/** Decodes a recipient's text; throws InvalidKeyError. */
export function decodeRecipient(text: string): Buffer {
  return decodeKeyText(RECIPIENT_TEXT_PREFIX, text, "(a write-only agent's public key)");
}

/** Returns a new random X25519 private key (an "identity"), 32 raw bytes. */
export function generateIdentity(): Buffer {
  const { privateKey } = generateKeyPairSync("x25519");
  return privateKey.export({ format: "der", type: "pkcs8" }).subarray(PKCS8_PREFIX.length);
}

/** The public key (the "recipient") of an identity, 32 raw bytes. */
export function recipientOf(identity: Uint8Array): Buffer {
  const publicKey = createPublicKey(privateKeyObject(identity));
  return publicKey.export({ format: "der", type: "spki" }).subarray(SPKI_PREFIX.length);
}

/** The 16-byte public fingerprint of a recipient: HKDF(recipient, salt = empty, "dbvault recipient id", 16). */
export function recipientFingerprint(recipient: Uint8Array): Buffer {
  assertLength(recipient, "a recipient (X25519 public key)");
  return Buffer.from(hkdfSync("sha256", recipient, new Uint8Array(0), LABEL_RECIPIENT_ID, KEY_ID_LENGTH));
}

/** Seals a data key to a recipient; `ephemeral` is random unless pinned (known-answer and golden tests). */
export function sealX25519Stanza(recipient: Uint8Array, dataKey: Uint8Array, ephemeral: Uint8Array = generateIdentity()): Buffer {
  const ephemeralPublic = recipientOf(ephemeral);
  const fingerprint = recipientFingerprint(recipient);
  const wrapKey = deriveWrapKey(ephemeral, recipient, ephemeralPublic, recipient);
  const cipher = createCipheriv("aes-256-gcm", wrapKey, WRAP_NONCE);
  cipher.setAAD(stanzaAad(fingerprint));
  const wrapped = Buffer.concat([cipher.update(dataKey), cipher.final()]);
  return Buffer.concat([ephemeralPublic, fingerprint, wrapped, cipher.getAuthTag()]);
}

/** The fingerprint an X25519 stanza names (not authenticated until it opens). */
export function stanzaFingerprint(body: Uint8Array): Buffer {
  return Buffer.from(body.subarray(X25519_KEY_LENGTH, X25519_KEY_LENGTH + KEY_ID_LENGTH));
}

/** Opens an X25519 stanza with an identity; undefined when the tag does not verify (damage or another recipient). */
export function openX25519Stanza(identity: Uint8Array, body: Uint8Array): Buffer | undefined {
  if (body.length !== X25519_STANZA_LENGTH) return undefined;
  const ephemeralPublic = body.subarray(0, X25519_KEY_LENGTH);
  const fingerprint = body.subarray(X25519_KEY_LENGTH, X25519_KEY_LENGTH + KEY_ID_LENGTH);
  const wrapped = body.subarray(X25519_KEY_LENGTH + KEY_ID_LENGTH, X25519_KEY_LENGTH + KEY_ID_LENGTH + DATA_KEY_LENGTH);
  const tag = body.subarray(X25519_KEY_LENGTH + KEY_ID_LENGTH + DATA_KEY_LENGTH);
  let wrapKey: Buffer;
  try {
    wrapKey = deriveWrapKey(identity, ephemeralPublic, ephemeralPublic, recipientOf(identity));
  } catch {
    return undefined; // a damaged ephemeral key (a low-order point) gives no shared secret
  }
  const decipher = createDecipheriv("aes-256-gcm", wrapKey, WRAP_NONCE);
  decipher.setAAD(stanzaAad(fingerprint));
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(wrapped), decipher.final()]);
  } catch {
    return undefined;
  }
}

// age: shared = X25519(private, peer); reject the all-zero secret of a low-order point;
// wrap key = HKDF(shared, salt = ephemeral public ‖ recipient, label).
function deriveWrapKey(privateKey: Uint8Array, peer: Uint8Array, ephemeralPublic: Uint8Array, recipient: Uint8Array): Buffer {
  const shared = diffieHellman({ privateKey: privateKeyObject(privateKey), publicKey: publicKeyObject(peer) });
  if (shared.every((byte) => byte === 0)) throw new InvalidKeyError("the X25519 shared secret is zero (a low-order public key)");
  return Buffer.from(hkdfSync("sha256", shared, Buffer.concat([ephemeralPublic, recipient]), LABEL_WRAP_X25519, 32));
}

// The wrap is bound to its kind and the recipient it claims, as the master-key stanza's is.
function stanzaAad(fingerprint: Uint8Array): Buffer {
  return Buffer.concat([Uint8Array.of(WRAP_KIND_X25519), fingerprint]);
}

function privateKeyObject(identity: Uint8Array) {
  assertLength(identity, "an identity (X25519 private key)");
  return createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, identity]), format: "der", type: "pkcs8" });
}

function publicKeyObject(recipient: Uint8Array) {
  assertLength(recipient, "a recipient (X25519 public key)");
  return createPublicKey({ key: Buffer.concat([SPKI_PREFIX, recipient]), format: "der", type: "spki" });
}

function assertLength(key: Uint8Array, what: string): void {
  if (!(key instanceof Uint8Array) || key.length !== X25519_KEY_LENGTH) throw new InvalidKeyError(`${what} is ${X25519_KEY_LENGTH} bytes`);
}
