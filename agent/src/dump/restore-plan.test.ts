// Which collections and databases a restore takes: chosen collections against the archive for a
// backup restored as it is, at the moment for a point-in-time restore (where a collection the
// entries create after the base backup is chosen too; the restorer checks the names once they are
// applied); databases from the archive's collections, its oplog's entries, and the backup's own
// database when neither names one (a base taken before the first collection).
import { expect, test } from "bun:test";
import type { CollectionMetadata } from "./mongodump-archive/index.ts";
import { DumpError } from "./errors.ts";
import { planRestore } from "./restore-plan.ts";

const metadata = (db: string, collection: string): CollectionMetadata => ({
  db,
  collection,
  namespace: `${db}.${collection}`,
  type: "collection",
  size: 0,
  options: {},
  indexes: [],
  uuid: undefined,
  metadataDocument: {},
  metadataJson: "",
});
const archive = [metadata("shop", "orders"), metadata("shop", "customers")];

test("a backup restored as it is: a chosen collection it does not hold is refused, naming what it holds", () => {
  expect(() => planRestore(archive, "shop_copy", ["orders", "made_later"])).toThrow(
    new DumpError("unknown-collection", 'the backup has no collection "made_later"; it holds customers, orders'),
  );
});

test("to a moment: the names are kept for the check at the moment, and a collection made after the base is restored", () => {
  const plan = planRestore(archive, "shop_copy", ["orders", "made_later"], { collectionsAtMoment: true });
  expect(plan.chosenAtMoment).toEqual(["orders", "made_later"]);
  expect(plan.targetOf(metadata("shop", "made_later"))).toBe("shop_copy.made_later");
  expect(plan.targetOf(metadata("shop", "orders"))).toBe("shop_copy.orders");
  expect(plan.targetOf(metadata("shop", "customers"))).toBeUndefined();
  expect(planRestore(archive, "shop_copy", ["orders"]).chosenAtMoment).toBeUndefined();
  expect(planRestore(archive, "shop_copy", undefined, { collectionsAtMoment: true }).chosenAtMoment).toBeUndefined();
});

test("the collections an oplog window writes to: one it creates is restored, and none is checked at a moment", () => {
  const plan = planRestore(archive, "shop_dbvault_drill", ["orders", "created_by_window"], { collectionsOfWindow: true });
  expect(plan.chosenAtMoment).toBeUndefined();
  expect(plan.targetOf(metadata("shop", "created_by_window"))).toBe("shop_dbvault_drill.created_by_window");
  expect(plan.targetOf(metadata("shop", "customers"))).toBeUndefined();
  // Checked against the archive otherwise.
  expect(() => planRestore(archive, "shop_dbvault_drill", ["orders", "created_by_window"])).toThrow(/no collection "created_by_window"/);
});

const entry = metadata;
const OPLOG = entry("", "oplog");

test("an oplog-only archive restores the databases its entries write to, under their names", () => {
  const plan = planRestore([OPLOG], undefined).withOplogDatabases(["test", "admin", "local"]);
  expect(plan.sourceDatabases).toEqual(["test"]);
  expect(plan.targetOf(entry("test", "data"))).toBe("test.data");
});

test("an oplog-only archive restored into another database: its one database is renamed", () => {
  const plan = planRestore([OPLOG], "copy").withOplogDatabases(["fresh"]);
  expect(plan.rename).toEqual({ from: "fresh", to: "copy" });
  expect(plan.targetOf(entry("fresh", "items"))).toBe("copy.items");
});

test("an archive naming no database takes the backup's own, renamed to the target", () => {
  const plan = planRestore([OPLOG], "copy", undefined, { sourceDatabase: "fresh" });
  expect(plan.sourceDatabases).toEqual(["fresh"]);
  expect(plan.rename).toEqual({ from: "fresh", to: "copy" });
  expect(plan.targetDatabases).toEqual(["copy"]);
  // Its consistent point's no-op names none either.
  expect(plan.withOplogDatabases([]).rename).toEqual({ from: "fresh", to: "copy" });
});

test("without the backup's database, the target is taken as the source (in place)", () => {
  expect(planRestore([OPLOG], "shop").onlyDatabase).toBe("shop");
});

test("collections name the source before the request does", () => {
  const plan = planRestore([entry("shop", "orders"), OPLOG], "copy", undefined, { sourceDatabase: "elsewhere" });
  expect(plan.rename).toEqual({ from: "shop", to: "copy" });
});
