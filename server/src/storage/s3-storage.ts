import { S3Client } from "bun";
import { assertPutOptions, readBody } from "./body";
import { InvalidKeyError, ObjectNotFoundError, StorageError, StorageUnavailableError, UploadIncompleteError } from "./errors";
import { assertKey, assertPrefix, resolveRange } from "./keys";
import type { ByteRange, HttpSource, PutOptions, Storage, StoredObject } from "./types";

export type S3StorageOptions = {
  bucket: string;
  /** Any S3-compatible service; empty: AWS, from the region. */
  endpoint?: string;
  region?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  sessionToken?: string;
  virtualHostedStyle?: boolean;
  /** Every key is stored under this prefix (e.g. "dbvault/"), so one bucket can hold other data. */
  keyPrefix?: string;
  /** Multipart part size; S3 needs ≥ 5 MiB. Memory per streamed put is about partSize × (queueSize + 1). */
  partSize?: number;
  queueSize?: number;
  /** Keys per ListObjectsV2 page (1–1000); tests lower it to exercise pagination. */
  pageSize?: number;
  checkTimeoutMs?: number;
};

const MiB = 1024 * 1024;
const DELETE_CONCURRENCY = 8;

/**
 * Objects in an S3 bucket through Bun's built-in client. A streamed put goes through Bun's
 * multipart upload, which S3 publishes only on completion; when the body fails, overflows or is
 * aborted the stream handed to Bun errors and Bun aborts the multipart upload, so nothing appears.
 */
export class S3Storage implements Storage {
  readonly kind = "s3" as const;
  private readonly client: S3Client;
  private readonly keyPrefix: string;
  private readonly partSize: number;
  private readonly queueSize: number;
  private readonly pageSize: number;
  private readonly checkTimeoutMs: number;

  constructor(options: S3StorageOptions) {
    const { bucket, endpoint, region, accessKeyId, secretAccessKey, sessionToken, virtualHostedStyle } = options;
    this.client = new S3Client({ bucket, endpoint, region, accessKeyId, secretAccessKey, sessionToken, virtualHostedStyle });
    this.keyPrefix = options.keyPrefix ?? "";
    if (this.keyPrefix) assertPrefix(this.keyPrefix);
    this.partSize = options.partSize ?? 5 * MiB;
    this.queueSize = options.queueSize ?? 2;
    this.pageSize = options.pageSize ?? 1000;
    this.checkTimeoutMs = options.checkTimeoutMs ?? 5000;
  }

  async put(key: string, body: ReadableStream<Uint8Array> | Uint8Array, options: PutOptions = {}, rawKey = false) {
    const file = rawKey ? this.client.file(key) : this.fileOf(key);
    assertPutOptions(options);
    const chunks = readBody(key, body, options);
    if (body instanceof Uint8Array) {
      for await (const _ of chunks); // checks maxBytes and the signal; nothing is sent yet
      await file.write(body).catch((error) => Promise.reject(toStorageError(error, key)));
      return { size: body.byteLength };
    }

    let size = 0;
    let failure: unknown;
    const source = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          try {
            const { value, done } = await chunks.next();
            if (done) return controller.close();
            size += value.byteLength;
            controller.enqueue(value);
          } catch (error) {
            failure = error;
            controller.error(error); // makes Bun abort the multipart upload instead of completing it
          }
        },
        async cancel() {
          await chunks.return(undefined); // Bun gave up (e.g. a part failed): cancel the body too
        },
      },
      { highWaterMark: 0 },
    );
    try {
      await file.write(new Response(source), { partSize: this.partSize, queueSize: this.queueSize });
    } catch (error) {
      throw failure ?? toStorageError(error, key);
    }
    if (failure) throw failure;
    return { size };
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
    await this.fileOf(key)
      .delete()
      .catch((error) => (isNotFound(error) ? undefined : Promise.reject(toStorageError(error, key))));
  }

  async deletePrefix(prefix: string): Promise<number> {
    if (prefix === "") throw new InvalidKeyError(prefix, "refusing to delete every object (empty prefix)");
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

  async completeUpload(uploadId: string, key: string, size: number, options: { fileName?: string } = {}): Promise<void> {
    const parts = await this.listRaw(this.stagedPrefix(uploadId));
    const staged = parts.reduce((sum, part) => sum + part.size, 0);
    if (staged !== size) throw new UploadIncompleteError(uploadId, staged, size);
    let index = 0;
    let reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
    const concatenated = new ReadableStream<Uint8Array>(
      {
        pull: async (controller) => {
          for (;;) {
            if (!reader) {
              const part = parts[index++];
              if (!part) return controller.close();
              reader = this.client.file(part.rawKey).stream().getReader();
            }
            const { value, done } = await reader.read();
            if (done) {
              reader = null;
              continue;
            }
            return controller.enqueue(value);
          }
        },
        cancel: (reason) => reader?.cancel(reason),
      },
      { highWaterMark: 0 },
    );
    const disposition = options.fileName ? { contentDisposition: `attachment; filename="${options.fileName}"` } : {};
    await this.fileOf(key)
      .write(new Response(concatenated), { partSize: this.partSize, queueSize: this.queueSize, ...disposition })
      .catch((error) => Promise.reject(toStorageError(error, key)));
    await this.abortUpload(uploadId);
  }

  async abortUpload(uploadId: string): Promise<void> {
    for (const part of await this.listRaw(this.stagedPrefix(uploadId))) {
      await this.client.file(part.rawKey).delete().catch((error) => (isNotFound(error) ? undefined : Promise.reject(toStorageError(error, uploadId))));
    }
  }

  async httpSource(key: string, range?: ByteRange): Promise<HttpSource> {
    const info = await this.stat(key);
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
