import { expect, test } from "bun:test";
import { createCipheriv, randomBytes } from "node:crypto";
import { CIPHER_OUTPUT_SPARE_BYTES, releaseWholeBuffer } from "./release-buffer";

test("frees a buffer that is all its own memory, and nothing shared", () => {
  const own = new Uint8Array(128 * 1024);
  releaseWholeBuffer(own, 64 * 1024);
  expect(own.byteLength).toBe(0);

  const memory = new Uint8Array(128 * 1024);
  const head = memory.subarray(0, 64 * 1024);
  releaseWholeBuffer(head); // a view of part of the memory: never freed
  releaseWholeBuffer(memory.subarray(1)); // not at offset 0
  expect([head.byteLength, memory.byteLength]).toEqual([64 * 1024, 128 * 1024]);

  const short = new Uint8Array(1024);
  releaseWholeBuffer(short, 64 * 1024); // under minBytes
  expect(short.byteLength).toBe(1024);
});

test("frees cipher.update's output only when its spare bytes are allowed", () => {
  const cipher = createCipheriv("aes-256-gcm", randomBytes(32), randomBytes(12));
  const output = cipher.update(randomBytes(1024 * 1024));
  // What the allowance is for: Bun allocates a little past the output.
  expect(output.buffer.byteLength - output.byteLength).toBeLessThanOrEqual(CIPHER_OUTPUT_SPARE_BYTES);
  const tail = output.buffer.byteLength - output.byteLength;
  if (tail > 0) {
    releaseWholeBuffer(output, 64 * 1024);
    expect(output.byteLength).toBe(1024 * 1024);
  }
  releaseWholeBuffer(output, 64 * 1024, CIPHER_OUTPUT_SPARE_BYTES);
  expect(output.byteLength).toBe(0);
});
