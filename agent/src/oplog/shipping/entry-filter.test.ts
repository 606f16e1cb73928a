import { describe, expect, test } from "bun:test";
import { Binary, Long } from "bson";
import { BSON, type Document } from "bson";
import { createEntryFilter as createSelector } from "./entry-filter.ts";

/** Whether the filter keeps each entry, as the shipper asks it (the entry's bytes and header). */
const createEntryFilter = (database: string) => {
  const select = createSelector(database);
  return (entry: Document) => select(BSON.serialize(entry), { op: entry.op, ns: entry.ns }) !== undefined;
};

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

  test("every part of a transaction spread over entries, cut down to the database: a first part of another database too", () => {
    const select = createSelector("shop");
    const txn = { lsid: session(3), txnNumber: Long.fromNumber(1) };
    const part = (ns: string, extra: Document) => ({ op: "c", ns: "admin.$cmd", ...txn, o: { applyOps: [{ op: "i", ns, o: { _id: ns } }], ...extra } });
    const shipped = [part("other.c", { partialTxn: true }), part("shop.orders", { partialTxn: true }), part("other.c", {})].map((entry) => {
      const bytes = select(BSON.serialize(entry), entry);
      return bytes && BSON.deserialize(bytes).o.applyOps.map((inner: Document) => inner.ns);
    });
    expect(shipped).toEqual([[], ["shop.orders"], []]);
    // A one-entry transaction: kept cut down when it touches the database, left out when not.
    const single = {
      op: "c",
      ns: "admin.$cmd",
      lsid: session(4),
      txnNumber: Long.fromNumber(1),
      o: {
        applyOps: [
          { op: "i", ns: "other.c", o: {} },
          { op: "i", ns: "shop.a", o: {} },
        ],
      },
    };
    expect(BSON.deserialize(select(BSON.serialize(single), single)!).o.applyOps).toEqual([{ op: "i", ns: "shop.a", o: {} }]);
    const elsewhere = { ...single, txnNumber: Long.fromNumber(2), o: { applyOps: [{ op: "i", ns: "other.c", o: {} }] } };
    expect(select(BSON.serialize(elsewhere), elsewhere)).toBeUndefined();
  });
});
