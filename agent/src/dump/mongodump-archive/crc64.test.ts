import { describe, expect, test } from "bun:test";
import { Crc64 } from "./crc64.ts";
import { loadNativeCrc64 } from "./native-crc64.ts";
import { createRandom } from "./test-support.ts";

// Bit-at-a-time CRC-64/XZ straight from the definition, to check the table-driven one against.
function computeCrc64Slowly(bytes: Uint8Array): bigint {
  const poly = 0xc96c5795d7870f42n;
  let crc = 0xffffffffffffffffn;
  for (const byte of bytes) {
    crc ^= BigInt(byte);
    for (let bit = 0; bit < 8; bit++) crc = crc & 1n ? (crc >> 1n) ^ poly : crc >> 1n;
  }
  return crc ^ 0xffffffffffffffffn;
}

function randomBytes(length: number, seed: number): Uint8Array {
  const random = createRandom(seed);
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = Math.floor(random() * 256);
  return bytes;
}

// Both implementations against the definition: the system's liblzma where it loads (every Linux
// host the tests run on), and the table code the agent falls back to without it.
const implementations = [
  { name: "table code", native: null },
  { name: "system liblzma", native: loadNativeCrc64() },
] as const;

test("the system's liblzma CRC-64 loads on Linux (the fast path a dump and encrypt use)", () => {
  if (process.platform !== "linux") return;
  expect(loadNativeCrc64()).not.toBeNull();
  expect(new Crc64().update(new TextEncoder().encode("123456789")).digest().toString(16)).toBe("995dc9bbdf1939fa");
});

describe.each(implementations)("CRC-64/XZ (Go crc64.ECMA), $name", ({ native }) => {
  const computeCrc64 = (bytes: Uint8Array) => new Crc64(native).update(bytes).digest();

  test("gives the catalogue check value for 123456789", () => {
    expect(computeCrc64(new TextEncoder().encode("123456789")).toString(16)).toBe("995dc9bbdf1939fa");
  });

  test("is 0 for no bytes, the value mongodump stores for an empty namespace", () => {
    expect(computeCrc64(new Uint8Array(0))).toBe(0n);
    expect(new Crc64(native).digestInt64()).toBe(0n);
  });

  test("matches the bit-by-bit definition for every length from 0 to 600 (both code paths, every remainder)", () => {
    const data = randomBytes(600, 7);
    for (let length = 0; length <= 600; length++) {
      const slice = data.subarray(0, length);
      expect(computeCrc64(slice)).toBe(computeCrc64Slowly(slice));
    }
  });

  test("gives the same result however the input is split, at any alignment", () => {
    const data = randomBytes(5000, 11);
    const whole = computeCrc64(data);
    const random = createRandom(3);
    for (let round = 0; round < 50; round++) {
      const crc = new Crc64(native);
      let offset = 0;
      while (offset < data.length) {
        const size = 1 + Math.floor(random() * 1200);
        crc.update(data.subarray(offset, offset + size));
        offset += size;
      }
      expect(crc.digest()).toBe(whole);
    }
  });

  test("a shared memory slot's range gives the same result (encrypt's input slots)", () => {
    const data = randomBytes(3000, 13);
    const shared = new Uint8Array(new SharedArrayBuffer(4096));
    shared.set(data, 7);
    expect(new Crc64(native).update(shared, 7, 7 + data.length).digest()).toBe(computeCrc64Slowly(data));
  });

  test("a range of a larger array gives the same result as a copy of that range", () => {
    const data = randomBytes(5000, 12);
    const random = createRandom(4);
    for (let round = 0; round < 100; round++) {
      const start = Math.floor(random() * 2000);
      const end = start + Math.floor(random() * 3000);
      const inPlace = new Crc64(native).update(data, start, end).digest();
      expect(inPlace).toBe(computeCrc64(Buffer.from(data.subarray(start, end))));
    }
  });

  test("reports the signed int64 bit pattern mongodump stores", () => {
    const crc = new Crc64(native).update(new TextEncoder().encode("123456789"));
    expect(crc.digestInt64()).toBe(BigInt.asIntN(64, 0x995dc9bbdf1939fan));
    expect(crc.digestInt64() < 0n).toBe(true);
  });
});
