// CRC-64/XZ, the checksum Go's hash/crc64 computes with crc64.ECMA and the one mongodump stores
// in each namespace's EOF header. Reflected polynomial 0xC96C5795D7870F42, initial value and
// final xor all ones; check value for "123456789" is 0x995dc9bbdf1939fa.
//
// JavaScript has no fast 64-bit integers (BigInt arithmetic is ~100x slower than Number), so the
// 64-bit register is kept as two unsigned 32-bit halves. Slicing-by-8 consumes eight input bytes
// per step with eight table lookups. The system's liblzma computes the same checksum several
// times faster (native-crc64.ts): it is used wherever it loads, and this code everywhere else.
import { loadNativeCrc64, type NativeCrc64Update } from "./native-crc64.ts";

const REFLECTED_POLY_HI = 0xc96c5795 | 0;
const REFLECTED_POLY_LO = 0xd7870f42 | 0;
const SLICES = 8;

// TABLE_LO[k * 256 + b] / TABLE_HI[...]: the CRC contribution of byte b followed by k zero bytes.
// Signed Int32Array on purpose: JavaScriptCore keeps int32 values unboxed, while values above
// 2^31 read from a Uint32Array become doubles and halve the throughput.
const TABLE_LO = new Int32Array(SLICES * 256);
const TABLE_HI = new Int32Array(SLICES * 256);
// Below this length a DataView costs more to create than it saves on word loads.
const DATAVIEW_MIN_LENGTH = 512;

function buildTables(): void {
  for (let b = 0; b < 256; b++) {
    let lo = b;
    let hi = 0;
    for (let bit = 0; bit < 8; bit++) {
      const carry = lo & 1;
      lo = (lo >>> 1) | ((hi & 1) << 31);
      hi = hi >>> 1;
      if (carry) {
        lo ^= REFLECTED_POLY_LO;
        hi ^= REFLECTED_POLY_HI;
      }
    }
    TABLE_LO[b] = lo;
    TABLE_HI[b] = hi;
  }
  for (let k = 1; k < SLICES; k++) {
    for (let b = 0; b < 256; b++) {
      const prevLo = TABLE_LO[(k - 1) * 256 + b]!;
      const prevHi = TABLE_HI[(k - 1) * 256 + b]!;
      const index = prevLo & 0xff;
      TABLE_LO[k * 256 + b] = TABLE_LO[index]! ^ ((prevLo >>> 8) | (prevHi << 24));
      TABLE_HI[k * 256 + b] = TABLE_HI[index]! ^ (prevHi >>> 8);
    }
  }
}
buildTables();

/** A running CRC-64/XZ over a sequence of byte arrays; `update` as often as needed, then `digest`. */
export class Crc64 {
  // The table code's register between updates, already inverted (the initial value is all ones).
  private lo = -1;
  private hi = -1;
  // The native code's value between updates (not inverted: lzma_crc64 inverts on entry and exit).
  private value = 0n;

  /** Uses the system's CRC-64 when it is there (`null`: always the table code, as tests compare them). */
  constructor(private readonly native: NativeCrc64Update | null = loadNativeCrc64()) {}

  /** Feeds `bytes[start..end)` (all of it by default) into the checksum and returns this object; never throws. */
  update(bytes: Uint8Array, start = 0, end = bytes.length): this {
    if (this.native) {
      if (end > start) this.value = this.native(bytes, start, end, this.value);
      return this;
    }
    const t = TABLE_LO;
    const u = TABLE_HI;
    const fastEnd = end - ((end - start) % 8);
    let lo = this.lo;
    let hi = this.hi;
    let i = start;
    if (end - start >= DATAVIEW_MIN_LENGTH) {
      const view = new DataView(bytes.buffer, bytes.byteOffset, end);
      while (i < fastEnd) {
        const a = lo ^ view.getInt32(i, true);
        const c = hi ^ view.getInt32(i + 4, true);
        i += 8;
        const i7 = 1792 + (a & 0xff);
        const i6 = 1536 + ((a >>> 8) & 0xff);
        const i5 = 1280 + ((a >>> 16) & 0xff);
        const i4 = 1024 + (a >>> 24);
        const i3 = 768 + (c & 0xff);
        const i2 = 512 + ((c >>> 8) & 0xff);
        const i1 = 256 + ((c >>> 16) & 0xff);
        const i0 = c >>> 24;
        lo = t[i7]! ^ t[i6]! ^ t[i5]! ^ t[i4]! ^ t[i3]! ^ t[i2]! ^ t[i1]! ^ t[i0]!;
        hi = u[i7]! ^ u[i6]! ^ u[i5]! ^ u[i4]! ^ u[i3]! ^ u[i2]! ^ u[i1]! ^ u[i0]!;
      }
    } else {
      while (i < fastEnd) {
        const a = lo ^ (bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24));
        const c = hi ^ (bytes[i + 4]! | (bytes[i + 5]! << 8) | (bytes[i + 6]! << 16) | (bytes[i + 7]! << 24));
        i += 8;
        const i7 = 1792 + (a & 0xff);
        const i6 = 1536 + ((a >>> 8) & 0xff);
        const i5 = 1280 + ((a >>> 16) & 0xff);
        const i4 = 1024 + (a >>> 24);
        const i3 = 768 + (c & 0xff);
        const i2 = 512 + ((c >>> 8) & 0xff);
        const i1 = 256 + ((c >>> 16) & 0xff);
        const i0 = c >>> 24;
        lo = t[i7]! ^ t[i6]! ^ t[i5]! ^ t[i4]! ^ t[i3]! ^ t[i2]! ^ t[i1]! ^ t[i0]!;
        hi = u[i7]! ^ u[i6]! ^ u[i5]! ^ u[i4]! ^ u[i3]! ^ u[i2]! ^ u[i1]! ^ u[i0]!;
      }
    }
    while (i < end) {
      const index = (lo ^ bytes[i]!) & 0xff;
      lo = t[index]! ^ ((lo >>> 8) | (hi << 24));
      hi = u[index]! ^ (hi >>> 8);
      i++;
    }
    this.lo = lo;
    this.hi = hi;
    return this;
  }

  /** Returns the checksum so far as an unsigned 64-bit value (Go's `Sum64()`); never throws. */
  digest(): bigint {
    if (this.native) return this.value;
    return (BigInt(~this.hi >>> 0) << 32n) | BigInt(~this.lo >>> 0);
  }

  /** Returns the checksum as the signed int64 bit pattern mongodump stores in EOF headers; never throws. */
  digestInt64(): bigint {
    return BigInt.asIntN(64, this.digest());
  }
}

/** Computes the CRC-64/XZ (Go `crc64.ECMA`) of one byte array as an unsigned 64-bit value; never throws. */
export function computeCrc64(bytes: Uint8Array): bigint {
  return new Crc64().update(bytes).digest();
}

/** Formats a CRC-64 (stored signed or unsigned) as 16 hex digits of its unsigned value, as messages show it; never throws. */
export function formatCrc64(crc: bigint): string {
  return BigInt.asUintN(64, crc).toString(16).padStart(16, "0");
}
