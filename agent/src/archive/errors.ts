// Every way reading or writing a `.enc.dbvault` file can fail has its own class and a stable
// `code`, so the CLI, the agent protocol and the web app can tell them apart without parsing
// messages. Messages never contain key material: at most a key id (a public fingerprint).

/** Stable machine-readable codes of every archive error. */
export type ArchiveErrorCode =
  | "ARCHIVE_NOT_DBVAULT"
  | "ARCHIVE_UNSUPPORTED_VERSION"
  | "ARCHIVE_TRUNCATED"
  | "ARCHIVE_WRONG_KEY"
  | "ARCHIVE_NEEDS_IDENTITY"
  | "ARCHIVE_HEADER_TAMPERED"
  | "ARCHIVE_HEADER_MALFORMED"
  | "ARCHIVE_UNSUPPORTED_COMPRESSION"
  | "ARCHIVE_UNSUPPORTED_PAYLOAD_KIND"
  | "ARCHIVE_CHUNK_CORRUPT"
  | "ARCHIVE_CHUNKS_REORDERED"
  | "ARCHIVE_TRAILING_DATA"
  | "ARCHIVE_DECOMPRESSION_FAILED"
  | "ARCHIVE_INVALID_KEY"
  | "ARCHIVE_INVALID_OPTIONS";

/** Base class of every error thrown by the archive library. */
export abstract class ArchiveError extends Error {
  abstract readonly code: ArchiveErrorCode;
}

/** The bytes do not start with the DBVault magic number. */
export class NotAnArchiveError extends ArchiveError {
  readonly code = "ARCHIVE_NOT_DBVAULT";
  constructor() {
    super("not a dbvault backup file: it does not start with the .enc.dbvault magic bytes");
  }
}

/** The file declares a format version this build cannot read. */
export class UnsupportedVersionError extends ArchiveError {
  readonly code = "ARCHIVE_UNSUPPORTED_VERSION";
  constructor(readonly version: number) {
    super(`unsupported backup file format version ${version}: this agent reads versions 1 and 2; ` + "upgrade dbvault-agent to read it");
  }
}

/** Where the input stopped in a truncated file. */
export type TruncationPoint = "header" | "chunk-boundary" | "mid-chunk";

/** The input ended before the chunk flagged last was complete. */
export class TruncatedArchiveError extends ArchiveError {
  readonly code = "ARCHIVE_TRUNCATED";
  constructor(
    readonly at: TruncationPoint,
    readonly chunkIndex: number,
  ) {
    const where =
      at === "header"
        ? "inside the header"
        : at === "mid-chunk"
          ? `in the middle of chunk ${chunkIndex}`
          : chunkIndex === 0
            ? "right after the header, before any chunk"
            : `after chunk ${chunkIndex - 1}, which is not the last chunk`;
    super(`backup file is truncated: it ends ${where}; ` + "the download or upload was cut short, fetch the file again");
  }
}

/**
 * The file was encrypted with a master key other than the one supplied, and other than every key
 * of the keyring when one was supplied. Names key ids (public fingerprints) only.
 */
export class WrongKeyError extends ArchiveError {
  readonly code = "ARCHIVE_WRONG_KEY";
  /** Ids of every key tried: the current key first, then the keyring's older keys. */
  readonly keyringKeyIds: string[];
  constructor(
    readonly fileKeyId: string,
    readonly suppliedKeyId: string,
    keyringKeyIds: string[] = [suppliedKeyId],
  ) {
    super(
      keyringKeyIds.length > 1
        ? `wrong key: this backup was encrypted with the key whose id is ${fileKeyId}, ` +
            `and no key of the keyring (ids ${keyringKeyIds.join(", ")}) has that id; ` +
            "import that key (dbvault-agent key import) from the keyring export of the agent that made the backup"
        : `wrong key: this backup was encrypted with the key whose id is ${fileKeyId}, ` +
            `but the key supplied has id ${suppliedKeyId}; ` +
            "use the master key of the agent that made the backup (dbvault-agent key export)",
    );
    this.keyringKeyIds = keyringKeyIds;
  }
}

/**
 * The backup was sealed to a write-only agent's public key (an X25519 recipient) and no identity
 * supplied is its private key. Names fingerprints only, never key bytes.
 */
export class NeedsIdentityError extends ArchiveError {
  readonly code = "ARCHIVE_NEEDS_IDENTITY";
  constructor(
    readonly recipientFingerprint: string,
    readonly suppliedFingerprints: string[],
  ) {
    super(
      suppliedFingerprints.length === 0
        ? `this backup was sealed by a write-only agent to the public key whose fingerprint is ${recipientFingerprint}; ` +
            "only its private key (the identity file saved when write-only mode was turned on) can open it"
        : `this backup was sealed to the public key whose fingerprint is ${recipientFingerprint}, ` +
            `but the identity supplied is for ${suppliedFingerprints.join(", ")}`,
    );
  }
}

/** The header authentication code does not match: a header byte was changed. */
export class HeaderTamperedError extends ArchiveError {
  readonly code = "ARCHIVE_HEADER_TAMPERED";
  constructor() {
    super("backup file header failed authentication: it was modified or corrupted after it was written");
  }
}

/** A header field holds a value no valid writer produces (e.g. an impossible chunk size). */
export class MalformedHeaderError extends ArchiveError {
  readonly code = "ARCHIVE_HEADER_MALFORMED";
  constructor(detail: string) {
    super(`backup file header is malformed: ${detail}`);
  }
}

/** The header names a compression this build does not know. */
export class UnsupportedCompressionError extends ArchiveError {
  readonly code = "ARCHIVE_UNSUPPORTED_COMPRESSION";
  constructor(readonly value: number) {
    super(`unsupported compression ${value} in backup file header: ` + "upgrade dbvault-agent to read this file");
  }
}

/** The header names a payload kind this build does not know. */
export class UnsupportedPayloadKindError extends ArchiveError {
  readonly code = "ARCHIVE_UNSUPPORTED_PAYLOAD_KIND";
  constructor(readonly value: number) {
    super(`unsupported payload kind ${value} in backup file header: ` + "upgrade dbvault-agent to read this file");
  }
}

/** A chunk failed authentication (a flipped bit, a damaged frame, or a chunk from another file). */
export class CorruptChunkError extends ArchiveError {
  readonly code = "ARCHIVE_CHUNK_CORRUPT";
  constructor(
    readonly chunkIndex: number,
    detail = "it failed authentication",
  ) {
    super(`backup file is corrupted at chunk ${chunkIndex}: ${detail}; ` + "no data from that chunk was output; fetch the file again or use another backup");
  }
}

/** A valid chunk of this file sits at the wrong position (chunks reordered, duplicated or lost). */
export class ReorderedChunksError extends ArchiveError {
  readonly code = "ARCHIVE_CHUNKS_REORDERED";
  constructor(
    readonly position: number,
    readonly foundChunkIndex: number,
  ) {
    super(
      `backup file chunks are out of order: position ${position} holds chunk ${foundChunkIndex}; ` +
        "parts of the file were reordered, duplicated or lost in transfer, fetch the file again",
    );
  }
}

/** Bytes follow the chunk flagged last. */
export class TrailingDataError extends ArchiveError {
  readonly code = "ARCHIVE_TRAILING_DATA";
  constructor(readonly lastChunkIndex: number) {
    super(
      `backup file has unexpected bytes after its last chunk (chunk ${lastChunkIndex}); ` + "the file was appended to or badly reassembled, fetch it again",
    );
  }
}

/** Authenticated payload bytes could not be decompressed (a writer bug, not tampering). */
export class DecompressionError extends ArchiveError {
  readonly code = "ARCHIVE_DECOMPRESSION_FAILED";
  constructor(compression: string, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(`backup payload could not be decompressed with ${compression}: ${reason}`, { cause });
  }
}

/** A master key is not 32 bytes, or its text form is mistyped. */
export class InvalidKeyError extends ArchiveError {
  readonly code = "ARCHIVE_INVALID_KEY";
  constructor(detail: string) {
    super(`invalid master key: ${detail}`);
  }
}

/** An option passed to the library is out of range. */
export class InvalidOptionsError extends ArchiveError {
  readonly code = "ARCHIVE_INVALID_OPTIONS";
  constructor(detail: string) {
    super(`invalid archive options: ${detail}`);
  }
}
