import { describe, expect, test } from "bun:test";
import { MAX_BATCH_BYTES } from "./limits";
import { CursorRegistry, measureBatch, type CursorReply } from "./cursors";

const small = new Uint8Array(10);
const big = new Uint8Array(MAX_BATCH_BYTES - 100);

describe("measureBatch", () => {
  test("stops at the requested count", () => {
    expect(measureBatch([small, small, small, small], 1, 2)).toBe(3);
    expect(measureBatch([small, small, small], 0, undefined)).toBe(3);
  });

  test("stops before the 16 MiB budget but never returns an empty batch", () => {
    expect(measureBatch([big, big, big], 0, 100)).toBe(1);
    expect(measureBatch([small, big, big], 0, 100)).toBe(2);
    expect(measureBatch([new Uint8Array(MAX_BATCH_BYTES + 1)], 0, 100)).toBe(1);
  });
});

describe("CursorRegistry", () => {
  test("keeps a cursor open until the last batch, then reports id 0 and forgets it", () => {
    const registry = new CursorRegistry();
    const first = registry.openCursor("d.c", [small, small, small], { batchSize: 2 });
    const id = BigInt(String(first.cursor.id));
    expect(id).toBeGreaterThan(0n);
    expect(registry.openCount).toBe(1);
    const next = registry.continueCursor(id, "d.c", undefined) as CursorReply; // not tailable: answered at once
    expect(String(next.cursor.id)).toBe("0");
    expect(registry.openCount).toBe(0);
    expect(() => registry.continueCursor(id, "d.c", undefined)).toThrow(`cursor id ${id} not found`);
  });

  test("refuses a getMore from another namespace and drops idle cursors", () => {
    const registry = new CursorRegistry();
    const id = BigInt(String(registry.openCursor("d.c", [small, small], { batchSize: 1 }).cursor.id));
    expect(() => registry.continueCursor(id, "d.other", 1)).toThrow("belongs to a different namespace");
    registry.sweepIdleCursors(Date.now() + 11 * 60 * 1000);
    expect(registry.openCount).toBe(0);
  });

  test("singleBatch and batchSize 0 behave as in mongod", () => {
    const registry = new CursorRegistry();
    expect(String(registry.openCursor("d.c", [small, small], { batchSize: 1, singleBatch: true }).cursor.id)).toBe("0");
    const empty = registry.openCursor("d.c", [small], { batchSize: 0 });
    expect((empty.cursor.firstBatch as { documents: unknown[] }).documents).toHaveLength(0);
    expect(String(empty.cursor.id)).not.toBe("0");
  });
});
