import { StorageLimitError } from "./errors";
import type { PutOptions } from "./types";

/** Checks options.maxBytes; throws TypeError unless it is absent or a whole number ≥ 0. */
export function assertPutOptions(options: PutOptions): void {
  const { maxBytes } = options;
  if (maxBytes !== undefined && !(Number.isSafeInteger(maxBytes) && maxBytes >= 0)) {
    throw new TypeError(`maxBytes must be a whole number of bytes ≥ 0 (got ${maxBytes})`);
  }
}

/**
 * Yields the chunks of a put body, one at a time (memory stays bounded by the caller's pace).
 * Throws StorageLimitError as soon as more than maxBytes arrive, the signal's reason when it aborts
 * (even while waiting for a chunk), and the body's own error when it fails; in each case the body
 * is cancelled. A caller commits the object only after the generator has finished normally.
 */
export async function* readBody(key: string, body: ReadableStream<Uint8Array> | Uint8Array, options: PutOptions): AsyncGenerator<Uint8Array> {
  const { maxBytes = Number.POSITIVE_INFINITY, signal } = options;
  signal?.throwIfAborted();
  if (body instanceof Uint8Array) {
    if (body.byteLength > maxBytes) throw new StorageLimitError(key, maxBytes);
    if (body.byteLength > 0) yield body;
    return;
  }

  const reader = body.getReader();
  // A pending read does not notice an abort by itself, so every read races the signal.
  let onAbort = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal?.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
  aborted.catch(() => {});
  let finished = false;
  let failure: unknown = new Error("put abandoned before the body was read to the end");
  try {
    let total = 0;
    while (true) {
      const { value, done } = signal ? await Promise.race([reader.read(), aborted]) : await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) throw new StorageLimitError(key, maxBytes);
      if (value.byteLength > 0) yield value;
      signal?.throwIfAborted();
    }
    finished = true;
  } catch (error) {
    failure = error;
    throw error;
  } finally {
    signal?.removeEventListener("abort", onAbort);
    if (!finished) await reader.cancel(failure).catch(() => {});
    try {
      reader.releaseLock();
    } catch {
      // a read still pending after an abort keeps the lock on some runtimes; the stream is cancelled anyway
    }
  }
}
