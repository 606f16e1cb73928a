import type { Transform } from "node:stream";
import { constants, createGunzip, createGzip, createZstdCompress, createZstdDecompress } from "node:zlib";
import type { Compression } from "./format.ts";

// Larger zlib output buffers than the 16 KiB default: fewer, bigger pieces reach the sealer.
const ZLIB_OUTPUT_CHUNK = 256 * 1024;

/** zstd level 3 (zstd's own default) and gzip level 6 (gzip's): the usual speed/size balance. */
export const ZSTD_LEVEL = 3;
export const GZIP_LEVEL = 6;

/** Returns the compressing Transform for a compression, or undefined for none. */
export function createCompressor(compression: Compression): Transform | undefined {
  switch (compression) {
    case "zstd":
      return createZstdCompress({
        chunkSize: ZLIB_OUTPUT_CHUNK,
        params: { [constants.ZSTD_c_compressionLevel]: ZSTD_LEVEL },
      });
    case "gzip":
      return createGzip({ level: GZIP_LEVEL, chunkSize: ZLIB_OUTPUT_CHUNK });
    case "none":
      return undefined;
  }
}

/** Returns the decompressing Transform for a compression, or undefined for none. */
export function createDecompressor(compression: Compression): Transform | undefined {
  switch (compression) {
    case "zstd":
      return createZstdDecompress({ chunkSize: ZLIB_OUTPUT_CHUNK });
    case "gzip":
      return createGunzip({ chunkSize: ZLIB_OUTPUT_CHUNK });
    case "none":
      return undefined;
  }
}
