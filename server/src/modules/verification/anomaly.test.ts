import { describe, expect, test } from "bun:test";
import { detectAnomaly } from "./anomaly";

const counts = (orders: number, extra: Record<string, number> = {}) => ({ "shop.orders": orders, ...extra });
const previous = (sizes: number[], documents = 1000) => sizes.map((size) => ({ size, collections: counts(documents) }));

describe("detectAnomaly", () => {
  test("nothing to compare with, or nothing wrong: null", () => {
    expect(detectAnomaly({ size: 10, collections: counts(1) }, [])).toBeNull();
    expect(detectAnomaly({ size: 500, collections: counts(500) }, previous([1000, 1000, 1000]))).toBeNull(); // exactly half is not under half
  });

  test("the median of the previous five: one huge outlier does not make a normal backup look small", () => {
    const history = previous([1000, 1000, 50_000, 1000, 1000, 90_000]); // the sixth is beyond the baseline
    expect(detectAnomaly({ size: 900, collections: counts(1000) }, history)).toBeNull();
    expect(detectAnomaly({ size: 499, collections: counts(1000) }, history)).toEqual({
      kind: "size_drop",
      detail: "499 Bytes, under half the median of 1000 Bytes of the previous 5 backups.",
    });
  });

  test("a document count under half the median is count_drop, and a size drop beside it is named too", () => {
    expect(detectAnomaly({ size: 400, collections: counts(10) }, previous([1000, 1200]))).toEqual({
      kind: "count_drop",
      detail:
        "10 documents, under half the median of 1,000 documents of the previous 2 backups. 400 Bytes, under half the median of 1.07 KB of the previous 2 backups.",
    });
  });

  test("a collection of the latest backup gone is collection_missing, even when the sizes hold", () => {
    const history = [{ size: 1000, collections: counts(10, { "shop.users": 5, "shop.logs": 0 }) }];
    expect(detectAnomaly({ size: 1000, collections: counts(10, { "shop.users": 5 }) }, history)).toEqual({
      kind: "collection_missing",
      detail: "a collection of the previous backup is gone: shop.logs.",
    });
  });

  test("backups without counts are compared by size only", () => {
    expect(detectAnomaly({ size: 100, collections: null }, [{ size: 1000, collections: null }])?.kind).toBe("size_drop");
    expect(detectAnomaly({ size: 1000, collections: counts(1) }, [{ size: 1000, collections: null }])).toBeNull();
  });
});
