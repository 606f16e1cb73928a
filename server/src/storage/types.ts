/** Inclusive byte range, like HTTP Range: `{ start: 0, end: 0 }` is the first byte. */
export type ByteRange = { start: number; end: number };

export type StoredObject = { key: string; size: number; modifiedAt: Date };

export type PutOptions = {
  /** Longer bodies fail with StorageLimitError and store nothing. */
  maxBytes?: number;
  /** Aborting fails the put with the signal's reason and stores nothing. */
  signal?: AbortSignal;
  /** With an Object Lock (Storage.objectLock), the object can be neither deleted nor its retention shortened before then; ignored without one. */
  retainUntil?: Date;
};

/**
 * Object storage for backup parts and their metadata. Keys are relative `/`-separated paths of
 * safe characters (see keys.ts); every backend passes the shared suite in server/test/storage/storage-suite.ts.
 */
export interface Storage {
  readonly kind: "file" | "s3";
  /** The Object Lock mode objects given a retainUntil are written with; null when off (the file backend cannot lock). */
  readonly objectLock: "compliance" | "governance" | null;
  /** Writes `body` to `key` atomically (readers never see a partial object; a failed or aborted write leaves no object); returns bytes written. Throws StorageLimitError (and writes nothing) when body exceeds options.maxBytes. */
  put(key: string, body: ReadableStream<Uint8Array> | Uint8Array, options?: PutOptions): Promise<{ size: number }>;
  /** Streams the object or a byte range of it (an end past the last byte is clamped, as in HTTP). Throws ObjectNotFoundError, RangeNotSatisfiableError. */
  get(key: string, range?: ByteRange): Promise<ReadableStream<Uint8Array>>;
  /** Size and modification time of an object, or null when there is none. */
  stat(key: string): Promise<StoredObject | null>;
  /** Idempotent. Throws ObjectLockedError (and keeps the object) while its Object Lock retention lasts. */
  delete(key: string): Promise<void>;
  /** Deletes every object under the prefix; returns how many. Refuses the empty prefix. Throws ObjectLockedError when one is locked (the others may be gone). */
  deletePrefix(prefix: string): Promise<number>;
  /** Objects under the prefix, sorted by key. */
  list(prefix: string): Promise<StoredObject[]>;
  /** Extends the object's Object Lock retention to `until` (never shortens it); nothing without a lock. Throws ObjectNotFoundError. */
  retain(key: string, until: Date): Promise<void>;
  /** Cheap health check (used by the service status endpoint); throws when the backend is unreachable/unwritable. */
  check(): Promise<void>;

  // Staged uploads: an object assembled from numbered parts that arrive in separate requests (in
  // any order, each may be sent again) and becomes visible, whole, only when completed.

  /** Writes `body` as the bytes at `offset` of the staged upload `uploadId` (a key-like id), replacing what a repeated part wrote. Throws StorageLimitError past options.maxBytes. */
  writeUploadPart(
    uploadId: string,
    partNumber: number,
    offset: number,
    body: ReadableStream<Uint8Array> | Uint8Array,
    options?: PutOptions,
  ): Promise<{ size: number }>;
  /** Publishes the first `size` bytes of the staged upload as the object `key`, atomically, with `fileName` as its download name; the staged parts go. Throws UploadIncompleteError when fewer bytes were staged. */
  completeUpload(uploadId: string, key: string, size: number, options?: { fileName?: string; retainUntil?: Date }): Promise<void>;
  /** Discards a staged upload. Idempotent. */
  abortUpload(uploadId: string): Promise<void>;
  /**
   * How an HTTP response should hand out the object (or a byte range of it): a Blob, which Bun
   * sends with Content-Length (as sendfile for local files), or a short-lived URL to redirect to.
   * Throws ObjectNotFoundError, RangeNotSatisfiableError. On a bucket under Object Lock, an object
   * hidden by a delete marker, or overwritten (its size is not `expected.size`, or its bytes'
   * SHA-256 not `expected.sha256`), is served from the stored version that a delete or an
   * overwrite through S3 left (`hiddenVersion` names it).
   */
  httpSource(key: string, range?: ByteRange, expected?: { size: number; sha256?: string | null }): Promise<HttpSource>;
}

export type HttpSource = { kind: "blob"; blob: Blob; size: number } | { kind: "redirect"; url: string; hiddenVersion?: string };
