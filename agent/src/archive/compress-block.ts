// One block compressed alone, the same call on every thread (block-compressor.ts and its
// compression-worker.ts), so that the output never depends on which thread compressed a block.
import { constants, gzipSync, zstdCompressSync } from "node:zlib";
import { GZIP_LEVEL, ZSTD_LEVEL } from "./compression.ts";
import type { Compression } from "./format.ts";
import { loadZstdLibrary } from "./zstd-library.ts";

/** Compresses one block alone (the system's libzstd where it loads, else node:zlib); the same bytes always give the same output. Throws the compressor's error. */
export function compressBlock(compression: Exclude<Compression, "none">, input: Uint8Array): Uint8Array {
  if (compression === "gzip") return gzipSync(input, { level: GZIP_LEVEL });
  const library = input.length > 0 ? loadZstdLibrary() : null;
  return library ? library.compress(input, ZSTD_LEVEL) : zstdCompressSync(input, { params: { [constants.ZSTD_c_compressionLevel]: ZSTD_LEVEL } });
}
