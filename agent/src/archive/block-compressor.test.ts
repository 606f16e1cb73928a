// Compression on worker threads must not change what is written: the same input gives the same
// compressed bytes whatever the number of threads, and every block opens on its own.
import { describe, expect, test } from "bun:test";
import { gunzipSync, zstdDecompressSync } from "node:zlib";
import { makePayload, TEST_KEY } from "./archive-test-helpers.ts";
import { COMPRESSION_BLOCK_SIZE, compressBlock, createBlockCompressor } from "./block-compressor.ts";
import { decryptBuffer, encryptBuffer } from "./convenience.ts";
import { BlockCompression } from "./compress-block.ts";
import { hasZstdLibrary } from "./zstd-library.ts";

// Compressible but not trivial: text lines with varying numbers, then random bytes.
function makeInput(length: number): Buffer {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < length / 2; i++) {
    const line = `{"_id":${i},"name":"customer ${i % 977}","city":"${["Lyon", "Pune", "Quito"][i % 3]}"}\n`;
    lines.push(line);
    size += line.length;
  }
  return Buffer.concat([Buffer.from(lines.join("")), makePayload(length)]).subarray(0, length);
}

async function compress(input: Uint8Array, compression: "zstd" | "gzip", threads: number, writeSize: number): Promise<Buffer[]> {
  const blocks: Buffer[] = [];
  const compressor = createBlockCompressor({ compression, threads, onOutput: (block) => void blocks.push(Buffer.from(block)) });
  for (let offset = 0; offset < input.length; offset += writeSize) {
    await compressor.write(input.subarray(offset, offset + writeSize));
  }
  await compressor.end();
  return blocks;
}

const input = makeInput(Math.round(COMPRESSION_BLOCK_SIZE * 3.5));

describe("block compression on worker threads", () => {
  for (const compression of ["zstd", "gzip"] as const) {
    test(`${compression}: no thread, 1, 2 and 3 threads and any write size give the same bytes, one block per ${COMPRESSION_BLOCK_SIZE / 1024 / 1024} MiB`, async () => {
      const one = Buffer.concat(await compress(input, compression, 1, 1024 * 1024));
      const inline = Buffer.concat(await compress(input, compression, 0, 700_001));
      expect(inline.equals(one)).toBe(true);
      const two = Buffer.concat(await compress(input, compression, 2, 65_537));
      const three = await compress(input, compression, 3, 3 * 1024 * 1024 + 5);
      expect(three).toHaveLength(Math.ceil(input.length / COMPRESSION_BLOCK_SIZE));
      expect(two.equals(one)).toBe(true);
      expect(Buffer.concat(three).equals(one)).toBe(true);
      // Each block is what zstd/gzip give for that block alone, and opens alone.
      for (const [index, block] of three.entries()) {
        const slice = input.subarray(index * COMPRESSION_BLOCK_SIZE, (index + 1) * COMPRESSION_BLOCK_SIZE);
        expect(block.equals(compressBlock(compression, slice))).toBe(true);
        const opened = compression === "zstd" ? zstdDecompressSync(block) : gunzipSync(block);
        expect(opened.equals(slice)).toBe(true);
      }
    });

    test(`${compression}: a multi-block backup decrypts to the input, and an empty one to nothing`, async () => {
      for (const payload of [input, Buffer.alloc(0)]) {
        const file = await encryptBuffer(payload, { masterKey: TEST_KEY, compression });
        const { plaintext } = await decryptBuffer(file, { masterKey: TEST_KEY });
        expect(plaintext.equals(payload)).toBe(true);
      }
    });
  }

  test("zstd blocks come from the system's libzstd on Linux, one kept context: blocks of any size, one after another, each open alone", () => {
    if (process.platform === "linux") expect(hasZstdLibrary()).toBe(true);
    // Large then small then large through one kept context: the kept output buffer must never
    // hand back a longer block's tail, and each block must equal what a fresh context makes.
    const kept = new BlockCompression("zstd");
    for (const length of [COMPRESSION_BLOCK_SIZE, 1, 5_000, 0, COMPRESSION_BLOCK_SIZE - 3, 77]) {
      const slice = input.subarray(1_000, 1_000 + length);
      const block = kept.compress(slice);
      expect(Buffer.from(block).equals(compressBlock("zstd", slice))).toBe(true);
      expect(Buffer.from(zstdDecompressSync(block)).equals(slice)).toBe(true);
    }
  });

  test("a compressor started after another reuses its input slots and context: a short payload is not mixed with the longer one before it", async () => {
    for (const compression of ["zstd", "gzip"] as const) {
      const long = Buffer.alloc(COMPRESSION_BLOCK_SIZE + 1000, 0xaa);
      await compress(long, compression, 0, long.length);
      const short = input.subarray(0, 5000);
      const blocks = await compress(short, compression, 0, short.length);
      expect(blocks).toHaveLength(1);
      expect(blocks[0]!.equals(compressBlock(compression, short))).toBe(true);
      const opened = compression === "zstd" ? zstdDecompressSync(blocks[0]!) : gunzipSync(blocks[0]!);
      expect(opened.equals(short)).toBe(true);
    }
  });

  test("a failing consumer fails the compressor instead of hanging it", async () => {
    const compressor = createBlockCompressor({
      compression: "zstd",
      threads: 2,
      onOutput: () => {
        throw new Error("the disk is full");
      },
    });
    const writing = (async () => {
      for (let offset = 0; offset < input.length; offset += 1024 * 1024) {
        await compressor.write(input.subarray(offset, offset + 1024 * 1024));
      }
      await compressor.end();
    })();
    await expect(writing).rejects.toThrow("the disk is full");
  });
});
