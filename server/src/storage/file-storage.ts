import { randomUUID } from "node:crypto";
import { type FileHandle, mkdir, open, readdir, rename, rm, rmdir, stat, unlink, writeFile } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import { assertPutOptions, readBody } from "./body";
import { InvalidKeyError, ObjectNotFoundError, StorageUnavailableError, UploadIncompleteError } from "./errors";
import { assertKey, assertPrefix, isKeySegment, resolveRange } from "./keys";
import { createEarlyWriteback, removeStagedUpload, sealStagedUpload, stagedUploadPath, UPLOADS_DIR, writeStagedPart } from "./file-uploads";
import type { ByteRange, HttpSource, PutOptions, Storage, StoredObject } from "./types";

const TEMP_DIR = ".tmp"; // inside the root, so renames stay on one filesystem (atomic)
const STALE_TEMP_MS = 60 * 60 * 1000; // no put takes an hour; older temp files are crash debris
const READ_CHUNK = 256 * 1024;

type FsError = Error & { code?: string };
const codeOf = (error: unknown) => (error as FsError)?.code;

/**
 * Filesystem errors that say the storage cannot be used now, whatever the key: full (ENOSPC,
 * EDQUOT, EFBIG past the file size limit), read-only or forbidden, failing, or a root that is not
 * a directory. They become StorageUnavailableError, as the S3 backend's failures do, so callers
 * can tell "storage is down" from a bug.
 */
const UNAVAILABLE_CODES = new Set(["ENOSPC", "EDQUOT", "EFBIG", "EROFS", "EACCES", "EPERM", "EIO", "ENOTDIR"]);

/**
 * Objects as files under a root directory. A put streams into `<root>/.tmp/<uuid>`, fsyncs and
 * renames into place, so readers see the old object or the whole new one and a crash leaves only
 * temp debris, removed at the next start once it is an hour old.
 */
export class FileStorage implements Storage {
  readonly kind = "file" as const;
  /** A file on a disk has no retention its owner cannot undo: this backend cannot lock (STORAGE_OBJECT_LOCK needs s3://). */
  readonly objectLock = null;
  /** Settles once the start-up sweep of stale temp files is done (it never rejects). */
  readonly ready: Promise<void>;
  private readonly tempDir: string;
  private readonly writeback = createEarlyWriteback();

  constructor(readonly root: string) {
    this.tempDir = join(root, TEMP_DIR);
    this.ready = this.removeStaleTempFiles().then(
      () => {},
      () => {},
    );
  }

  /** Deletes temp files older than maxAgeMs (left by crashed puts); returns how many. */
  async removeStaleTempFiles(maxAgeMs = STALE_TEMP_MS): Promise<number> {
    const names = await readdir(this.tempDir).catch((error) => (codeOf(error) === "ENOENT" ? [] : Promise.reject(error)));
    let removed = 0;
    for (const name of names) {
      const path = join(this.tempDir, name);
      const info = await stat(path).catch(() => null);
      if (info && Date.now() - info.mtimeMs > maxAgeMs) {
        await rm(path, { recursive: true, force: true });
        removed++;
      }
    }
    return removed;
  }

  put(key: string, body: ReadableStream<Uint8Array> | Uint8Array, options: PutOptions = {}) {
    return this.unavailableOnFsFailure(() => this.putFile(key, body, options));
  }

  private async putFile(key: string, body: ReadableStream<Uint8Array> | Uint8Array, options: PutOptions) {
    const target = this.pathOf(key);
    assertPutOptions(options);
    options.signal?.throwIfAborted();
    await mkdir(this.tempDir, { recursive: true });
    const temp = join(this.tempDir, `${randomUUID()}.part`);
    const handle = await open(temp, "wx");
    let size = 0;
    try {
      try {
        for await (const chunk of readBody(key, body, options)) {
          await writeFully(handle, chunk);
          size += chunk.byteLength;
        }
        await handle.sync();
      } finally {
        await handle.close();
      }
      options.signal?.throwIfAborted();
      await this.moveIntoPlace(key, temp, target);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
    return { size };
  }

  get(key: string, range?: ByteRange): Promise<ReadableStream<Uint8Array>> {
    return this.unavailableOnFsFailure(() => this.openFile(key, range));
  }

  private async openFile(key: string, range?: ByteRange): Promise<ReadableStream<Uint8Array>> {
    const path = this.pathOf(key);
    // Read through one open descriptor: a concurrent overwrite or delete cannot change what this
    // reader sees halfway (the old file lives on until the descriptor closes).
    const handle = await open(path, "r").catch((error) => {
      if (["ENOENT", "ENOTDIR", "EISDIR"].includes(codeOf(error) ?? "")) throw new ObjectNotFoundError(key);
      throw error;
    });
    try {
      const info = await handle.stat();
      if (!info.isFile()) throw new ObjectNotFoundError(key);
      const { start, end } = range ? resolveRange(key, range, info.size) : { start: 0, end: info.size - 1 };
      return streamFile(handle, start, end);
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  async stat(key: string): Promise<StoredObject | null> {
    const info = await stat(this.pathOf(key)).catch(() => null);
    return info?.isFile() ? { key, size: info.size, modifiedAt: info.mtime } : null;
  }

  async delete(key: string): Promise<void> {
    const path = this.pathOf(key);
    try {
      await unlink(path);
    } catch (error) {
      if (!["ENOENT", "ENOTDIR", "EISDIR"].includes(codeOf(error) ?? "")) throw error;
      return;
    }
    await this.removeEmptyDirs(dirname(path));
  }

  async deletePrefix(prefix: string): Promise<number> {
    if (prefix === "") throw new InvalidKeyError(prefix, "refusing to delete every object (empty prefix)");
    const objects = await this.list(prefix);
    let deleted = 0;
    // One file at a time, not rm -r: an object put under the prefix meanwhile is kept, not lost uncounted.
    for (const object of objects) {
      const removed = await unlink(this.pathOf(object.key)).then(
        () => true,
        (error) => (codeOf(error) === "ENOENT" ? false : Promise.reject(error)),
      );
      if (removed) deleted++;
    }
    const dirs = new Set(objects.map((object) => dirname(this.pathOf(object.key))));
    for (const dir of [...dirs].sort((a, b) => b.length - a.length)) await this.removeEmptyDirs(dir);
    return deleted;
  }

  async list(prefix: string): Promise<StoredObject[]> {
    assertPrefix(prefix);
    // Walk the deepest directory the prefix names fully, then filter: "a/b" lists "a/b/x" and "a/bc".
    const base = prefix.includes("/") ? prefix.slice(0, prefix.lastIndexOf("/")) : "";
    const found: StoredObject[] = [];
    await this.walk(base, prefix, found);
    return found.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }

  async retain(key: string): Promise<void> {
    if (!(await this.stat(key))) throw new ObjectNotFoundError(key);
  }

  async check(): Promise<void> {
    try {
      await mkdir(this.tempDir, { recursive: true });
      const probe = join(this.tempDir, `check-${randomUUID()}`);
      await writeFile(probe, "ok");
      await unlink(probe);
    } catch (error) {
      throw new StorageUnavailableError(`storage directory ${this.root} is not writable: ${(error as Error).message}`, error);
    }
  }

  async writeUploadPart(uploadId: string, _partNumber: number, offset: number, body: ReadableStream<Uint8Array> | Uint8Array, options: PutOptions = {}) {
    assertPutOptions(options);
    const staged = stagedUploadPath(this.root, uploadId);
    const written = await this.unavailableOnFsFailure(() => writeStagedPart(staged, uploadId, offset, body, options));
    this.writeback.wrote(staged, written.size);
    return written;
  }

  async completeUpload(uploadId: string, key: string, size: number): Promise<void> {
    const staged = stagedUploadPath(this.root, uploadId);
    const target = this.pathOf(key);
    await this.writeback.settle(staged);
    await this.unavailableOnFsFailure(async () => {
      try {
        await sealStagedUpload(staged, uploadId, size);
        await this.moveIntoPlace(key, staged, target);
      } catch (error) {
        // Another completion of this upload (a retry while the first still ran) moved it first.
        if (codeOf(error) === "ENOENT" && !(await stat(staged).catch(() => null))) throw new UploadIncompleteError(uploadId, 0, size);
        throw error;
      }
    });
  }

  /** Runs `work`, turning the filesystem's "cannot be used now" errors into StorageUnavailableError. */
  private async unavailableOnFsFailure<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      const code = codeOf(error);
      if (!code || !UNAVAILABLE_CODES.has(code)) throw error;
      throw new StorageUnavailableError(`storage directory ${this.root}: ${(error as Error).message}`, error);
    }
  }

  async abortUpload(uploadId: string): Promise<void> {
    const staged = stagedUploadPath(this.root, uploadId);
    await this.writeback.settle(staged);
    await removeStagedUpload(staged);
  }

  async httpSource(key: string, range?: ByteRange): Promise<HttpSource> {
    const info = await this.stat(key);
    if (!info) throw new ObjectNotFoundError(key);
    const file = Bun.file(this.pathOf(key));
    if (!range) return { kind: "blob", blob: file, size: info.size };
    const { start, end } = resolveRange(key, range, info.size);
    return { kind: "blob", blob: file.slice(start, end + 1), size: end - start + 1 };
  }

  private pathOf(key: string): string {
    assertKey(key);
    return join(this.root, ...key.split("/"));
  }

  private async walk(dirKey: string, prefix: string, found: StoredObject[]): Promise<void> {
    const dir = dirKey ? join(this.root, ...dirKey.split("/")) : this.root;
    const entries = await readdir(dir, { withFileTypes: true }).catch((error) => {
      if (["ENOENT", "ENOTDIR"].includes(codeOf(error) ?? "")) return [];
      throw error;
    });
    for (const entry of entries) {
      if (!isKeySegment(entry.name)) continue; // .tmp and stray files no key can name
      const key = dirKey ? `${dirKey}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (key.startsWith(prefix) || prefix.startsWith(`${key}/`)) await this.walk(key, prefix, found);
      } else if (entry.isFile() && key.startsWith(prefix)) {
        const info = await stat(join(dir, entry.name)).catch(() => null); // deleted meanwhile: skip
        if (info) found.push({ key, size: info.size, modifiedAt: info.mtime });
      }
    }
  }

  private async moveIntoPlace(key: string, temp: string, target: string): Promise<void> {
    // A concurrent delete may prune the freshly made parent directory before the rename: retry.
    for (let attempt = 1; ; attempt++) {
      try {
        await mkdir(dirname(target), { recursive: true });
        await rename(temp, target);
        break;
      } catch (error) {
        const code = codeOf(error);
        if (code === "ENOENT" && attempt < 5) continue;
        if (code === "ENOTDIR" || code === "EEXIST" || code === "EISDIR") {
          throw new InvalidKeyError(key, "on the filesystem backend a key cannot be both an object and a prefix of other objects");
        }
        throw error;
      }
    }
    await syncDirectory(dirname(target));
  }

  /** Removes `dir` and then its parents while they are empty, stopping at the root. */
  private async removeEmptyDirs(dir: string): Promise<void> {
    while (true) {
      const rel = relative(this.root, dir);
      if (rel === "" || rel.startsWith("..") || [TEMP_DIR, UPLOADS_DIR].includes(rel.split(sep)[0]!)) return;
      try {
        await rmdir(dir);
      } catch {
        return; // not empty (or gone): stop
      }
      dir = dirname(dir);
    }
  }
}

async function writeFully(handle: FileHandle, chunk: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < chunk.byteLength) {
    const { bytesWritten } = await handle.write(chunk, offset, chunk.byteLength - offset);
    offset += bytesWritten;
  }
}

/** Makes a rename durable: the new directory entry reaches the disk, not only the file's data. */
async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } catch {
    // some filesystems refuse fsync on directories; the data itself is already synced
  } finally {
    await handle.close();
  }
}

function streamFile(handle: FileHandle, start: number, end: number): ReadableStream<Uint8Array> {
  let position = start;
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await handle.close();
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const length = Math.min(READ_CHUNK, end - position + 1);
          if (length <= 0) {
            await close();
            return controller.close();
          }
          const buffer = new Uint8Array(length);
          const { bytesRead } = await handle.read(buffer, 0, length, position);
          if (bytesRead === 0) throw new Error(`file shrank while being read (at byte ${position})`);
          position += bytesRead;
          controller.enqueue(bytesRead === length ? buffer : buffer.subarray(0, bytesRead));
        } catch (error) {
          await close().catch(() => {});
          controller.error(error);
        }
      },
      cancel: close,
    },
    { highWaterMark: 0 },
  );
}
