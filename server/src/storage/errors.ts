// Typed storage errors. They are not AppErrors: storage messages name internal keys, so the
// services that call storage decide what (if anything) a user sees.
import { storageFailureReason } from "./failure-reason";

export type StorageErrorCode =
  | "INVALID_KEY"
  | "OBJECT_NOT_FOUND"
  | "RANGE_NOT_SATISFIABLE"
  | "STORAGE_LIMIT"
  | "STORAGE_UNAVAILABLE"
  | "INVALID_STORAGE_URL"
  | "UPLOAD_INCOMPLETE"
  | "OBJECT_LOCKED"
  | "OBJECT_LOCK_UNSUPPORTED";

export class StorageError extends Error {
  constructor(
    readonly code: StorageErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** The key (or prefix) is not a relative `/`-separated path of safe characters. */
export class InvalidKeyError extends StorageError {
  constructor(
    readonly key: string,
    reason: string,
  ) {
    super("INVALID_KEY", `invalid storage key ${JSON.stringify(key)}: ${reason}`);
  }
}

export class ObjectNotFoundError extends StorageError {
  constructor(readonly key: string) {
    super("OBJECT_NOT_FOUND", `no stored object ${JSON.stringify(key)}`);
  }
}

/** The range starts at or past the end of the object, or is malformed (negative, end before start). */
export class RangeNotSatisfiableError extends StorageError {
  constructor(
    readonly key: string,
    readonly range: { start: number; end: number },
    readonly size: number,
  ) {
    super("RANGE_NOT_SATISFIABLE", `range ${range.start}-${range.end} is not satisfiable for ${JSON.stringify(key)} (${size} bytes)`);
  }
}

/** A put body was longer than options.maxBytes; nothing was stored. */
export class StorageLimitError extends StorageError {
  constructor(
    readonly key: string,
    readonly maxBytes: number,
  ) {
    super("STORAGE_LIMIT", `body for ${JSON.stringify(key)} exceeds ${maxBytes} bytes; nothing was stored`);
  }
}

/** The backend could not be reached or written (disk, permissions, network, credentials). */
export class StorageUnavailableError extends StorageError {
  /** Why, in words a user may read ("no space left on device"); null when the cause does not say. */
  readonly reason: string | null;
  constructor(message: string, cause?: unknown) {
    super("STORAGE_UNAVAILABLE", message, { cause });
    this.reason = storageFailureReason(cause);
  }
}

/** STORAGE_URL is not a usable file:// or s3:// URL. The message never repeats credentials. */
export class StorageUrlError extends StorageError {
  constructor(message: string) {
    super("INVALID_STORAGE_URL", `STORAGE_URL: ${message}`);
  }
}

/** A staged upload holds fewer bytes than the object it should become. */
export class UploadIncompleteError extends StorageError {
  constructor(
    readonly uploadId: string,
    readonly staged: number,
    readonly expected: number,
  ) {
    super("UPLOAD_INCOMPLETE", `upload ${uploadId} holds ${staged} of ${expected} bytes`);
  }
}

/** S3 Object Lock keeps the object (a version of it) until its retention ends; nothing was deleted. */
export class ObjectLockedError extends StorageError {
  constructor(readonly key: string) {
    super("OBJECT_LOCKED", `${JSON.stringify(key)} is under Object Lock retention; it can be deleted once that ends`);
  }
}

/** STORAGE_OBJECT_LOCK was asked of a backend that cannot lock objects. */
export class ObjectLockUnsupportedError extends StorageError {
  constructor(backend: string) {
    super(
      "OBJECT_LOCK_UNSUPPORTED",
      `STORAGE_OBJECT_LOCK: the ${backend} backend cannot lock objects; use an s3:// STORAGE_URL whose bucket has Object Lock enabled, or leave STORAGE_OBJECT_LOCK unset`,
    );
  }
}
