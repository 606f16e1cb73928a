// Constants and types of the `.enc.dbvault` format. docs/archive-format.md is the normative
// description; every number here appears there too.

/** First 8 bytes of every DBVault file: 0x89 then "DBVAULT" (the high byte catches 7-bit damage). */
export const MAGIC = Uint8Array.of(0x89, 0x44, 0x42, 0x56, 0x41, 0x55, 0x4c, 0x54);

/** Bytes every version shares: magic (8) then the u16 big-endian format version. */
export const PREFIX_LENGTH = 10;

export const FORMAT_VERSION_1 = 1;
/** Envelope encryption: a random data key per file, wrapped in the header (docs/archive-format.md). */
export const FORMAT_VERSION_2 = 2;
/** The version this build writes. */
export const CURRENT_FORMAT_VERSION = FORMAT_VERSION_2;
export type FormatVersion = typeof FORMAT_VERSION_1 | typeof FORMAT_VERSION_2;

export const SALT_LENGTH = 32;
export const KEY_ID_LENGTH = 16;
export const HEADER_MAC_LENGTH = 32;
export const MASTER_KEY_LENGTH = 32;

/** Version 1 header: fixed 104 bytes, the last 32 of which are the HMAC of the first 72. */
export const V1_HEADER_LENGTH = 104;
export const V1_MAC_OFFSET = 72;

/** Version 2 header: bytes 10-11 hold its total length H, so it is known from the first 12 bytes. */
export const V2_LENGTH_PREFIX = 12;
/** Offset of the stanza count; the stanzas follow it and the 32-byte MAC ends the header. */
export const V2_STANZA_COUNT_OFFSET = 26;
export const V2_STANZAS_OFFSET = 27;
/** Kind byte, u16 body length. */
export const STANZA_HEAD_LENGTH = 3;
export const DATA_KEY_LENGTH = 32;
/** Per-wrap random salt of a master-key stanza: each wrap has its own key, so its nonce can be fixed. */
export const WRAP_SALT_LENGTH = 32;
/** Wrap kinds of version 2 stanzas. Append only: a value is never reused. */
export const WRAP_KIND_MASTER_KEY = 0x01;
/** The data key sealed to an X25519 public key (write-only agents); see x25519-recipient.ts. */
export const WRAP_KIND_X25519 = 0x02;
/** Master-key stanza body: key id ‖ wrap salt ‖ wrapped data key ‖ GCM tag. */
export const MASTER_KEY_STANZA_LENGTH = KEY_ID_LENGTH + WRAP_SALT_LENGTH + DATA_KEY_LENGTH + 16;
/** Readers refuse a smaller or larger header before reading it (the length is not authenticated yet). */
export const V2_MIN_HEADER_LENGTH = V2_STANZAS_OFFSET + STANZA_HEAD_LENGTH + 32;
export const V2_MAX_HEADER_LENGTH = 65535;

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
