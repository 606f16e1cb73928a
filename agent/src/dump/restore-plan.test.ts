// Which databases a restore takes: from the archive's collections, its oplog's entries, and the
// backup's own database when neither names one (a base taken before the first collection).
import { expect, test } from "bun:test";
import type { CollectionMetadata } from "./mongodump-archive/index.ts";
import { planRestore } from "./restore-plan.ts";

const entry = (db: string, collection: string): CollectionMetadata => ({
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
