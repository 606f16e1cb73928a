import { constants, writeSync } from "node:fs";
import { mkdir, open, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { readBody } from "./body";
import { UploadIncompleteError } from "./errors";
import { assertKey } from "./keys";
import type { PutOptions } from "./types";

export const UPLOADS_DIR = ".uploads"; // inside the root (same filesystem: the final rename is atomic)

/** The file holding a staged upload's bytes. */
export function stagedUploadPath(root: string, uploadId: string): string {
  assertKey(uploadId);
  if (uploadId.includes("/")) throw new TypeError("an upload id is one key segment");
  return join(root, UPLOADS_DIR, `${uploadId}.data`);
}

/**
 * Writes a part at its offset in the upload's staging file (created on first use). Parts are not
 * synced one by one: the file is synced once at completion, and a crash in between loses the
 * upload, which the checksum at completion then reports, never a silently short backup.
 */
export async function writeStagedPart(
  path: string,
  uploadId: string,
  offset: number,
  body: ReadableStream<Uint8Array> | Uint8Array,
  options: PutOptions,
): Promise<{ size: number }> {
  if (!Number.isSafeInteger(offset) || offset < 0) throw new TypeError(`offset must be a whole number ≥ 0 (got ${offset})`);
  await mkdir(join(path, ".."), { recursive: true });
  const handle = await open(path, constants.O_RDWR | constants.O_CREAT, 0o600);
  let size = 0;
  try {
    for await (const chunk of readBody(uploadId, body, options)) {
      // A synchronous write into the page cache, not FileHandle.write: Bun's async write copies each
      // chunk on its thread pool, and at ingest speed that cost a third more server CPU (kernel time
      // and page faults; bench/ingest.ts 180 → 230 MB/s). The write blocks the event loop only for
      // the copy into the page cache (the file is synced once, at completion), as PGlite's own
      // synchronous file I/O already does.
      let written = 0;
      while (written < chunk.byteLength) {
        written += writeSync(handle.fd, chunk, written, chunk.byteLength - written, offset + size + written);
      }
      size += chunk.byteLength;
    }
  } finally {
    await handle.close();
  }
  return { size };
}

/**
 * Writes staged uploads' bytes to disk while they are still arriving, in the background (a
 * datasync on the thread pool every `everyBytes`, one at a time per upload), so the sync at
 * completion finds little left to write: without it, completing a 1 GiB upload waited ~0.4 s for
 * the whole file to reach the disk. It only starts work the kernel would do anyway; durability
 * still comes from the sync at completion.
 */
export function createEarlyWriteback(everyBytes = 64 * 1024 * 1024) {
  const uploads = new Map<string, { unsynced: number; running: Promise<void> | null }>();
  return {
    /** Records `bytes` written to the staging file at `path`; may start a background sync. */
    wrote(path: string, bytes: number) {
      const upload = uploads.get(path) ?? { unsynced: 0, running: null };
      uploads.set(path, upload);
      upload.unsynced += bytes;
      if (upload.running || upload.unsynced < everyBytes) return;
      upload.unsynced = 0;
      // Errors are not this sync's to report: the sync at completion fails loudly if the disk does.
      upload.running = syncData(path)
        .catch(() => {})
        .finally(() => (upload.running = null));
    },
    /** Waits for the upload's background sync (if any) and forgets it; call before sealing or removing it. */
    async settle(path: string) {
      await uploads.get(path)?.running;
      uploads.delete(path);
    },
  };
}

async function syncData(path: string): Promise<void> {
  const handle = await open(path, "r+");
  try {
    await handle.datasync();
  } finally {
    await handle.close();
  }
}

/** Cuts the staging file to `size` bytes and syncs it; throws UploadIncompleteError when it is shorter. */
export async function sealStagedUpload(path: string, uploadId: string, size: number): Promise<void> {
  const staged = await stat(path).catch(() => null);
  if (!staged || staged.size < size) throw new UploadIncompleteError(uploadId, staged?.size ?? 0, size);
  const handle = await open(path, "r+");
  try {
    if (staged.size > size) await handle.truncate(size);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export async function removeStagedUpload(path: string): Promise<void> {
  await rm(path, { force: true });
}
