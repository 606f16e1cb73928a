import { waitUntil } from "../../../testkit/wait-until";
// Bodies and readers for the storage contract suite: deterministic content, generated chunk by
// chunk so that a 64 MiB body never exists whole in the test's memory either.

export const MiB = 1024 * 1024;

/** `size` deterministic pseudo-random bytes (xorshift32 from `seed`). */
export function patternBytes(size: number, seed = 1): Uint8Array {
  const words = new Uint32Array(Math.ceil(size / 4));
  let x = seed >>> 0 || 1;
  for (let i = 0; i < words.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    words[i] = x >>> 0;
  }
  return new Uint8Array(words.buffer, 0, size);
}

export type BodyOptions = {
  chunkSize?: number;
  /** Fail with this error once this many bytes were produced. */
  failAfter?: { bytes: number; error: Error };
  /** Stop producing (a pending read that never resolves) once this many bytes were produced. */
  stallAfter?: number;
  /** Called each time a chunk is produced. */
  onChunk?: () => void;
  /** Called when the reader first waits on the stall (see stallAfter). */
  onStall?: () => void;
};

/** A pull-based body of `size` bytes whose chunk i is patternBytes(chunkSize, seed + i). */
export function patternStream(size: number, seed = 1, options: BodyOptions = {}): ReadableStream<Uint8Array> {
  const chunkSize = options.chunkSize ?? 64 * 1024;
  let produced = 0;
  let index = 0;
  let stall: ReturnType<typeof setTimeout> | undefined;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (options.failAfter && produced >= options.failAfter.bytes) return controller.error(options.failAfter.error);
        if (options.stallAfter !== undefined && produced >= options.stallAfter) {
          // Stall, but not forever: a backend that never cancels the body fails the test instead of hanging it.
          options.onStall?.();
          return new Promise<void>((resolve) => {
            stall = setTimeout(() => (controller.error(new Error("stalled body was never cancelled")), resolve()), 10_000);
            stall.unref();
          });
        }
        if (produced >= size) return controller.close();
        const chunk = patternBytes(Math.min(chunkSize, size - produced), seed + index++);
        produced += chunk.byteLength;
        options.onChunk?.();
        controller.enqueue(chunk);
      },
      cancel() {
        clearTimeout(stall);
      },
    },
    { highWaterMark: 0 },
  );
}

/** SHA-256 (hex) of what patternStream(size, seed, { chunkSize }) produces, computed chunk by chunk. */
export function patternStreamDigest(size: number, seed = 1, chunkSize = 64 * 1024): string {
  const hasher = new Bun.CryptoHasher("sha256");
  for (let produced = 0, index = 0; produced < size; index++) {
    const chunk = patternBytes(Math.min(chunkSize, size - produced), seed + index);
    hasher.update(chunk);
    produced += chunk.byteLength;
  }
  return hasher.digest("hex");
}

/** Reads a stream to the end and returns its SHA-256 (hex) and length, holding one chunk at a time. */
export async function digestStream(stream: ReadableStream<Uint8Array>): Promise<{ sha256: string; size: number }> {
  const hasher = new Bun.CryptoHasher("sha256");
  let size = 0;
  for await (const chunk of stream) {
    hasher.update(chunk);
    size += chunk.byteLength;
  }
  return { sha256: hasher.digest("hex"), size };
}

export async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/**
 * Polls `read` until it returns an empty list and returns it; when the time is up, returns the
 * last (non-empty) answer, so the caller's assertion shows what was left.
 */
export async function waitForEmpty(read: () => Promise<string[]>, timeoutMs = 15_000): Promise<string[]> {
  let last: string[] = [];
  try {
    await waitUntil(async () => (last = await read()).length === 0, { timeout: timeoutMs, interval: 50, message: "an empty listing" });
  } catch {
    // timed out: `last` is what remained
  }
  return last;
}
