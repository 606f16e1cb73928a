import { createCipheriv, createDecipheriv } from "node:crypto";
import { FLAG_LAST, FLAG_MORE, FRAME_HEADER_LENGTH, TAG_LENGTH } from "./format.ts";

// STREAM construction (as in age and Tink): one AES-256-GCM key per file, and a nonce that is
// the chunk's position plus a last-chunk flag, so a chunk only opens at its own position and
// only the chunk sealed as last can end the file. The frame header is also the AAD, so every
// byte of a chunk frame is authenticated.

const NONCE_LENGTH = 12;
const TWO_POW_32 = 2 ** 32;

/** Builds the 12-byte nonce: 3 zero bytes, u64 big-endian chunk index, then the flag byte. */
export function buildNonce(index: number, flag: number): Buffer {
  const nonce = Buffer.alloc(NONCE_LENGTH);
  writeIndex(nonce, 3, index);
  nonce[11] = flag;
  return nonce;
}

/** Builds the 13-byte frame header: u64 big-endian index, u8 flag, u32 big-endian plaintext length. */
export function buildFrameHeader(index: number, flag: number, length: number): Buffer {
  const header = Buffer.allocUnsafe(FRAME_HEADER_LENGTH);
  writeIndex(header, 0, index);
  header[8] = flag;
  header.writeUInt32BE(length, 9);
  return header;
}

/**
 * Seals one chunk given as consecutive pieces (so callers need not copy them together); returns
 * the frame as [frame header, ciphertext pieces..., tag].
 */
export function sealChunk(payloadKey: Buffer, index: number, isLast: boolean, pieces: readonly Uint8Array[]): Buffer[] {
  const flag = isLast ? FLAG_LAST : FLAG_MORE;
  let length = 0;
  for (const piece of pieces) length += piece.length;
  const frameHeader = buildFrameHeader(index, flag, length);
  const cipher = createCipheriv("aes-256-gcm", payloadKey, buildNonce(index, flag), {
    authTagLength: TAG_LENGTH,
  });
  cipher.setAAD(frameHeader);
  const frame = [frameHeader];
  // One update per piece, not per small slice: every output buffer becomes its own stream chunk
  // downstream (a push, a read, a write syscall), and that per-chunk cost outweighed the page
  // faults of fresh 1 MiB outputs. Measured: see bench/README.md.
  for (const piece of pieces) frame.push(cipher.update(piece));
  const rest = cipher.final(); // GCM emits nothing here; kept for API correctness.
  if (rest.length > 0) frame.push(rest);
  frame.push(cipher.getAuthTag());
  return frame;
}

/**
 * Opens one sealed chunk body (ciphertext ‖ tag) with the given nonce and frame header as AAD.
 * Returns the plaintext only when the tag verifies, otherwise undefined: callers never see
 * unauthenticated bytes.
 */
export function openChunk(payloadKey: Buffer, nonce: Buffer, frameHeader: Uint8Array, body: Uint8Array): Buffer | undefined {
  if (body.length < TAG_LENGTH) return undefined;
  const split = body.length - TAG_LENGTH;
  const decipher = createDecipheriv("aes-256-gcm", payloadKey, nonce, {
    authTagLength: TAG_LENGTH,
  });
  decipher.setAAD(frameHeader);
  decipher.setAuthTag(body.subarray(split));
  const plaintext = decipher.update(body.subarray(0, split));
  try {
    decipher.final();
  } catch {
    return undefined;
  }
  return plaintext;
}

/** Builds the nonce for the raw 8 index bytes a frame header claims (used to diagnose reordering). */
export function buildNonceFromFrame(frameHeader: Uint8Array): Buffer {
  const nonce = Buffer.alloc(NONCE_LENGTH);
  nonce.set(frameHeader.subarray(0, 8), 3);
  nonce[11] = frameHeader[8]!;
  return nonce;
}

/** Reads the u64 big-endian index of a frame header as a number (exact below 2^53). */
export function readFrameIndex(frameHeader: Uint8Array): number {
  const view = Buffer.from(frameHeader.buffer, frameHeader.byteOffset, FRAME_HEADER_LENGTH);
  return view.readUInt32BE(0) * TWO_POW_32 + view.readUInt32BE(4);
}

function writeIndex(target: Buffer, offset: number, index: number): void {
  target.writeUInt32BE(Math.floor(index / TWO_POW_32), offset);
  target.writeUInt32BE(index >>> 0, offset + 4);
}
