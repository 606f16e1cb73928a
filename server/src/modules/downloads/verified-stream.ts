// The re-check of an agent download as it is sent: the bytes go out as they are read, hashed on
// the way, and the last piece is held back until the whole file is hashed. When the SHA-256 is not
// the signed one (the file was changed in storage after it was listed), the response is cut short
// of its Content-Length instead: no client takes a truncated download for a complete one, so a
// file nobody signed is never delivered whole, whatever the client checks itself.

/** Thrown into the stream (cutting the response) when what was read is not what was signed. */
export class UnsignedBytesError extends Error {
  constructor(
    readonly expected: string,
    readonly actual: string,
  ) {
    super(`the agent download read has SHA-256 ${actual}, not the signed ${expected}`);
  }
}

/** `source` passed through unchanged when its SHA-256 is `expected`; errors before its last chunk otherwise. */
export function verifyWhileSending(
  source: ReadableStream<Uint8Array>,
  expected: string,
  onMismatch: (error: UnsignedBytesError) => void,
): ReadableStream<Uint8Array> {
  const reader = source.getReader();
  const hasher = new Bun.CryptoHasher("sha256");
  let held: Uint8Array | null = null;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) {
          const actual = hasher.digest("hex");
          if (actual !== expected) {
            const error = new UnsignedBytesError(expected, actual);
            onMismatch(error);
            controller.error(error);
            return;
          }
          if (held) controller.enqueue(held);
          controller.close();
          return;
        }
        if (value.byteLength === 0) continue;
        hasher.update(value);
        const previous = held;
        held = value;
        if (previous) {
          controller.enqueue(previous);
          return;
        }
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
}
