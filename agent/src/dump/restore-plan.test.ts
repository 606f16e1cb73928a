// Which collections a restore writes when only some are chosen: against the archive for a backup
// restored as it is; at the moment for a point-in-time restore, where a collection the entries
// create after the base backup is chosen too (the restorer checks the names once they are applied).
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
