import { S3Client } from "bun";
import { assertPutOptions, readBody } from "./body";
import { InvalidKeyError, ObjectLockedError, ObjectNotFoundError, StorageError, StorageUnavailableError, UploadIncompleteError } from "./errors";
import { assertKey, assertPrefix, resolveRange } from "./keys";
import { S3HiddenVersions } from "./s3-hidden-version";
import { S3Http, S3RequestError, type S3Target } from "./s3-http";
import { PartReader, S3MultipartUploader } from "./s3-multipart";
import { type ObjectLockMode, type ObjectVersion, S3ObjectLock } from "./s3-object-lock";
import type { ByteRange, HttpSource, PutOptions, Storage, StoredObject } from "./types";

export type S3StorageOptions = S3Target & {
  /** Every key is stored under this prefix (e.g. "dbvault/"), so one bucket can hold other data. */
  keyPrefix?: string;
  /** Multipart part size; S3 needs ≥ 5 MiB. A streamed put holds queueSize + 1 part buffers. */
  partSize?: number;
  queueSize?: number;
  /** Keys per ListObjectsV2 page (1–1000); tests lower it to exercise pagination. */
  pageSize?: number;
  checkTimeoutMs?: number;
  /** STORAGE_OBJECT_LOCK: objects put with a retainUntil get an Object Lock retention in this mode, and deletes remove versions. */
  objectLock?: ObjectLockMode;
};

const MiB = 1024 * 1024;
const DELETE_CONCURRENCY = 8;

/**
 * Objects in an S3 bucket through Bun's built-in client. A streamed put larger than one part goes
 * up as a multipart upload driven by S3MultipartUploader (see there why not Bun's), which S3
 * publishes only on completion; when the body fails, overflows or is aborted the upload is
 * aborted, so nothing appears.
 */
export class S3Storage implements Storage {
  readonly kind = "s3" as const;
  private readonly client: S3Client;
  private readonly uploader: S3MultipartUploader;
  private readonly lock: S3ObjectLock | null;
  private readonly hidden: S3HiddenVersions | null;
  private readonly http: S3Http;
  private readonly keyPrefix: string;
  private readonly partSize: number;
  private readonly queueSize: number;
  private readonly pageSize: number;
  private readonly checkTimeoutMs: number;

  constructor(options: S3StorageOptions) {
    const { bucket, endpoint, region, accessKeyId, secretAccessKey, sessionToken, virtualHostedStyle } = options;
    const target: S3Target = { bucket, endpoint, region, accessKeyId, secretAccessKey, sessionToken, virtualHostedStyle };
    this.client = new S3Client(target);
    const http = new S3Http(target);
    this.http = http;
    this.uploader = new S3MultipartUploader(http);
    this.lock = options.objectLock ? new S3ObjectLock(http, options.objectLock) : null;
    this.hidden = options.objectLock ? new S3HiddenVersions(http) : null;
    this.keyPrefix = options.keyPrefix ?? "";
    if (this.keyPrefix) assertPrefix(this.keyPrefix);
    this.partSize = options.partSize ?? 5 * MiB;
    this.queueSize = options.queueSize ?? 2;
    this.pageSize = options.pageSize ?? 1000;
    this.checkTimeoutMs = options.checkTimeoutMs ?? 5000;
  }

  get objectLock(): ObjectLockMode | null {
    return this.lock?.mode ?? null;
  }

  async put(key: string, body: ReadableStream<Uint8Array> | Uint8Array, options: PutOptions = {}, rawKey = false) {
    const fullKey = rawKey ? key : this.keyPrefix + key;
    if (!rawKey) assertKey(key);
    assertPutOptions(options);
    const chunks = readBody(key, body, options);
    if (body instanceof Uint8Array) {
      for await (const _ of chunks); // checks maxBytes and the signal; nothing is sent yet
      await this.writeOne(fullKey, body as Uint8Array<ArrayBuffer>, options.retainUntil).catch((error) => Promise.reject(toStorageError(error, key)));
      return { size: body.byteLength };
    }
    let size = 0;
    await this.putChunks(
      fullKey,
      key,
      counted(chunks, (n) => (size += n)),
      { retainUntil: options.retainUntil },
    );
    return { size };
  }

  /**
   * Writes the chunks as one object: a body that fits in one part goes up in one PUT, a larger one
   * as a multipart upload that S3 publishes only on completion. A failing body (its error is
   * rethrown as is) or backend leaves no object and, once the abort went through, no parts.
   */
  private async putChunks(
    fullKey: string,
    label: string,
    chunks: AsyncIterable<Uint8Array>,
    options: { contentDisposition?: string; retainUntil?: Date } = {},
  ): Promise<void> {
    const { contentDisposition, retainUntil } = options;
    let bodyFailure: { error: unknown } | undefined;
    const source = (async function* () {
      try {
        yield* chunks;
      } catch (error) {
        bodyFailure = { error };
        throw error;
      }
    })();
    const body = new PartReader(source);
    try {
      const first = new Uint8Array(this.partSize);
      const filled = await body.fill(first);
      if (filled < first.byteLength) {
        await this.writeOne(fullKey, first.subarray(0, filled), retainUntil, contentDisposition);
      } else {
        await this.uploader.upload(fullKey, first, body, { queueSize: this.queueSize, contentDisposition });
        // S3 would take the lock headers on CreateMultipartUpload only with a checksum on every
        // part; the retention set right after completion is the same lock. Should it fail, the
        // retention pass sets it (it extends every kept backup's lock to what its rule keeps).
        if (this.lock && retainUntil) await this.lock.extend(fullKey, retainUntil);
      }
    } catch (error) {
      throw bodyFailure ? bodyFailure.error : toStorageError(error, label);
    } finally {
      await source.return(undefined); // stops reading (and cancels) the body when the upload failed early
    }
  }

  /** One PUT: Bun's client, or with a retention the lock's signed PutObject (Bun's cannot send the lock headers). */
  private async writeOne(fullKey: string, body: Uint8Array<ArrayBuffer>, retainUntil?: Date, contentDisposition?: string): Promise<void> {
    if (this.lock && retainUntil) return this.lock.put(fullKey, body, retainUntil, contentDisposition);
    await this.client.write(fullKey, body, contentDisposition ? { contentDisposition } : {});
  }

  async get(key: string, range?: ByteRange): Promise<ReadableStream<Uint8Array>> {
    const file = this.fileOf(key);
    // HEAD first: missing objects and bad ranges then fail here, the same way on every S3 flavour.
    const info = await this.stat(key);
    if (!info) throw new ObjectNotFoundError(key);
    const blob = range ? (({ start, end }) => file.slice(start, end + 1))(resolveRange(key, range, info.size)) : file;
    return primeStream(blob.stream(), (error) => toStorageError(error, key));
  }

  async stat(key: string): Promise<StoredObject | null> {
    try {
      const info = await this.fileOf(key).stat();
      return { key, size: info.size, modifiedAt: new Date(info.lastModified) };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw toStorageError(error, key);
    }
  }

  async delete(key: string): Promise<void> {
    if (this.lock) {
      assertKey(key);
      const fullKey = this.keyPrefix + key;
      await this.deleteVersions(
        (await this.lock.versions(fullKey).catch((error) => Promise.reject(toStorageError(error, key)))).filter((v) => v.rawKey === fullKey),
        key,
      );
      return;
    }
    await this.fileOf(key)
      .delete()
      .catch((error) => (isNotFound(error) ? undefined : Promise.reject(toStorageError(error, key))));
  }

  async deletePrefix(prefix: string): Promise<number> {
    if (prefix === "") throw new InvalidKeyError(prefix, "refusing to delete every object (empty prefix)");
    if (this.lock) {
      assertPrefix(prefix);
      const versions = await this.lock.versions(this.keyPrefix + prefix).catch((error) => Promise.reject(toStorageError(error, prefix)));
      await this.deleteVersions(versions, prefix);
      return new Set(versions.map((version) => version.rawKey)).size;
    }
    const keys = (await this.list(prefix)).map((object) => object.key);
    let next = 0;
    const worker = async () => {
      while (next < keys.length) await this.delete(keys[next++]!);
    };
    await Promise.all(Array.from({ length: Math.min(DELETE_CONCURRENCY, keys.length) }, worker));
    return keys.length;
  }

  async list(prefix: string): Promise<StoredObject[]> {
    assertPrefix(prefix);
    const found = await this.listRaw(this.keyPrefix + prefix, prefix);
    return found
      .map(({ rawKey, size, modifiedAt }) => ({ key: rawKey.slice(this.keyPrefix.length), size, modifiedAt }))
      .filter(({ key }) => !key.startsWith(".")); // staged upload parts are not objects yet
  }

  /**
   * With a lock on, every version goes by id (a plain DELETE in a versioned bucket only adds a
   * delete marker and the bytes stay). Versions under retention stay: ObjectLockedError once the
   * others are gone.
   */
  private async deleteVersions(versions: ObjectVersion[], label: string): Promise<void> {
    let next = 0;
    let locked: unknown;
    const worker = async () => {
      while (next < versions.length) {
        await this.lock!.deleteVersion(versions[next++]!, label).catch((error) => {
          if (error instanceof ObjectLockedError) locked ??= error;
          else throw error;
        });
      }
    };
    await Promise.all(Array.from({ length: Math.min(DELETE_CONCURRENCY, versions.length) }, worker));
    if (locked) throw locked;
  }

  async retain(key: string, until: Date): Promise<void> {
    const fullKey = this.keyPrefix + key;
    assertKey(key);
    if (!this.lock) {
      if (!(await this.stat(key))) throw new ObjectNotFoundError(key);
      return;
    }
    await this.lock
      .extend(fullKey, until)
      .catch((error) => Promise.reject(error instanceof S3RequestError && error.status === 404 ? new ObjectNotFoundError(key) : toStorageError(error, key)));
  }

  /** STORAGE_OBJECT_LOCK's start-up check: throws, naming what the bucket lacks, unless it has versioning and Object Lock enabled. */
  async checkObjectLock(): Promise<void> {
    if (!this.lock) return;
    const missing = await this.lock
      .missingBucketSettings()
      .catch((error) => Promise.reject(new StorageUnavailableError(`S3 storage is unreachable: ${describe(error)}`, error)));
    if (missing.length > 0) {
      throw new StorageUnavailableError(
        `STORAGE_OBJECT_LOCK=${this.lock.mode} needs a bucket with versioning and Object Lock enabled; this bucket has no ${missing.join(" and no ")}. ` +
          "Object Lock can only be enabled on a new bucket (or by AWS support): create one with it (aws s3api create-bucket --object-lock-enabled-for-bucket), or unset STORAGE_OBJECT_LOCK.",
      );
    }
  }

  async check(): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${this.checkTimeoutMs} ms`)), this.checkTimeoutMs);
    });
    try {
      await Promise.race([this.client.list({ prefix: this.keyPrefix, maxKeys: 1 }), timeout]);
    } catch (error) {
      throw new StorageUnavailableError(`S3 storage is unreachable: ${describe(error)}`, error);
    } finally {
      clearTimeout(timer);
    }
  }

  // Staged parts live outside the key space (a leading dot no key may have), one object per part;
  // completion streams them in order into the final object. (Bun's client does not expose S3's
  // own UploadPart/UploadPartCopy across requests, so the bytes pass through this server once.)

  async writeUploadPart(uploadId: string, partNumber: number, _offset: number, body: ReadableStream<Uint8Array> | Uint8Array, options: PutOptions = {}) {
    return this.put(this.stagedPartKey(uploadId, partNumber), body, options, true);
  }

  async completeUpload(uploadId: string, key: string, size: number, options: { fileName?: string; retainUntil?: Date } = {}): Promise<void> {
    const parts = await this.listRaw(this.stagedPrefix(uploadId));
    const staged = parts.reduce((sum, part) => sum + part.size, 0);
    if (staged !== size) throw new UploadIncompleteError(uploadId, staged, size);
    const client = this.client;
    // The parts are this backend's own reads, not a caller's body: putChunks rethrows a body's
    // error as it is, so S3's failures are typed here. A part gone since the listing was taken by
    // another completion of this upload (an agent's retry), as the filesystem backend reports it.
    async function* concatenated() {
      for (const part of parts) {
        try {
          yield* client.file(part.rawKey).stream();
        } catch (error) {
          throw isNotFound(error) ? new UploadIncompleteError(uploadId, 0, size) : toStorageError(error, uploadId);
        }
      }
    }
    const disposition = options.fileName ? `attachment; filename="${options.fileName}"` : undefined;
    assertKey(key);
    await this.putChunks(this.keyPrefix + key, key, concatenated(), { contentDisposition: disposition, retainUntil: options.retainUntil });
    await this.abortUpload(uploadId);
  }

  async abortUpload(uploadId: string): Promise<void> {
    if (this.lock) {
      const versions = await this.lock.versions(this.stagedPrefix(uploadId)).catch((error) => Promise.reject(toStorageError(error, uploadId)));
      return this.deleteVersions(versions, uploadId);
    }
    for (const part of await this.listRaw(this.stagedPrefix(uploadId))) {
      await this.client
        .file(part.rawKey)
        .delete()
        .catch((error) => (isNotFound(error) ? undefined : Promise.reject(toStorageError(error, uploadId))));
    }
  }

  async httpSource(key: string, range?: ByteRange, expected?: { size: number; sha256?: string | null }): Promise<HttpSource> {
    const info = await this.stat(key);
    // A delete marker or an overwrite through S3 (the bucket's own keys, stolen) hides the version
    // DBVault wrote; under Object Lock it is still stored, and it is what is served.
    if (this.hidden && expected) {
      const hidden = await this.hidden.find(this.keyPrefix + key, expected).catch((error) => Promise.reject(toStorageError(error, key)));
      if (hidden) {
        if (range) resolveRange(key, range, expected.size);
        const url = await this.http.presignGet(this.keyPrefix + key, { versionId: hidden.versionId }, 15 * 60);
        return { kind: "redirect", url, hiddenVersion: hidden.versionId };
      }
    }
    if (!info) throw new ObjectNotFoundError(key);
    if (range) resolveRange(key, range, info.size);
    // The client fetches from S3 itself (which answers Content-Length and ranges); the URL is short-lived.
    return { kind: "redirect", url: this.fileOf(key).presign({ method: "GET", expiresIn: 15 * 60 }) };
  }

  private stagedPrefix(uploadId: string) {
    assertKey(uploadId);
    return `${this.keyPrefix}.uploads/${uploadId}/`;
  }

  private stagedPartKey(uploadId: string, partNumber: number) {
    return `${this.stagedPrefix(uploadId)}part-${String(partNumber).padStart(6, "0")}`;
  }

  /** Every object whose full key starts with `rawPrefix`, sorted by key, across pages. */
  private async listRaw(rawPrefix: string, label = rawPrefix): Promise<{ rawKey: string; size: number; modifiedAt: Date }[]> {
    const found: { rawKey: string; size: number; modifiedAt: Date }[] = [];
    let continuationToken: string | undefined;
    let startAfter: string | undefined;
    while (true) {
      const page = await this.client
        .list({ prefix: rawPrefix, maxKeys: this.pageSize, continuationToken, startAfter })
        .catch((error) => Promise.reject(toStorageError(error, label)));
      for (const item of page.contents ?? []) {
        found.push({ rawKey: item.key, size: item.size ?? 0, modifiedAt: new Date(item.lastModified ?? 0) });
      }
      if (!page.isTruncated) break;
      // Some S3-compatible servers omit NextContinuationToken; StartAfter pages just as well.
      continuationToken = page.nextContinuationToken;
      startAfter = continuationToken ? undefined : page.contents?.at(-1)?.key;
      if (!continuationToken && !startAfter) break;
    }
    return found.sort((a, b) => (a.rawKey < b.rawKey ? -1 : a.rawKey > b.rawKey ? 1 : 0));
  }

  private fileOf(key: string) {
    assertKey(key);
    return this.client.file(this.keyPrefix + key);
  }
}

async function* counted(chunks: AsyncIterable<Uint8Array>, onChunk: (bytes: number) => void): AsyncGenerator<Uint8Array> {
  for await (const chunk of chunks) {
    onChunk(chunk.byteLength);
    yield chunk;
  }
}

function isNotFound(error: unknown): boolean {
  const code = (error as { code?: string })?.code;
  return code === "NoSuchKey" || code === "NotFound";
}

function describe(error: unknown): string {
  const { code, message } = (error ?? {}) as { code?: string; message?: string };
  return code && message && !message.includes(code) ? `${code}: ${message}` : (message ?? String(error));
}

/** Typed errors pass through; anything the client throws becomes ObjectNotFoundError or StorageUnavailableError. */
function toStorageError(error: unknown, key: string): Error {
  if (error instanceof StorageError) return error;
  if (isNotFound(error)) return new ObjectNotFoundError(key);
  return new StorageUnavailableError(`S3 request for ${JSON.stringify(key)} failed: ${describe(error)}`, error);
}

/**
 * Starts reading so that a failure to open the object surfaces from get() rather than from the
 * first read; later failures reach the reader as typed errors.
 */
async function primeStream(stream: ReadableStream<Uint8Array>, mapError: (error: unknown) => Error): Promise<ReadableStream<Uint8Array>> {
  const reader = stream.getReader();
  let first: Awaited<ReturnType<typeof reader.read>> | null;
  try {
    first = await reader.read();
  } catch (error) {
    throw mapError(error);
  }
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const { value, done } = first ?? (await reader.read());
          first = null;
          if (done) return controller.close();
          controller.enqueue(value);
        } catch (error) {
          controller.error(mapError(error));
        }
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}
