import { describe, expect, test } from "bun:test";
import { BSON, type Document } from "bson";
import { WindowCollections } from "./window-collections.ts";

const collectionsOf = (entries: Document[], database = "shop") => {
  const found = new WindowCollections();
  for (const entry of entries) found.add(BSON.serialize(entry));
  return found.namesIn(database);
};

describe("the collections an oplog window writes to", () => {
  test("writes name their collection; no-ops and other databases name none", () => {
    expect(
      collectionsOf([
        { op: "i", ns: "shop.orders", o: { _id: 1 } },
        { op: "u", ns: "shop.carts", o: { $v: 2, diff: {} }, o2: { _id: 1 } },
        { op: "d", ns: "shop.orders", o: { _id: 1 } },
        { op: "n", ns: "", o: { msg: "periodic noop" } },
        { op: "i", ns: "other.orders", o: { _id: 1 } },
      ]),
    ).toEqual(["carts", "orders"]);
  });

  test("the databases written to are listed, for an archive that names none itself", () => {
    const found = new WindowCollections();
    for (const entry of [
      { op: "c", ns: "fresh.$cmd", o: { create: "first" } },
      { op: "i", ns: "fresh.first", o: { _id: 1 } },
    ])
      found.add(BSON.serialize(entry));
    expect(found.databases).toEqual(["fresh"]);
  });

  test("collections created, changed, dropped and renamed by commands are named", () => {
    expect(
      collectionsOf([
        { op: "c", ns: "shop.$cmd", o: { create: "fresh", idIndex: { v: 2, key: { _id: 1 }, name: "_id_" } } },
        { op: "c", ns: "shop.$cmd", o: { createIndexes: "indexed", v: 2, key: { sku: 1 }, name: "sku_1" } },
        { op: "c", ns: "shop.$cmd", o: { drop: "gone" } },
        { op: "c", ns: "shop.$cmd", o: { renameCollection: "shop.old", to: "shop.new", dropTarget: false } },
        { op: "c", ns: "shop.$cmd", o: { dropDatabase: 1 } },
      ]),
    ).toEqual(["fresh", "gone", "indexed", "new", "old"]);
  });

  test("the operations inside applyOps and transactions are named, nested ones too", () => {
    const lsid = { id: new BSON.Binary(Buffer.alloc(16, 1), 4) };
    expect(
      collectionsOf([
        {
          op: "c",
          ns: "admin.$cmd",
          lsid,
          txnNumber: 1n,
          o: {
            applyOps: [
              { op: "i", ns: "shop.payments", o: { _id: 1 } },
              { op: "c", ns: "shop.$cmd", o: { applyOps: [{ op: "u", ns: "shop.stock", o: {}, o2: { _id: 2 } }] } },
            ],
            partialTxn: true,
          },
        },
        { op: "c", ns: "admin.$cmd", lsid, txnNumber: 1n, o: { applyOps: [{ op: "i", ns: "other.x", o: { _id: 1 } }] } },
        { op: "c", ns: "admin.$cmd", lsid, txnNumber: 1n, o: { commitTransaction: 1 } },
      ]),
    ).toEqual(["payments", "stock"]);
  });
});
