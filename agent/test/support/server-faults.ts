// Pieces of the server-fault end-to-end tests: a user's API over real HTTP, an upload part frozen
// on the server (so a restart lands mid-upload deterministically), and the files in storage.
import { readdir } from "node:fs/promises";
import { join, relative } from "node:path";
import type { AppContext } from "../../../server/src/context.ts";

export type ApiAnswer = { status: number; body: any };

/** Calls the REST API as the web app does, with the user's session token. */
export function apiFor(base: string, token: string) {
  return async (method: string, path: string, body?: unknown): Promise<ApiAnswer> => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {}
    return { status: response.status, body: parsed };
  };
}

/**
 * Makes the server's write of upload part `partNumber` hang forever, as it does in a process that
 * dies during the write: the request is accepted (storage reserved) but never answered. Resolves
 * with the upload's id when the write is reached. Only this context's storage is affected, so a
 * restarted server (a new context) writes normally.
 */
export function freezeUploadPart(ctx: AppContext, partNumber: number): Promise<string> {
  const storage = ctx.storage;
  const write = storage.writeUploadPart.bind(storage);
  return new Promise((reached) => {
    storage.writeUploadPart = (uploadId, number, offset, body, options) => {
      if (number !== partNumber) return write(uploadId, number, offset, body, options);
      reached(uploadId);
      return new Promise(() => {});
    };
  });
}

/**
 * Makes the server's completion of an upload (staged parts into the backup file) hang forever, as
 * in a process that dies during it: every part is stored, the completion call never answered.
 * Resolves with the upload's id when it is reached. Only this context's storage is affected.
 */
export function freezeUploadCompletion(ctx: AppContext): Promise<string> {
  const storage = ctx.storage;
  return new Promise((reached) => {
    storage.completeUpload = (uploadId) => {
      reached(uploadId);
      return new Promise(() => {});
    };
  });
}

/**
 * Holds the server's write of upload part `partNumber` until `release()` (which also puts the
 * storage's own write back): the backup stays running, deterministically, for as long as a test
 * needs. `reached` resolves with the upload's id when the write is reached. Only this context's
 * storage is affected.
 */
export function holdUploadPart(ctx: AppContext, partNumber: number) {
  const storage = ctx.storage;
  const write = storage.writeUploadPart.bind(storage);
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  const reached = new Promise<string>((resolve) => {
    storage.writeUploadPart = async (uploadId, number, offset, body, options) => {
      if (number === partNumber) {
        resolve(uploadId);
        await released;
      }
      return write(uploadId, number, offset, body, options);
    };
  });
  return {
    reached,
    release: () => {
      storage.writeUploadPart = write;
      release();
    },
  };
}

/** Every file under the filesystem storage's root (staged uploads included), relative to it. */
export async function listStoredFiles(ctx: AppContext): Promise<string[]> {
  const url = new URL(ctx.config.storageUrl);
  if (url.protocol !== "file:") throw new Error("listStoredFiles needs the filesystem storage backend");
  const root = decodeURIComponent(url.pathname);
  const entries = await readdir(root, { withFileTypes: true, recursive: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)))
    .sort();
}
