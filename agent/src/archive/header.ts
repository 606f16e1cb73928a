import { timingSafeEqual } from "node:crypto";
import { HeaderTamperedError, TruncatedArchiveError, UnsupportedVersionError } from "./errors.ts";
import {
  type ArchiveHeader,
  FORMAT_VERSION_1,
  FORMAT_VERSION_2,
  KEY_ID_LENGTH,
  MAGIC,
  PREFIX_LENGTH,
  SALT_LENGTH,
  V1_HEADER_LENGTH,
  V1_MAC_OFFSET,
  V2_LENGTH_PREFIX,
} from "./format.ts";
import {
  checkMagicPrefix,
  computeHeaderMac,
  encodeHeaderFields,
  type HeaderFieldsInput,
  type RawHeaderFields,
  readHeaderFields,
  validateHeaderFields,
  writeHeaderFields,
} from "./header-fields.ts";
import { openHeaderV2, readHeaderLengthV2, readHeaderV2 } from "./header-v2.ts";
import { deriveFileKeysV1, deriveKeyIdBytes, findKeyById, type MasterKeys, missingKeyError } from "./keys.ts";

export { assertChunkSize, checkMagicPrefix } from "./header-fields.ts";

/** What the writer needs to produce a version 1 header. */
export interface HeaderV1Input extends HeaderFieldsInput {
  masterKey: Uint8Array;
  salt: Uint8Array;
}

/** An opened header: its fields and the key that opens its chunks. */
export interface OpenedHeader {
  header: ArchiveHeader;
  payloadKey: Buffer;
}

interface RawHeaderV1 extends RawHeaderFields {
  salt: Buffer;
  keyId: Buffer;
  mac: Buffer;
}

/** Encodes and MACs a version 1 header; returns its 104 bytes and the payload key. Throws InvalidOptionsError. */
export function encodeHeaderV1(input: HeaderV1Input): { bytes: Buffer; payloadKey: Buffer } {
  const fields = encodeHeaderFields(input);
  const { headerKey, payloadKey } = deriveFileKeysV1(input.masterKey, input.salt);
  const bytes = Buffer.alloc(V1_HEADER_LENGTH);
  bytes.set(MAGIC, 0);
  bytes.writeUInt16BE(FORMAT_VERSION_1, 8);
  writeHeaderFields(bytes, 10, fields);
  bytes.set(input.salt, 24);
  bytes.set(deriveKeyIdBytes(input.masterKey), 56);
  computeHeaderMac(headerKey, bytes, V1_MAC_OFFSET).copy(bytes, V1_MAC_OFFSET);
  return { bytes, payloadKey };
}

/**
 * How many header bytes to read, from the bytes read so far (at least the 10-byte prefix): the
 * whole header's length once known, else how many bytes tell it (version 2 stores its length in
 * bytes 10-11). Throws on bad magic, an unknown version or an impossible length.
 */
export function measureHeader(bytes: Uint8Array): number {
  checkMagicPrefix(bytes);
  if (bytes.length < PREFIX_LENGTH) throw new TruncatedArchiveError("header", 0);
  const version = (bytes[8]! << 8) | bytes[9]!;
  if (version === FORMAT_VERSION_1) return V1_HEADER_LENGTH;
  if (version === FORMAT_VERSION_2) return bytes.length < V2_LENGTH_PREFIX ? V2_LENGTH_PREFIX : readHeaderLengthV2(bytes);
  throw new UnsupportedVersionError(version);
}

/** Reads the header without a key (for verify/diagnostics): nothing in it is authenticated yet. */
export function readArchiveHeader(bytes: Uint8Array): ArchiveHeader {
  const length = measureWhole(bytes);
  if (isVersion2(bytes)) return readHeaderV2(bytes.subarray(0, length));
  return describeHeaderV1(parseHeaderV1(bytes));
}

/**
 * Authenticates a complete header with a master key: `keys` is the current key, then the older
 * keys of the keyring; the header's key id picks one. Wrong key, then MAC, then field values.
 */
export function openHeader(bytes: Uint8Array, keys: MasterKeys, identities: readonly Uint8Array[] = []): OpenedHeader {
  const keyring = keys instanceof Uint8Array ? [keys] : keys;
  measureWhole(bytes);
  if (isVersion2(bytes)) return openHeaderV2(bytes, keyring, identities);
  return openHeaderV1(bytes, keyring);
}

function measureWhole(bytes: Uint8Array): number {
  let length = PREFIX_LENGTH;
  for (;;) {
    if (bytes.length < length) throw new TruncatedArchiveError("header", 0);
    const next = measureHeader(bytes.subarray(0, length));
    if (next === length) return length;
    length = next;
  }
}

function isVersion2(bytes: Uint8Array): boolean {
  return ((bytes[8]! << 8) | bytes[9]!) === FORMAT_VERSION_2;
}

function openHeaderV1(bytes: Uint8Array, keys: readonly Uint8Array[]): OpenedHeader {
  const raw = parseHeaderV1(bytes);
  const masterKey = findKeyById(keys, raw.keyId);
  if (!masterKey) throw missingKeyError(raw.keyId, keys);
  const { headerKey, payloadKey } = deriveFileKeysV1(masterKey, raw.salt);
  const expected = computeHeaderMac(headerKey, bytes.subarray(0, V1_HEADER_LENGTH), V1_MAC_OFFSET);
  if (!timingSafeEqual(expected, raw.mac)) throw new HeaderTamperedError();
  // Field values are checked only after the MAC, so a flipped compression byte reads as
  // tampering rather than as "unsupported compression".
  return { header: describeHeaderV1(raw), payloadKey };
}

function parseHeaderV1(bytes: Uint8Array): RawHeaderV1 {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, V1_HEADER_LENGTH);
  return {
    ...readHeaderFields(b, 10),
    salt: b.subarray(24, 24 + SALT_LENGTH),
    keyId: b.subarray(56, 56 + KEY_ID_LENGTH),
    mac: b.subarray(V1_MAC_OFFSET, V1_HEADER_LENGTH),
  };
}

function describeHeaderV1(raw: RawHeaderV1): ArchiveHeader {
  const { compression, payloadKind, chunkSize, createdAt } = validateHeaderFields(raw);
  return {
    version: FORMAT_VERSION_1,
    compression,
    payloadKind,
    chunkSize,
    createdAt,
    keyId: raw.keyId.toString("hex"),
    salt: raw.salt.toString("hex"),
    headerLength: V1_HEADER_LENGTH,
  };
}
