import { describe, expect, test } from "bun:test";
import { Binary, Long } from "bson";
import { createEntryFilter } from "./entry-filter.ts";

const session = (byte: number) => ({ id: new Binary(Buffer.alloc(16, byte), 4) });

describe("which entries a database's slices keep", () => {
  test("its collections and its $cmd, not a database whose name it begins", () => {
    const keep = createEntryFilter("shop");
    expect(keep({ op: "i", ns: "shop.orders", o: { _id: 1 } })).toBe(true);
    expect(keep({ op: "c", ns: "shop.$cmd", o: { create: "lines" } })).toBe(true);
    expect(keep({ op: "i", ns: "shopping.orders", o: { _id: 1 } })).toBe(false);
    expect(keep({ op: "n", ns: "", o: { msg: "new primary" } })).toBe(false);
  });

  test("a rename into it from another database", () => {
    const keep = createEntryFilter("shop");
    expect(keep({ op: "c", ns: "staging.$cmd", o: { renameCollection: "staging.orders", to: "shop.orders" } })).toBe(true);
    expect(keep({ op: "c", ns: "staging.$cmd", o: { renameCollection: "staging.a", to: "staging.b" } })).toBe(false);
  });

  test("a transaction whole: every part after one that touched it, and the commit of a prepared one", () => {
    const keep = createEntryFilter("shop");
    const txn = { lsid: session(1), txnNumber: Long.fromNumber(3) };
    expect(keep({ op: "c", ns: "admin.$cmd", ...txn, o: { applyOps: [{ op: "i", ns: "shop.orders", o: { _id: 1 } }], partialTxn: true } })).toBe(true);
    expect(keep({ op: "c", ns: "admin.$cmd", ...txn, o: { applyOps: [{ op: "i", ns: "other.c", o: { _id: 2 } }], prepare: true } })).toBe(true);
    expect(keep({ op: "c", ns: "admin.$cmd", ...txn, o: { commitTransaction: 1 } })).toBe(true);
    // After its end, the same session's next transaction is judged on its own.
    const next = { lsid: session(1), txnNumber: Long.fromNumber(4) };
    expect(keep({ op: "c", ns: "admin.$cmd", ...next, o: { applyOps: [{ op: "i", ns: "other.c", o: { _id: 3 } }] } })).toBe(false);
    // Another session's transaction on another database is not kept.
    expect(keep({ op: "c", ns: "admin.$cmd", lsid: session(2), txnNumber: Long.fromNumber(3), o: { applyOps: [{ op: "i", ns: "other.c", o: {} }] } })).toBe(
      false,
    );
  });
});
