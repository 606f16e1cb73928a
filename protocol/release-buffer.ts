// Freeing a buffer's memory at once instead of at the next garbage collection: detaching an
// ArrayBuffer (transfer(0)) releases it. Used where dead chunks would otherwise pile up faster
// than the collector reclaims them (the server's upload bodies, the agent's uploaded ciphertext).

/** What Bun's cipher.update allocates past its output (one byte); for unusedTailBytes. */
export const CIPHER_OUTPUT_SPARE_BYTES = 16;

type DetachableBuffer = ArrayBuffer & { resizable?: boolean; transfer?(length: number): ArrayBuffer };

/**
 * Frees `chunk`'s memory when it is the whole of its own ArrayBuffer (never memory shared with
 * anything else, such as a pooled small Buffer) and at least `minBytes` long. `unusedTailBytes`
 * allows that many bytes past the view, for memory known to be unshared: Bun's cipher.update
 * allocates one byte more than it returns. The caller must be
 * the only holder: the chunk reads as empty afterwards. Never throws.
 */
export function releaseWholeBuffer(chunk: Uint8Array | null | undefined, minBytes = 0, unusedTailBytes = 0): void {
  const buffer = chunk?.buffer as DetachableBuffer | undefined;
  if (!chunk || !(buffer instanceof ArrayBuffer) || buffer.resizable) return;
  if (chunk.byteOffset !== 0 || buffer.byteLength - chunk.byteLength > unusedTailBytes || chunk.byteLength < minBytes) return;
  buffer.transfer?.(0);
}
