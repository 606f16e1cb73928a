// Freeing a buffer's memory at once instead of at the next garbage collection: detaching an
// ArrayBuffer (transfer(0)) releases it. Used where dead chunks would otherwise pile up faster
// than the collector reclaims them (the server's upload bodies, the agent's uploaded ciphertext).

// Some native calls return a view a little shorter than its memory (Bun's cipher.update allocates
// one byte more than it returns); a pooled small Buffer always leaves far more than this unused.
const ALLOWED_TAIL_BYTES = 64;

type DetachableBuffer = ArrayBuffer & { resizable?: boolean; transfer?(length: number): ArrayBuffer };

/**
 * Frees `chunk`'s memory when it is (all but a few bytes of) its own ArrayBuffer (never memory shared with
 * anything else, such as a pooled small Buffer) and at least `minBytes` long. The caller must be
 * the only holder: the chunk reads as empty afterwards. Never throws.
 */
export function releaseWholeBuffer(chunk: Uint8Array | null | undefined, minBytes = 0): void {
  const buffer = chunk?.buffer as DetachableBuffer | undefined;
  if (!chunk || !(buffer instanceof ArrayBuffer) || buffer.resizable) return;
  if (chunk.byteOffset !== 0 || buffer.byteLength - chunk.byteLength > ALLOWED_TAIL_BYTES || chunk.byteLength < minBytes) return;
  buffer.transfer?.(0);
}
