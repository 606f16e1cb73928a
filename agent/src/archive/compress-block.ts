// Blocks compressed alone, the same way on every thread (block-compressor.ts and its
// compression-worker.ts), so that the output never depends on which thread compressed a block.
import { constants, gzipSync, zstdCompressSync } from "node:zlib";
import { GZIP_LEVEL, ZSTD_LEVEL } from "./compression.ts";
import type { Compression } from "./format.ts";
import { createZstdContext, type ZstdContext } from "./zstd-library.ts";

/** One thread's block compression: keeps a zstd context (the system's libzstd) between blocks. */
export class BlockCompression {
  readonly #compression: Exclude<Compression, "none">;
  #zstd: ZstdContext | null | undefined;

  constructor(compression: Exclude<Compression, "none">) {
    this.#compression = compression;
  }

  /** Compresses one block alone; the same bytes always give the same output. Throws the compressor's error. */
  compress(input: Uint8Array): Uint8Array {
    if (this.#compression === "gzip") return gzipSync(input, { level: GZIP_LEVEL });
    if (input.length > 0) {
      this.#zstd ??= createZstdContext(ZSTD_LEVEL);
      if (this.#zstd) return this.#zstd.compress(input);
    }
    return zstdCompressSync(input, { params: { [constants.ZSTD_c_compressionLevel]: ZSTD_LEVEL } });
  }
}

const kept = new Map<Exclude<Compression, "none">, BlockCompression>();

/**
 * This thread's block compression for `compression`, made once and kept for every compressor the
 * thread starts. Compressing is synchronous, so one context serves them all in turn. A fresh one
 * per compressor cost the shipper a zstd context and its output buffer (~4 MB) at every slice
 * sealed, all garbage seconds later (bench/pitr-shipping.ts).
 */
export function threadBlockCompression(compression: Exclude<Compression, "none">): BlockCompression {
  let compressing = kept.get(compression);
  if (!compressing) kept.set(compression, (compressing = new BlockCompression(compression)));
  return compressing;
}

/** Compresses one block alone, as the threads do; throws the compressor's error. */
export function compressBlock(compression: Exclude<Compression, "none">, input: Uint8Array): Uint8Array {
  return new BlockCompression(compression).compress(input);
}
