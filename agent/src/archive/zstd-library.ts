// zstd through the system's libzstd (bun:ffi), with one compression context and one output
// buffer kept for every block a thread compresses. node:zlib's zstdCompressSync makes a fresh
// context and output buffer per call: on a 100 MB dump in 2 MiB blocks that cost ~0.1 s of CPU
// (context set-up and page faults of fresh memory) over the same compression with a kept context,
// which is what made the agent's compression thread dearer than `zstd -3` (bench/README.md).
// The frames are standard zstd frames, opened by any zstd reader; their exact bytes depend on the
// library's version. libzstd is on nearly every Linux host (dpkg, rpm and systemd link it); where
// it is missing or too old, node:zlib compresses instead (compress-block.ts).
import { dlopen, FFIType, ptr } from "bun:ffi";
import { type LibraryNames, systemLibraryLoader } from "../platform/system-library.ts";

export interface ZstdLibrary {
  /** Compresses `input` (at least one byte) into one zstd frame and returns it as a new array; throws zstd's error name. */
  compress(input: Uint8Array, level: number): Uint8Array;
}

const LIBRARY_NAMES: LibraryNames = { linux: ["libzstd.so.1"] };
// The oldest release in the distributions the agent supports (Debian 11 ships 1.4.8).
const MIN_VERSION = 10400;

/** This thread's libzstd compressor, or null where the library is missing or older than 1.4 (loaded once); never throws. */
export const loadZstdLibrary = systemLibraryLoader<ZstdLibrary>(LIBRARY_NAMES, (name) => {
  const { symbols } = dlopen(name, {
    ZSTD_versionNumber: { args: [], returns: FFIType.u32 },
    ZSTD_createCCtx: { args: [], returns: FFIType.ptr },
    ZSTD_compressBound: { args: [FFIType.u64], returns: FFIType.u64 },
    ZSTD_compressCCtx: { args: [FFIType.ptr, FFIType.ptr, FFIType.u64, FFIType.ptr, FFIType.u64, FFIType.i32], returns: FFIType.u64 },
    ZSTD_isError: { args: [FFIType.u64], returns: FFIType.u32 },
    ZSTD_getErrorName: { args: [FFIType.u64], returns: FFIType.cstring },
  });
  if (symbols.ZSTD_versionNumber() < MIN_VERSION) return null;
  const context = symbols.ZSTD_createCCtx();
  if (!context) return null;
  let output = new Uint8Array(0);
  return {
    compress(input, level) {
      const bound = Number(symbols.ZSTD_compressBound(input.length));
      if (output.length < bound) output = new Uint8Array(bound);
      const written = symbols.ZSTD_compressCCtx(context, ptr(output), output.length, ptr(input), input.length, level);
      if (symbols.ZSTD_isError(written)) throw new Error(`zstd: ${symbols.ZSTD_getErrorName(written)}`);
      return output.slice(0, Number(written));
    },
  };
});
