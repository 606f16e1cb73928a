// The CRC offload must reach the same verdict as checksumming inline, whatever the piece sizes,
// whether the bytes lie in its shared slots (read in place) or elsewhere (copied), and must fail
// a damaged archive at `finish`. It runs here whatever the machine's core count (encrypt only
// starts it with two or more cores).
import { describe, expect, test } from "bun:test";
import { ArchiveScanner } from "./archive-scanner.ts";
import { startCrcOffload } from "./crc-offload.ts";
import { MongodumpArchiveError } from "./errors.ts";
import { createRandom, readFixture } from "./test-support.ts";

const SLOT_BYTES = 64 * 1024;

interface Scan {
  counts: Record<string, number>;
  error?: MongodumpArchiveError;
}

// Feeds the archive as encrypt does: pieces read into a turning ring of slots (or, with
// inSlots false, plain buffers the offload must copy from).
async function scanWithOffload(bytes: Uint8Array, seed: number, inSlots = true): Promise<Scan> {
  const offload = startCrcOffload(3, SLOT_BYTES);
  const counts: Record<string, number> = {};
  const scanner = new ArchiveScanner({ documents: false, checksums: offload.checksums }, (event) => {
    if (event.kind === "namespace-end") counts[event.namespace] = event.documentCount;
  });
  const random = createRandom(seed);
  try {
    let slot = 0;
    for (let at = 0; at < bytes.length; ) {
      offload.waitForSlot(slot);
      const n = Math.min(bytes.length - at, 1 + Math.floor(random() * SLOT_BYTES));
      const piece = inSlots ? offload.slots[slot]!.subarray(0, n) : Buffer.alloc(n);
      piece.set(bytes.subarray(at, at + n));
      scanner.write(piece);
      offload.submit(slot);
      if (!inSlots) piece.fill(0xee); // a copy must have been taken: the bytes change right away
      slot = (slot + 1) % offload.slots.length;
      at += n;
    }
    scanner.end();
    await offload.finish();
    return { counts };
  } catch (error) {
    if (error instanceof MongodumpArchiveError) return { counts, error };
    throw error;
  } finally {
    offload.close();
  }
}

function scanInline(bytes: Uint8Array): Scan {
  const counts: Record<string, number> = {};
  const scanner = new ArchiveScanner({ documents: false }, (event) => {
    if (event.kind === "namespace-end") counts[event.namespace] = event.documentCount;
  });
  try {
    scanner.write(bytes);
    scanner.end();
    return { counts };
  } catch (error) {
    if (error instanceof MongodumpArchiveError) return { counts, error };
    throw error;
  }
}

// A copy of the archive with one bit flipped where only the checksum can tell (the structure
// still parses): found by trying positions from the middle on.
function flipWhereOnlyTheCrcTells(original: Uint8Array): { bytes: Uint8Array; namespace: string } {
  for (let at = Math.floor(original.length / 2); at < original.length; at += 97) {
    const bytes = original.slice();
    bytes[at]! ^= 0x10;
    const { error } = scanInline(bytes);
    if (error?.code === "crc-mismatch") return { bytes, namespace: error.namespace! };
  }
  throw new Error("no position found where only the CRC detects the damage");
}

describe("CRC offload", () => {
  test("counts and verifies an archive like the inline checksum, in slots and from copies", async () => {
    const archive = await readFixture("modern-5k.archive");
    const inline = scanInline(archive);
    expect(inline.error).toBeUndefined();
    expect(Object.values(inline.counts).reduce((a, b) => a + b, 0)).toBeGreaterThan(5000);
    for (const seed of [1, 2, 3]) expect(await scanWithOffload(archive, seed)).toEqual({ counts: inline.counts });
    expect(await scanWithOffload(archive, 4, false)).toEqual({ counts: inline.counts });
  });

  test("fails a damaged archive at finish with the namespace whose checksum does not match", async () => {
    const archive = await readFixture("modern-5k.archive");
    const damaged = flipWhereOnlyTheCrcTells(archive);
    for (const inSlots of [true, false]) {
      const { error } = await scanWithOffload(damaged.bytes, 5, inSlots);
      expect(error?.code).toBe("crc-mismatch");
      expect(error?.namespace).toBe(damaged.namespace);
      expect(error?.message).toContain("do not match their checksum");
    }
  });
});
