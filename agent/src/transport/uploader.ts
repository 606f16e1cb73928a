import { createHash } from "node:crypto";
import { type BackupConsistency, UPLOAD_PART_SIZE, UPLOAD_PARTS_IN_FLIGHT } from "../../../protocol/agent-protocol";
import { CIPHER_OUTPUT_SPARE_BYTES, releaseWholeBuffer } from "../../../protocol/release-buffer";
import { ServerRefusedError } from "./errors";
import type { GoSignals } from "./go-signals";
import type { ServerClient } from "./server-client";

export type UploadResult = { size: number; partCount: number; sha256: string };

const RETRY_DELAYS_MS = [1_000, 2_000, 4_000, 5_000, 5_000, 5_000, 5_000, 5_000];

/**
 * Uploads an encrypted backup stream in parts as it is produced, holding UPLOAD_PARTS_IN_FLIGHT
 * part buffers at most (uploading, or one filling while the others upload). A part whose upload
 * fails is sent again (the server replaces it), so a dropped connection resumes from the last
 * acknowledged part. Refusals that retrying cannot fix (storage limit, revoked key) end the
 * upload, once the parts still in flight have settled.
 */
export async function uploadBackup(
  client: ServerClient,
  backupId: string,
  source: AsyncIterable<Uint8Array>,
  options: {
    partSize?: number;
    sleep?: (ms: number) => Promise<void>;
    onPartUploaded?: (uploadedBytes: number) => void;
    /** The server's go for a part's body (the daemon's socket hears it); without it bodies go at once. */
    goSignals?: GoSignals;
    /** Documents per namespace, read once the source has ended (the dump's result), sent with the completion. */
    collections?: () => Record<string, number> | undefined;
    /** The key id the file's header names, read once the source has ended, sent with the completion. */
    keyId?: () => string | undefined;
    /** The moment the backup holds (or that it holds none), read like `collections`. */
    consistency?: () => BackupConsistency | undefined;
    /**
     * The source's chunks are the uploader's alone once yielded (a backup stream's ciphertext):
     * each is freed as soon as it is copied into a part, instead of at the next garbage
     * collection, which keeps the daemon's peak memory down.
     */
    ownsChunks?: boolean;
  } = {},
): Promise<UploadResult> {
  const partSize = options.partSize ?? UPLOAD_PART_SIZE;
  const sleep = options.sleep ?? ((ms: number) => new Promise((resolve) => setTimeout(resolve, ms)));
  const hash = createHash("sha256");
  let size = 0;
  let partNumber = 0;
  let uploadedBytes = 0;
  const inFlight: Promise<void>[] = [];
  // Buffers of acknowledged parts, filled again: a fresh 8 MiB buffer per part leaves the dead
  // ones to the garbage collector, which frees them late.
  const spare: Uint8Array[] = [];
  const takeBuffer = () => spare.pop() ?? new Uint8Array(partSize);

  const sendWithRetries = async (number: number, bytes: Uint8Array) => {
    await retryUntilFinal(sleep, () => client.uploadPart(backupId, number, bytes, options.goSignals?.wait(backupId, number)));
    // Parts in flight may finish out of order: progress never goes back.
    uploadedBytes = Math.max(uploadedBytes, number * partSize + bytes.byteLength);
    options.onPartUploaded?.(uploadedBytes);
    // The request is over (its answer came), so nothing reads these bytes any more.
    if (bytes.byteLength === partSize) spare.push(bytes);
  };

  /** Waits for the oldest part in flight; on its failure, lets the others settle before throwing. */
  const settleOldest = async () => {
    try {
      await inFlight.shift();
    } catch (error) {
      const others = await Promise.allSettled(inFlight.splice(0));
      // "This backup stopped running" (409) for one part echoes another part's refusal (e.g. the
      // storage limit, which failed the backup): that one says why.
      const echo = (e: unknown) => e instanceof ServerRefusedError && e.status === 409;
      const cause = others.find((r): r is PromiseRejectedResult => r.status === "rejected" && !echo(r.reason));
      throw echo(error) && cause ? cause.reason : error;
    }
  };

  const ship = (bytes: Uint8Array) => {
    const sending = sendWithRetries(partNumber++, bytes);
    // Surface a failure when its turn to settle comes, not as an unhandled rejection now.
    sending.catch(() => {});
    inFlight.push(sending);
  };

  /**
   * A buffer for the next part once fewer than UPLOAD_PARTS_IN_FLIGHT parts are uploading. The
   * source waits meanwhile (the dump pauses), so no more part buffers than that ever exist (the
   * daemon's peak on a 2 GB backup is near its 150 MB budget: bench/dump-memory.ts).
   */
  const nextBuffer = async () => {
    while (inFlight.length >= UPLOAD_PARTS_IN_FLIGHT) await settleOldest();
    return takeBuffer();
  };

  let buffer = await nextBuffer();
  let filled = 0;
  for await (const chunk of source) {
    hash.update(chunk);
    size += chunk.byteLength;
    let offset = 0;
    while (offset < chunk.byteLength) {
      const take = Math.min(partSize - filled, chunk.byteLength - offset);
      buffer.set(chunk.subarray(offset, offset + take), filled);
      filled += take;
      offset += take;
      if (filled === partSize) {
        ship(buffer);
        buffer = await nextBuffer();
        filled = 0;
      }
    }
    // Small chunks may share a pooled buffer; a frame's ciphertext is its own (cipher.update's
    // output, with a spare byte past it: freed only when that is allowed, 23 Nov to 25 Nov it was not).
    if (options.ownsChunks) releaseWholeBuffer(chunk, 64 * 1024, CIPHER_OUTPUT_SPARE_BYTES);
  }
  if (filled > 0 || partNumber === 0) ship(buffer.subarray(0, filled));
  while (inFlight.length > 0) await settleOldest();
  const sha256 = hash.digest("hex");
  const collections = options.collections?.();
  const keyId = options.keyId?.();
  const consistency = options.consistency?.();
  const completion = {
    partCount: partNumber,
    size,
    sha256,
    ...(collections ? { collections } : {}),
    ...(keyId ? { keyId } : {}),
    ...(consistency ? { consistency } : {}),
  };
  // Every part is stored by now: a server restarting or a connection cut while it completes must
  // not throw the whole upload away, so the completion is asked again like a part. An attempt
  // whose answer was lost may have completed it (after checking this very size and checksum):
  // the next one then hears "this backup is completed".
  await retryUntilFinal(sleep, () => client.complete(backupId, completion)).catch((error) => {
    if (error instanceof ServerRefusedError && error.status === 409 && error.answer.status === "completed") return;
    throw error;
  });
  return { size, partCount: partNumber, sha256 };
}

/** Runs `call` until it succeeds, retrying failures that may pass (unreachable, 5xx, 408, 429) with growing delays. */
async function retryUntilFinal(sleep: (ms: number) => Promise<void>, call: () => Promise<void>): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      if ((error instanceof ServerRefusedError && error.isFinal) || attempt >= RETRY_DELAYS_MS.length) throw error;
      await sleep(RETRY_DELAYS_MS[attempt]!);
    }
  }
}
