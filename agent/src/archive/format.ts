// Constants and types of the `.enc.dbvault` format. docs/archive-format.md is the normative
// description; every number here appears there too. The version 2 header's layout, which the
// server reads as well, is protocol/archive-header-v2.ts's.

export {
  DATA_KEY_LENGTH,
  HEADER_MAC_LENGTH,
  KEY_ID_LENGTH,
  MAGIC,
  MASTER_KEY_STANZA_LENGTH,
  STANZA_HEAD_LENGTH,
  V2_LENGTH_PREFIX,
  V2_MAX_HEADER_LENGTH,
  V2_MIN_HEADER_LENGTH,
  V2_STANZA_COUNT_OFFSET,
  V2_STANZAS_OFFSET,
  WRAP_KIND_MASTER_KEY,
  WRAP_KIND_X25519,
  WRAP_SALT_LENGTH,
} from "../../../protocol/archive-header-v2.ts";

/** Bytes every version shares: magic (8) then the u16 big-endian format version. */
export const PREFIX_LENGTH = 10;

export const FORMAT_VERSION_1 = 1;
/** Envelope encryption: a random data key per file, wrapped in the header (docs/archive-format.md). */
export const FORMAT_VERSION_2 = 2;
/** The version this build writes. */
export const CURRENT_FORMAT_VERSION = FORMAT_VERSION_2;
export type FormatVersion = typeof FORMAT_VERSION_1 | typeof FORMAT_VERSION_2;

export const SALT_LENGTH = 32;
export const MASTER_KEY_LENGTH = 32;

/** Version 1 header: fixed 104 bytes, the last 32 of which are the HMAC of the first 72. */
export const V1_HEADER_LENGTH = 104;
export const V1_MAC_OFFSET = 72;

/** Chunk frame header: u64 index, u8 flags, u32 plaintext length (all big-endian). */
export const FRAME_HEADER_LENGTH = 13;
export const TAG_LENGTH = 16;
export const FLAG_MORE = 0x00;
export const FLAG_LAST = 0x01;

export const DEFAULT_CHUNK_SIZE = 1024 * 1024;
export const MIN_CHUNK_SIZE = 64;
export const MAX_CHUNK_SIZE = 16 * 1024 * 1024;

/** HKDF info labels (ASCII). Changing one makes every existing file unreadable. */
export const LABEL_KEY_ID = "dbvault key id";
export const LABEL_HEADER_V1 = "dbvault archive v1 header";
export const LABEL_PAYLOAD_V1 = "dbvault archive v1 payload";
export const LABEL_WRAP_V2 = "dbvault archive v2 wrap";
export const LABEL_HEADER_V2 = "dbvault archive v2 header";
export const LABEL_PAYLOAD_V2 = "dbvault archive v2 payload";
export const LABEL_WRAP_X25519 = "dbvault archive v2 x25519";
export const LABEL_RECIPIENT_ID = "dbvault recipient id";

export type Compression = "zstd" | "gzip" | "none";
/** What the payload holds: a mongodump archive (a backup), or concatenated BSON oplog entries (a slice of continuous shipping). */
export type PayloadKind = "mongodump-archive" | "oplog-slice";

/** On-disk byte of each compression. Append only: a value is never reused. */
export const COMPRESSION_CODES: Record<Compression, number> = { none: 0, gzip: 1, zstd: 2 };
/** On-disk byte of each payload kind. Append only: a value is never reused. */
export const PAYLOAD_KIND_CODES: Record<PayloadKind, number> = { "mongodump-archive": 1, "oplog-slice": 2 };

/** The authenticated header of a backup file, as parsed. */
export interface ArchiveHeader {
  version: number;
  compression: Compression;
  payloadKind: PayloadKind;
  /** Plaintext bytes per chunk (of the compressed stream); every chunk but the last is this size. */
  chunkSize: number;
  createdAt: Date;
  /** Hex of the 16-byte key id (fingerprint): which master key can open the file. */
  keyId: string;
  /**
   * Hex of the header's 32-byte random salt: version 1's per-file key-derivation salt; in version 2
   * the wrap salt of the stanza that names `keyId` (new after each rewrap).
   */
  salt: string;
  /** Total header length in bytes; chunk frames start at this offset. */
  headerLength: number;
}

/** Looks up the name of a compression code, or undefined when unknown. */
export function findCompressionName(code: number): Compression | undefined {
  return (Object.keys(COMPRESSION_CODES) as Compression[]).find((n) => COMPRESSION_CODES[n] === code);
}

/** Looks up the name of a payload kind code, or undefined when unknown. */
export function findPayloadKindName(code: number): PayloadKind | undefined {
  return (Object.keys(PAYLOAD_KIND_CODES) as PayloadKind[]).find((n) => PAYLOAD_KIND_CODES[n] === code);
}
