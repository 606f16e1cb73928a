// The header fields every version shares (compression, payload kind, chunk size, created-at):
// checked the same way when writing and, after authentication, when reading.
import { createHmac } from "node:crypto";
import { InvalidOptionsError, MalformedHeaderError, NotAnArchiveError, UnsupportedCompressionError, UnsupportedPayloadKindError } from "./errors.ts";
import {
  type ArchiveHeader,
  COMPRESSION_CODES,
  type Compression,
  findCompressionName,
  findPayloadKindName,
  MAGIC,
  MAX_CHUNK_SIZE,
  MIN_CHUNK_SIZE,
  PAYLOAD_KIND_CODES,
  type PayloadKind,
} from "./format.ts";

/** What a writer puts in the shared fields. */
export interface HeaderFieldsInput {
  compression: Compression;
  payloadKind: PayloadKind;
  chunkSize: number;
  createdAt: Date;
}

/** The shared fields as stored. */
export interface RawHeaderFields {
  compressionCode: number;
  payloadKindCode: number;
  chunkSize: number;
  createdAtMs: bigint;
}

/**
 * Writes the shared fields at `offset` (10 in version 1, 12 in version 2), in the order every
 * version keeps: compression (1), payload kind (1), chunk size (4), created-at (8).
 */
export function writeHeaderFields(bytes: Buffer, offset: number, fields: RawHeaderFields): void {
  bytes.writeUInt8(fields.compressionCode, offset);
  bytes.writeUInt8(fields.payloadKindCode, offset + 1);
  bytes.writeUInt32BE(fields.chunkSize, offset + 2);
  bytes.writeBigUInt64BE(fields.createdAtMs, offset + 6);
}

/** Reads the shared fields written by writeHeaderFields. */
export function readHeaderFields(bytes: Buffer, offset: number): RawHeaderFields {
  return {
    compressionCode: bytes.readUInt8(offset),
    payloadKindCode: bytes.readUInt8(offset + 1),
    chunkSize: bytes.readUInt32BE(offset + 2),
    createdAtMs: bytes.readBigUInt64BE(offset + 6),
  };
}

/** Checks writer options and returns their stored form; throws InvalidOptionsError. */
export function encodeHeaderFields(input: HeaderFieldsInput): RawHeaderFields {
  assertChunkSize(input.chunkSize);
  const createdAtMs = input.createdAt.getTime();
  if (!Number.isSafeInteger(createdAtMs) || createdAtMs < 0) {
    throw new InvalidOptionsError("createdAt must be a valid date after 1970-01-01");
  }
  const compressionCode = COMPRESSION_CODES[input.compression];
  if (compressionCode === undefined) {
    throw new InvalidOptionsError(`compression must be zstd, gzip or none`);
  }
  const payloadKindCode = PAYLOAD_KIND_CODES[input.payloadKind];
  if (payloadKindCode === undefined) throw new InvalidOptionsError(`payloadKind must be one of ${Object.keys(PAYLOAD_KIND_CODES).join(", ")}`);
  return { compressionCode, payloadKindCode, chunkSize: input.chunkSize, createdAtMs: BigInt(createdAtMs) };
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

/** Checks stored field values (after the MAC, so a damaged byte reads as tampering). */
export function validateHeaderFields(raw: RawHeaderFields): Pick<ArchiveHeader, "compression" | "payloadKind" | "chunkSize" | "createdAt"> {
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
  return { compression, payloadKind, chunkSize: raw.chunkSize, createdAt: new Date(Number(raw.createdAtMs)) };
}

/** HMAC-SHA-256 of the header bytes before the MAC. */
export function computeHeaderMac(headerKey: Buffer, header: Uint8Array, macOffset: number): Buffer {
  return createHmac("sha256", headerKey).update(header.subarray(0, macOffset)).digest();
}
