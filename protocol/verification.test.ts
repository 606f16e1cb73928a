import { describe, expect, test } from "bun:test";
import { compareNamespaceCounts, drillDatabaseName, verificationOf } from "./verification";

describe("compareNamespaceCounts", () => {
  test("names what is missing or differs, ignores extras, reads time-series buckets as their collection", () => {
    expect(compareNamespaceCounts({ "a.x": 1, "a.y": 2, "a.z": 3 }, { "a.x": 1, "a.y": 5, "a.extra": 9 })).toEqual([
      "a.y holds 5 documents, 2 expected",
      "a.z is missing (3 documents expected)",
    ]);
    expect(compareNamespaceCounts({ "a.metrics": 4 }, { "a.system.buckets.metrics": 4 })).toEqual([]);
    expect(compareNamespaceCounts({ "a.system.buckets.metrics": 4 }, { "a.metrics": 3 })).toEqual(["a.system.buckets.metrics holds 3 documents, 4 expected"]);
  });

  test("verificationOf: ok without expectations or when they hold; failed naming at most five differences", () => {
    expect(verificationOf({ "a.x": 1 }, undefined)).toEqual({ status: "ok", namespaces: { "a.x": 1 } });
    const expected = Object.fromEntries(Array.from({ length: 7 }, (_, i) => [`a.c${i}`, 1]));
    const failed = verificationOf({}, expected);
    expect(failed.status).toBe("failed");
    expect(failed.error).toEndWith("a.c4 is missing (1 document expected); and 2 more");
  });
});

describe("drillDatabaseName", () => {
  test("is <name>_dbvault_drill with MongoDB's forbidden characters replaced, within 63 bytes", () => {
    expect(drillDatabaseName("shop")).toBe("shop_dbvault_drill");
    expect(drillDatabaseName("Shop Main.eu")).toBe("Shop_Main_eu_dbvault_drill");
    const long = drillDatabaseName("x".repeat(64));
    expect(long).toBe(`${"x".repeat(49)}_dbvault_drill`);
    expect(long.length).toBe(63);
  });
});
