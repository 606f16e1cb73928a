/** Every way a mongodump archive can be rejected (reader) or refused (writer). */
export type MongodumpArchiveErrorCode =
  /** The input is not bytes (e.g. a stream in string mode). */
  | "invalid-input"
  /** The first four bytes are not the archive magic number 0x8199e26d. */
  | "bad-magic"
  /** The input ended in the middle of something: a document, a segment, the prelude. */
  | "truncated"
  /** A length prefix is neither a BSON length in range nor the terminator 0xffffffff. */
  | "invalid-length"
  /** A BSON document does not end with its 0x00 byte. */
  | "bad-document-terminator"
  /** A terminator 0xffffffff appears where a block header is required. */
  | "unexpected-terminator"
  /** The archive header document is not valid BSON or lacks its fields. */
  | "invalid-header"
  /** A collection-metadata document or its Extended JSON text is invalid. */
  | "invalid-metadata"
  /** The same namespace is described twice in the prelude. */
  | "duplicate-namespace"
  /** A namespace header or EOF header is not valid BSON or lacks its fields. */
  | "invalid-namespace-header"
  /** A segment or EOF names a namespace the prelude does not describe. */
  | "unknown-namespace"
  /** A namespace has a second EOF header. */
  | "namespace-ended-twice"
  /** A namespace has data after its EOF header. */
  | "segment-after-end"
  /** An EOF header is followed by documents instead of the terminator. */
  | "data-after-eof-header"
  /** The CRC-64 of a namespace's documents differs from the one in its EOF header. */
  | "crc-mismatch"
  /** The input ended while namespaces described in the prelude had not ended. */
  | "unfinished-namespace"
  /** The writer was given a byte array that is not one well-formed BSON document. */
  | "invalid-document"
  /** The writer was used after it was closed or aborted. */
  | "writer-closed";

/** The one error type of the mongodump archive reader and writer; `code` says what went wrong. */
export class MongodumpArchiveError extends Error {
  override readonly name = "MongodumpArchiveError";
  readonly code: MongodumpArchiveErrorCode;
  /** Byte offset in the archive stream where the problem was found, when reading. */
  readonly offset: number | undefined;
  /** The namespace ("db.collection") concerned, when there is one. */
  readonly namespace: string | undefined;

  constructor(code: MongodumpArchiveErrorCode, message: string, details: { offset?: number; namespace?: string; cause?: unknown } = {}) {
    const where = details.offset === undefined ? "" : ` (at byte ${details.offset})`;
    super(`mongodump archive: ${message}${where}`, details.cause === undefined ? undefined : { cause: details.cause });
    this.code = code;
    this.offset = details.offset;
    this.namespace = details.namespace;
  }
}

/** Tells whether a value is a MongodumpArchiveError, optionally with the given code; never throws. */
export function isMongodumpArchiveError(value: unknown, code?: MongodumpArchiveErrorCode): value is MongodumpArchiveError {
  return value instanceof MongodumpArchiveError && (code === undefined || value.code === code);
}

/** Returns a short human description of an unknown thrown value, for wrapping; never throws. */
export function describeCause(cause: unknown): string {
  if (cause instanceof Error) return cause.message;
  return String(cause);
}
