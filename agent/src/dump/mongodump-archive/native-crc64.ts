// CRC-64/XZ from the system's liblzma (xz-utils), which has it as `lzma_crc64` with the same
// polynomial, initial value and final xor as Go's crc64.ECMA (the checksum mongodump stores): the
// library's table or carry-less-multiply code runs at 5-8 GB/s where JavaScript's 32-bit table
// lookups reach ~1.2 GB/s, and the CRC-64 was the largest CPU cost of sealing an archive
// (bench/README.md). liblzma is on nearly every Linux host (systemd and most package managers
// link it) and in macOS's /usr/lib; where it is missing, or does not give the catalogue check
// value, the table-driven code in crc64.ts is used instead, with the same results.
import { dlopen, FFIType, ptr } from "bun:ffi";
import { type LibraryNames, systemLibraryLoader } from "../../platform/system-library.ts";

/** Feeds `bytes[start..end)` (start < end) into `crc` (0 to begin, lzma's convention: no inversion between calls) and returns the new value. */
export type NativeCrc64Update = (bytes: Uint8Array, start: number, end: number, crc: bigint) => bigint;

const LIBRARY_NAMES: LibraryNames = {
  linux: ["liblzma.so.5"],
  darwin: ["/usr/lib/liblzma.5.dylib", "liblzma.5.dylib"],
};
const CHECK_INPUT = new TextEncoder().encode("123456789");
const CHECK_VALUE = 0x995dc9bbdf1939fan;

/** The system's CRC-64 when it loads and checks out, else null (loaded once, on first call); never throws. */
export const loadNativeCrc64 = systemLibraryLoader<NativeCrc64Update>(LIBRARY_NAMES, (name) => {
  const library = dlopen(name, { lzma_crc64: { args: [FFIType.ptr, FFIType.u64, FFIType.u64], returns: FFIType.u64 } });
  const crc64 = library.symbols.lzma_crc64 as (pointer: number, size: number, crc: bigint) => bigint;
  const update: NativeCrc64Update = (bytes, start, end, crc) => crc64(ptr(bytes, start), end - start, crc);
  if (update(CHECK_INPUT, 0, CHECK_INPUT.length, 0n) === CHECK_VALUE) return update;
  library.close();
  return null;
});
