// Version 2 header: the shared fields, then one or more key stanzas each wrapping the file's random
// data key for one recipient, then an HMAC (under a key derived from the data key) over all of it.
// Rewrapping replaces the stanzas and the MAC; the chunks, sealed under the data key, stay.
import { randomBytes, timingSafeEqual } from "node:crypto";
import { HeaderTamperedError, InvalidKeyError, MalformedHeaderError, NeedsIdentityError, TruncatedArchiveError } from "./errors.ts";
import {
  type ArchiveHeader,
  DATA_KEY_LENGTH,
  FORMAT_VERSION_2,
  HEADER_MAC_LENGTH,
  KEY_ID_LENGTH,
  MAGIC,
  STANZA_HEAD_LENGTH,
  TAG_LENGTH,
  V2_LENGTH_PREFIX,
  V2_MAX_HEADER_LENGTH,
  V2_MIN_HEADER_LENGTH,
  V2_STANZA_COUNT_OFFSET,
  V2_STANZAS_OFFSET,
  WRAP_KIND_MASTER_KEY,
  WRAP_KIND_X25519,
  WRAP_SALT_LENGTH,
} from "./format.ts";
import {
  computeHeaderMac,
  encodeHeaderFields,
  type HeaderFieldsInput,
  type RawHeaderFields,
  readHeaderFields,
  validateHeaderFields,
  writeHeaderFields,
} from "./header-fields.ts";
import { deriveFileKeysV2, unwrapDataKey, wrapDataKey } from "./key-wrap.ts";
import { headerLengthV2, masterKeyIdOf, parseKeyStanzas, type KeyStanza as SharedKeyStanza } from "../../../protocol/archive-header-v2.ts";
import { deriveKeyIdBytes, findKeyById, missingKeyError } from "./keys.ts";
import { openX25519Stanza, recipientFingerprint, recipientOf, sealX25519Stanza, stanzaFingerprint, X25519_STANZA_LENGTH } from "./x25519-recipient.ts";

/** Per-file secrets of a version 2 file; random unless pinned (known-answer and golden tests). */
export interface FileSecretsV2 {
  dataKey: Uint8Array;
  wrapSalt: Uint8Array;
  /** The ephemeral X25519 private key of a recipient stanza; random unless pinned. */
  ephemeral?: Uint8Array;
}

/** Whom a new file's data key is wrapped to: a master key, or a write-only agent's public key. */
export type SealingKey = { masterKey: Uint8Array; recipient?: undefined } | { recipient: Uint8Array; masterKey?: undefined };

/** One key stanza as stored (protocol/archive-header-v2.ts), its body a Buffer to write out as is. */
export interface KeyStanza extends SharedKeyStanza {
  body: Buffer;
}

interface RawHeaderV2 extends RawHeaderFields {
  length: number;
  stanzas: KeyStanza[];
  mac: Buffer;
}

/** An opened version 2 header: its fields, its data key and the key that opens its chunks. */
export interface OpenedHeaderV2 {
  header: ArchiveHeader;
  dataKey: Buffer;
  payloadKey: Buffer;
}

/** Returns fresh random per-file secrets. */
export function drawFileSecretsV2(): FileSecretsV2 {
  return { dataKey: randomBytes(DATA_KEY_LENGTH), wrapSalt: randomBytes(WRAP_SALT_LENGTH) };
}

/** Encodes a version 2 header wrapping the data key to one master key or recipient; returns it and the payload key. */
export function encodeHeaderV2(input: HeaderFieldsInput & SealingKey & FileSecretsV2): { bytes: Buffer; payloadKey: Buffer } {
  const fields = encodeHeaderFields(input);
  const stanza = input.recipient
    ? { kind: WRAP_KIND_X25519, body: sealX25519Stanza(input.recipient, input.dataKey, input.ephemeral) }
    : sealMasterKeyStanza(input.masterKey, input.wrapSalt, input.dataKey);
  return { bytes: assembleHeaderV2(fields, [stanza], input.dataKey), payloadKey: deriveFileKeysV2(input.dataKey).payloadKey };
}

/** Total header length from the first 12 bytes (magic, version, length); throws MalformedHeaderError. */
export function readHeaderLengthV2(prefix: Uint8Array): number {
  const length = headerLengthV2(prefix);
  if (length < V2_MIN_HEADER_LENGTH) throw new MalformedHeaderError(`header length ${length} is too small`);
  return length;
}

/** Reads the fields without a key (nothing is authenticated); keyId names the first master-key stanza. */
export function readHeaderV2(bytes: Uint8Array): ArchiveHeader {
  const raw = parseHeaderV2(bytes);
  const stanza = findMasterKeyStanzas(raw)[0];
  if (stanza) return describeHeaderV2(raw, stanza.keyId, stanza.wrapSalt);
  const recipient = findX25519Stanzas(raw)[0];
  return describeHeaderV2(raw, recipient ? stanzaFingerprint(recipient.body) : Buffer.alloc(0), Buffer.alloc(0));
}

/**
 * Authenticates a version 2 header with the first key of `keys` (current key, then older ones)
 * named by a master-key stanza, else with an identity named by an X25519 stanza: wrong key, then
 * the wrapped key's tag, then the MAC, then values.
 */
export function openHeaderV2(bytes: Uint8Array, keys: readonly Uint8Array[], identities: readonly Uint8Array[] = []): OpenedHeaderV2 {
  const raw = parseHeaderV2(bytes);
  const stanzas = findMasterKeyStanzas(raw);
  const recipientStanzas = findX25519Stanzas(raw);
  let match: { stanza: (typeof stanzas)[number]; key: Uint8Array } | undefined;
  for (const stanza of stanzas) {
    const key = findKeyById(keys, stanza.keyId);
    if (key) {
      match = { stanza, key };
      break;
    }
  }
  if (!match) return openWithIdentity(raw, bytes, recipientStanzas, identities, () => missingKeyError(stanzas[0]?.keyId ?? Buffer.alloc(KEY_ID_LENGTH), keys));
  const { stanza, key } = match;
  // A changed key id, wrap salt or wrapped key fails here: the stanza head and key id are the AAD.
  const dataKey = unwrapDataKey(key, stanza.wrapSalt, stanza, stanza.aad);
  if (!dataKey) throw new HeaderTamperedError();
  return authenticateHeaderV2(raw, bytes, dataKey, stanza.keyId, stanza.wrapSalt);
}

// The first X25519 stanza naming one of the identities opens the file; with none, a file that has
// a master-key stanza reports the missing master key, one sealed only to a recipient the identity.
function openWithIdentity(
  raw: RawHeaderV2,
  bytes: Uint8Array,
  stanzas: KeyStanza[],
  identities: readonly Uint8Array[],
  missingKey: () => Error,
): OpenedHeaderV2 {
  const supplied = identities.map((identity) => recipientFingerprint(recipientOf(identity)));
  for (const stanza of stanzas) {
    const fingerprint = stanzaFingerprint(stanza.body);
    const index = supplied.findIndex((candidate) => candidate.equals(fingerprint));
    if (index < 0) continue;
    // A changed ephemeral key, fingerprint or wrapped key fails here (the fingerprint is in the AAD).
    const dataKey = openX25519Stanza(identities[index]!, stanza.body);
    if (!dataKey) throw new HeaderTamperedError();
    return authenticateHeaderV2(raw, bytes, dataKey, fingerprint, Buffer.alloc(0));
  }
  if (stanzas[0] && (findMasterKeyStanzas(raw).length === 0 || supplied.length > 0)) {
    throw new NeedsIdentityError(
      stanzaFingerprint(stanzas[0].body).toString("hex"),
      supplied.map((f) => f.toString("hex")),
    );
  }
  throw missingKey();
}

function authenticateHeaderV2(raw: RawHeaderV2, bytes: Uint8Array, dataKey: Buffer, keyId: Uint8Array, wrapSalt: Uint8Array): OpenedHeaderV2 {
  const { headerKey, payloadKey } = deriveFileKeysV2(dataKey);
  const expected = computeHeaderMac(headerKey, bytes.subarray(0, raw.length), raw.length - HEADER_MAC_LENGTH);
  if (!timingSafeEqual(expected, raw.mac)) throw new HeaderTamperedError();
  return { header: describeHeaderV2(raw, keyId, wrapSalt), dataKey, payloadKey };
}

/**
 * Rewraps an authenticated version 2 header to `newKey`: the same fields and data key, one
 * master-key stanza for the new key (stanzas of other kinds are kept), and a new MAC. The result
 * has the same length when the old header held one master-key stanza, so only the header changes.
 */
export function rewrapHeaderV2(
  bytes: Uint8Array,
  keys: readonly Uint8Array[],
  newKey: Uint8Array,
  wrapSalt: Uint8Array = randomBytes(WRAP_SALT_LENGTH),
): Buffer {
  const { dataKey } = openHeaderV2(bytes, keys);
  const raw = parseHeaderV2(bytes);
  const kept = raw.stanzas.filter((stanza) => stanza.kind !== WRAP_KIND_MASTER_KEY);
  return assembleHeaderV2(raw, [sealMasterKeyStanza(newKey, wrapSalt, dataKey), ...kept], dataKey);
}

function sealMasterKeyStanza(masterKey: Uint8Array, wrapSalt: Uint8Array, dataKey: Uint8Array): KeyStanza {
  const keyId = deriveKeyIdBytes(masterKey);
  const { wrappedKey, tag } = wrapDataKey(masterKey, wrapSalt, dataKey, stanzaAad(keyId));
  return { kind: WRAP_KIND_MASTER_KEY, body: Buffer.concat([keyId, wrapSalt, wrappedKey, tag]) };
}

// The wrap is bound to the stanza's kind and the key id it claims, so neither can be swapped.
function stanzaAad(keyId: Uint8Array): Buffer {
  return Buffer.concat([Uint8Array.of(WRAP_KIND_MASTER_KEY), keyId]);
}

function assembleHeaderV2(fields: RawHeaderFields, stanzas: KeyStanza[], dataKey: Uint8Array): Buffer {
  const stanzaBytes = stanzas.reduce((sum, stanza) => sum + STANZA_HEAD_LENGTH + stanza.body.length, 0);
  const length = V2_STANZAS_OFFSET + stanzaBytes + HEADER_MAC_LENGTH;
  if (stanzas.length === 0 || stanzas.length > 255 || length > V2_MAX_HEADER_LENGTH) {
    throw new InvalidKeyError("a version 2 header holds 1 to 255 key stanzas within 65,535 bytes");
  }
  const bytes = Buffer.alloc(length);
  bytes.set(MAGIC, 0);
  bytes.writeUInt16BE(FORMAT_VERSION_2, 8);
  bytes.writeUInt16BE(length, 10);
  writeHeaderFields(bytes, 12, fields);
  bytes.writeUInt8(stanzas.length, V2_STANZA_COUNT_OFFSET);
  let offset = V2_STANZAS_OFFSET;
  for (const stanza of stanzas) {
    bytes.writeUInt8(stanza.kind, offset);
    bytes.writeUInt16BE(stanza.body.length, offset + 1);
    stanza.body.copy(bytes, offset + STANZA_HEAD_LENGTH);
    offset += STANZA_HEAD_LENGTH + stanza.body.length;
  }
  const macOffset = length - HEADER_MAC_LENGTH;
  computeHeaderMac(deriveFileKeysV2(dataKey).headerKey, bytes, macOffset).copy(bytes, macOffset);
  return bytes;
}

// Structure only (counts and lengths fit); values are checked after the MAC.
function parseHeaderV2(bytes: Uint8Array): RawHeaderV2 {
  if (bytes.length < V2_LENGTH_PREFIX) throw new TruncatedArchiveError("header", 0);
  const length = readHeaderLengthV2(bytes);
  if (bytes.length < length) throw new TruncatedArchiveError("header", 0);
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, length);
  const parsed = parseKeyStanzas(b);
  if ("problem" in parsed) throw new MalformedHeaderError(parsed.problem);
  const asBuffer = (body: Uint8Array) => Buffer.from(body.buffer, body.byteOffset, body.length);
  return {
    length,
    ...readHeaderFields(b, 12),
    stanzas: parsed.stanzas.map((stanza) => ({ kind: stanza.kind, body: asBuffer(stanza.body) })),
    mac: b.subarray(length - HEADER_MAC_LENGTH, length),
  };
}

function findMasterKeyStanzas(raw: RawHeaderV2) {
  return raw.stanzas.flatMap((stanza) => {
    const id = masterKeyIdOf(stanza);
    if (!id) return [];
    const keyId = Buffer.from(id.buffer, id.byteOffset, id.length);
    const saltEnd = KEY_ID_LENGTH + WRAP_SALT_LENGTH;
    return [
      {
        keyId,
        wrapSalt: stanza.body.subarray(KEY_ID_LENGTH, saltEnd),
        wrappedKey: stanza.body.subarray(saltEnd, saltEnd + DATA_KEY_LENGTH),
        tag: stanza.body.subarray(saltEnd + DATA_KEY_LENGTH, saltEnd + DATA_KEY_LENGTH + TAG_LENGTH),
        aad: stanzaAad(keyId),
      },
    ];
  });
}

function findX25519Stanzas(raw: RawHeaderV2): KeyStanza[] {
  return raw.stanzas.filter((stanza) => stanza.kind === WRAP_KIND_X25519 && stanza.body.length === X25519_STANZA_LENGTH);
}

function describeHeaderV2(raw: RawHeaderV2, keyId: Uint8Array, wrapSalt: Uint8Array): ArchiveHeader {
  return {
    version: FORMAT_VERSION_2,
    ...validateHeaderFields(raw),
    keyId: Buffer.from(keyId).toString("hex"),
    salt: Buffer.from(wrapSalt).toString("hex"),
    headerLength: raw.length,
  };
}
