// What the restore command says about a consistent backup's oplog.
import { describe, expect, test } from "bun:test";
import type { RestoreResult } from "../dump/index.ts";
import { describeOplogReplay } from "./restore-summary.ts";

const result: RestoreResult = { engine: "builtin", collections: {}, restored: 0, failed: 0, skipped: [] };

describe("describeOplogReplay", () => {
  test("says nothing for a backup without an oplog", () => {
    expect(describeOplogReplay(result)).toBeUndefined();
  });

  test("counts the operations applied", () => {
    expect(describeOplogReplay({ ...result, oplog: { entries: 3, applied: 1, dropped: [] } })).toBe(
      "applied 1 operation of the backup's oplog (the writes made while the backup was taken)",
    );
  });

  test("names the targets dropped because the source dropped them", () => {
    expect(describeOplogReplay({ ...result, oplog: { entries: 9, applied: 7, dropped: ["shop.drafts", "shop.orders"] } })).toBe(
      "applied 7 operations of the backup's oplog (the writes made while the backup was taken); dropped shop.drafts, shop.orders, which the source dropped while the backup was taken",
    );
  });
});
