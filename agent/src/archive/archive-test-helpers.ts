// Shared by the archive tests only: fixed keys, file surgery, and error capture.
import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import { decryptBuffer, encryptBuffer } from "./convenience.ts";
import type { EncryptOptions } from "./archive-writer.ts";
import { FRAME_HEADER_LENGTH, TAG_LENGTH } from "./format.ts";
import { readArchiveHeader } from "./header.ts";

/** A fixed test key (bytes 0x00..0x1f). Never a real customer key. */
export const TEST_KEY = Buffer.from(Array.from({ length: 32 }, (_, i) => i));
/** Another fixed test key (bytes 0xff..0xe0). */
export const OTHER_TEST_KEY = Buffer.from(Array.from({ length: 32 }, (_, i) => 255 - i));

/** Deterministic, position-dependent bytes, so misplaced data never compares equal. */
export function makePayload(length: number, seed = 1): Buffer {
  const out = Buffer.allocUnsafe(length);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

/** Encrypts with the test key, no compression and a small chunk size unless told otherwise. */
export function encryptForTest(plaintext: Uint8Array, options: Partial<EncryptOptions> = {}) {
  return encryptBuffer(plaintext, {
    masterKey: TEST_KEY,
    compression: "none",
    chunkSize: 64,
    ...options,
  });
}

/** Decrypts and returns the error it fails with (or throws if it does not fail). */
export async function captureDecryptError(file: Uint8Array, masterKey = TEST_KEY): Promise<Error> {
  try {
    await decryptBuffer(file, { masterKey });
  } catch (error) {
    return error as Error;
  }
  throw new Error("decryption unexpectedly succeeded");
}

/** Start offset and total length of each chunk frame in a file (walks the declared lengths). */
export function locateFrames(file: Buffer): { offset: number; length: number }[] {
  const frames: { offset: number; length: number }[] = [];
  let offset = readArchiveHeader(file).headerLength;
  while (offset < file.length) {
    const length = FRAME_HEADER_LENGTH + file.readUInt32BE(offset + 9) + TAG_LENGTH;
    frames.push({ offset, length });
    offset += length;
  }
  return frames;
}

/** Returns a copy of the file with one bit flipped at the given byte offset. */
export function flipBit(file: Buffer, offset: number, bit = 0): Buffer {
  const copy = Buffer.from(file);
  copy[offset]! ^= 1 << bit;
  return copy;
}

/** Hex SHA-256 of some bytes. */
export function sha256Hex(data: Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** A Readable that yields the bytes in pieces of the given size (exercises buffering). */
export function readPieces(data: Uint8Array, pieceSize: number): Readable {
  const pieces: Uint8Array[] = [];
  for (let o = 0; o < data.length; o += pieceSize) pieces.push(data.subarray(o, o + pieceSize));
  return Readable.from(pieces);
}
