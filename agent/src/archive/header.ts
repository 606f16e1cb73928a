import { createHmac, timingSafeEqual } from "node:crypto";
import {
  HeaderTamperedError,
  InvalidOptionsError,
  MalformedHeaderError,
  NotAnArchiveError,
  TruncatedArchiveError,
  UnsupportedCompressionError,
  UnsupportedPayloadKindError,
  UnsupportedVersionError,
  WrongKeyError,
} from "./errors.ts";
import {
  type ArchiveHeader,
  COMPRESSION_CODES,
  type Compression,
  FORMAT_VERSION_1,
  findCompressionName,
  findPayloadKindName,
  KEY_ID_LENGTH,
  MAGIC,
  MAX_CHUNK_SIZE,
  MIN_CHUNK_SIZE,
  PAYLOAD_KIND_CODES,
  type PayloadKind,
  PREFIX_LENGTH,
  SALT_LENGTH,
  V1_HEADER_LENGTH,
  V1_MAC_OFFSET,
} from "./format.ts";
import { deriveFileKeysV1, deriveKeyIdBytes } from "./keys.ts";

/** Header length of every version this build reads; the decrypt path dispatches on it. */
const HEADER_LENGTHS: Record<number, number> = { [FORMAT_VERSION_1]: V1_HEADER_LENGTH };

/** What the writer needs to produce a version 1 header. */
export interface HeaderV1Input {
  masterKey: Uint8Array;
  compression: Compression;
  payloadKind: PayloadKind;
  chunkSize: number;
  createdAt: Date;
  salt: Uint8Array;
}

/** An opened header: its fields and the key that opens its chunks. */
export interface OpenedHeader {
  header: ArchiveHeader;
  payloadKey: Buffer;
}

interface RawHeaderV1 {
  compressionCode: number;
  payloadKindCode: number;
  chunkSize: number;
  createdAtMs: bigint;
  salt: Buffer;
  keyId: Buffer;
  mac: Buffer;
}

/** Encodes and MACs a version 1 header; returns its 104 bytes and the payload key. Throws InvalidOptionsError. */
export function encodeHeaderV1(input: HeaderV1Input): { bytes: Buffer; payloadKey: Buffer } {
  assertChunkSize(input.chunkSize);
  const createdAtMs = input.createdAt.getTime();
  if (!Number.isSafeInteger(createdAtMs) || createdAtMs < 0) {
    throw new InvalidOptionsError("createdAt must be a valid date after 1970-01-01");
  }
  const compressionCode = COMPRESSION_CODES[input.compression];
  if (compressionCode === undefined) {
    throw new InvalidOptionsError(`compression must be zstd, gzip or none`);
  }
  const kindCode = PAYLOAD_KIND_CODES[input.payloadKind];
  if (kindCode === undefined) throw new InvalidOptionsError(`payloadKind must be one of ${Object.keys(PAYLOAD_KIND_CODES).join(", ")}`);
  const { headerKey, payloadKey } = deriveFileKeysV1(input.masterKey, input.salt);
  const bytes = Buffer.alloc(V1_HEADER_LENGTH);
  bytes.set(MAGIC, 0);
  bytes.writeUInt16BE(FORMAT_VERSION_1, 8);
  bytes.writeUInt8(compressionCode, 10);
  bytes.writeUInt8(kindCode, 11);
  bytes.writeUInt32BE(input.chunkSize, 12);
  bytes.writeBigUInt64BE(BigInt(createdAtMs), 16);
  bytes.set(input.salt, 24);
  bytes.set(deriveKeyIdBytes(input.masterKey), 56);
  computeHeaderMac(headerKey, bytes).copy(bytes, V1_MAC_OFFSET);
  return { bytes, payloadKey };
}

/** Throws InvalidOptionsError unless the chunk size is an integer in the allowed range. */
export function assertChunkSize(chunkSize: number): void {
  if (!Number.isInteger(chunkSize) || chunkSize < MIN_CHUNK_SIZE || chunkSize > MAX_CHUNK_SIZE) {
    throw new InvalidOptionsError(`chunkSize must be an integer from ${MIN_CHUNK_SIZE} to ${MAX_CHUNK_SIZE} bytes`);
  }
}

/** Checks the magic on the bytes seen so far; throws NotAnArchiveError on the first mismatch. */
export function checkMagicPrefix(bytes: Uint8Array): void {
  const n = Math.min(bytes.length, MAGIC.length);
  for (let i = 0; i < n; i++) if (bytes[i] !== MAGIC[i]) throw new NotAnArchiveError();
}

/** Returns the full header length for the version in a 10-byte prefix; throws on bad magic or version. */
export function findHeaderLength(prefix: Uint8Array): number {
  checkMagicPrefix(prefix);
  if (prefix.length < PREFIX_LENGTH) throw new TruncatedArchiveError("header", 0);
  const version = (prefix[8]! << 8) | prefix[9]!;
  const length = HEADER_LENGTHS[version];
  if (length === undefined) throw new UnsupportedVersionError(version);
  return length;
}

/** Reads the header without a key (for verify/diagnostics): nothing in it is authenticated yet. */
export function readArchiveHeader(bytes: Uint8Array): ArchiveHeader {
  const length = findHeaderLength(bytes.subarray(0, PREFIX_LENGTH));
  if (bytes.length < length) throw new TruncatedArchiveError("header", 0);
  return validateHeaderV1(parseHeaderV1(bytes));
}

/** Authenticates a complete header with the master key: wrong key, then MAC, then field values. */
export function openHeader(bytes: Uint8Array, masterKey: Uint8Array): OpenedHeader {
  findHeaderLength(bytes.subarray(0, PREFIX_LENGTH));
  // Only version 1 exists; a version 2 adds its branch here and version 1 stays as it is.
  return openHeaderV1(bytes, masterKey);
}

function openHeaderV1(bytes: Uint8Array, masterKey: Uint8Array): OpenedHeader {
  const raw = parseHeaderV1(bytes);
  const suppliedKeyId = deriveKeyIdBytes(masterKey);
  if (!suppliedKeyId.equals(raw.keyId)) {
    throw new WrongKeyError(raw.keyId.toString("hex"), suppliedKeyId.toString("hex"));
  }
  const { headerKey, payloadKey } = deriveFileKeysV1(masterKey, raw.salt);
  const expected = computeHeaderMac(headerKey, bytes.subarray(0, V1_HEADER_LENGTH));
  if (!timingSafeEqual(expected, raw.mac)) throw new HeaderTamperedError();
  // Field values are checked only after the MAC, so a flipped compression byte reads as
  // tampering rather than as "unsupported compression".
  return { header: validateHeaderV1(raw), payloadKey };
}

function parseHeaderV1(bytes: Uint8Array): RawHeaderV1 {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, V1_HEADER_LENGTH);
  return {
    compressionCode: b.readUInt8(10),
    payloadKindCode: b.readUInt8(11),
    chunkSize: b.readUInt32BE(12),
    createdAtMs: b.readBigUInt64BE(16),
    salt: b.subarray(24, 24 + SALT_LENGTH),
    keyId: b.subarray(56, 56 + KEY_ID_LENGTH),
    mac: b.subarray(V1_MAC_OFFSET, V1_HEADER_LENGTH),
  };
}

function validateHeaderV1(raw: RawHeaderV1): ArchiveHeader {
  const compression = findCompressionName(raw.compressionCode);
  if (!compression) throw new UnsupportedCompressionError(raw.compressionCode);
  const payloadKind = findPayloadKindName(raw.payloadKindCode);
  if (!payloadKind) throw new UnsupportedPayloadKindError(raw.payloadKindCode);
  if (raw.chunkSize < MIN_CHUNK_SIZE || raw.chunkSize > MAX_CHUNK_SIZE) {
    throw new MalformedHeaderError(`chunk size ${raw.chunkSize} is out of range`);
  }
  if (raw.createdAtMs > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new MalformedHeaderError("created-at is out of range");
  }
  return {
    version: FORMAT_VERSION_1,
    compression,
    payloadKind,
    chunkSize: raw.chunkSize,
    createdAt: new Date(Number(raw.createdAtMs)),
    keyId: raw.keyId.toString("hex"),
    salt: raw.salt.toString("hex"),
    headerLength: V1_HEADER_LENGTH,
  };
}

function computeHeaderMac(headerKey: Buffer, header: Uint8Array): Buffer {
  return createHmac("sha256", headerKey).update(header.subarray(0, V1_MAC_OFFSET)).digest();
}
