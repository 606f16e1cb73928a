import { expect, test } from "bun:test";
import { offlineRestoreCommands, slicesRange } from "./offline-restore";

const plan = {
  databaseName: "shop",
  until: { ts: "1790000125,4294967295" },
  base: { id: "b1", createdAt: "2026-11-27T14:30:00.000Z", consistentAt: { ts: "1790000105,2" } },
};

test("the offline restore: unzip the slices, then restore the base up to the moment's exact position", () => {
  expect(offlineRestoreCommands(plan)).toBe(
    [
      "unzip shop-oplog-slices.zip -d shop-slices",
      "dbvault-agent restore --db shop --in backup-shop-2026-11-27T14:30:00.000Z.enc.dbvault --oplog shop-slices --until 1790000125,4294967295",
    ].join("\n"),
  );
  expect(slicesRange(plan)).toEqual({ from: "1790000105,2", to: "1790000125,4294967295" });
});
