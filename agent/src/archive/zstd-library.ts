// zstd through the system's libzstd (bun:ffi), with one compression context and one output
// buffer kept for every block a thread compresses. node:zlib's zstdCompressSync makes a fresh
// context and output buffer per call: on a 100 MB dump in 2 MiB blocks that cost ~0.1 s of CPU
// (context set-up and page faults of fresh memory) over the same compression with a kept context,
// which is what made the agent's compression thread dearer than `zstd -3` (bench/README.md).
// The context lives in a JavaScript buffer (ZSTD_initStaticCCtx), so nothing native is left to
// free: a compression thread that is terminated, or a compressor dropped, gives it back to the
// collector. The frames are standard zstd frames, opened by any zstd reader; their exact bytes
// depend on the library's version. libzstd is on nearly every Linux host (dpkg, rpm and systemd
// link it); where it is missing or too old, node:zlib compresses instead (compress-block.ts).
import { dlopen, FFIType, ptr } from "bun:ffi";
import { type LibraryNames, systemLibraryLoader } from "../platform/system-library.ts";

export interface ZstdContext {
  /** Compresses `input` (at least one byte) into one zstd frame and returns it as a new array; throws zstd's error name. */
  compress(input: Uint8Array): Uint8Array;
}

const LIBRARY_NAMES: LibraryNames = { linux: ["libzstd.so.1"] };
// The oldest release in the distributions the agent supports (Debian 11 ships 1.4.8).
const MIN_VERSION = 10400;

const loadLibrary = systemLibraryLoader(LIBRARY_NAMES, (name) => {
  const { symbols } = dlopen(name, {
    ZSTD_versionNumber: { args: [], returns: FFIType.u32 },
    ZSTD_estimateCCtxSize: { args: [FFIType.i32], returns: FFIType.u64 },
    ZSTD_initStaticCCtx: { args: [FFIType.ptr, FFIType.u64], returns: FFIType.ptr },
    ZSTD_compressBound: { args: [FFIType.u64], returns: FFIType.u64 },
    ZSTD_compressCCtx: { args: [FFIType.ptr, FFIType.ptr, FFIType.u64, FFIType.ptr, FFIType.u64, FFIType.i32], returns: FFIType.u64 },
    ZSTD_isError: { args: [FFIType.u64], returns: FFIType.u32 },
    ZSTD_getErrorName: { args: [FFIType.u64], returns: FFIType.cstring },
  });
  return symbols.ZSTD_versionNumber() >= MIN_VERSION ? symbols : null;
});

/** Whether the system's libzstd loads here (once per thread); never throws. */
export function hasZstdLibrary(): boolean {
  return loadLibrary() !== null;
}

/** A context compressing at `level`, or null where libzstd is missing or too old; never throws. */
export function createZstdContext(level: number): ZstdContext | null {
  const symbols = loadLibrary();
  if (!symbols) return null;
  const size = Number(symbols.ZSTD_estimateCCtxSize(level));
  const workspace = new Uint8Array(size);
  const context = symbols.ZSTD_initStaticCCtx(ptr(workspace), size);
  if (!context) return null;
  let output = new Uint8Array(0);
  return {
    // Held here so that the context's memory lives as long as the context does.
    workspace,
    compress(input: Uint8Array) {
      const bound = Number(symbols.ZSTD_compressBound(input.length));
      if (output.length < bound) output = new Uint8Array(bound);
      const written = symbols.ZSTD_compressCCtx(context, ptr(output), output.length, ptr(input), input.length, level);
      if (symbols.ZSTD_isError(written)) throw new Error(`zstd: ${symbols.ZSTD_getErrorName(written)}`);
      return output.slice(0, Number(written));
    },
  } as ZstdContext;
}
