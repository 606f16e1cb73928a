import { describe, expect, test } from "bun:test";
import { buildTimeline, type SliceBounds } from "./timeline";

const slice = (chain: string, sequence: number, start: number, end: number, extra: Partial<SliceBounds> = {}): SliceBounds => ({
  chain,
  sequence,
  startTs: BigInt(start),
  endTs: BigInt(end),
  entryCount: 2,
  size: 100,
  reason: sequence === 0 ? "started" : "continues",
  rolloverFromTs: null,
  ...extra,
});

describe("a database's covered timeline", () => {
  test("slices each starting where the one before ended make one range, in whatever order they arrived", () => {
    const { ranges, gaps } = buildTimeline([slice("a", 2, 30, 40), slice("a", 0, 10, 20), slice("a", 1, 20, 30)]);
    expect(ranges).toEqual([{ chain: "a", from: 10n, to: 40n, slices: 3, entries: 6, bytes: 300 }]);
    expect(gaps).toEqual([]);
  });

  test("a slice that never arrived is a gap between the slices around it", () => {
    const { ranges, gaps } = buildTimeline([slice("a", 0, 10, 20), slice("a", 2, 30, 40)]);
    expect(ranges.map((r) => [r.from, r.to])).toEqual([
      [10n, 20n],
      [30n, 40n],
    ]);
    expect(gaps).toEqual([{ from: 20n, to: 30n, reason: "missing" }]);
  });

  test("a chain started after a rollover is a rollover gap from the last position shipped", () => {
    const { gaps } = buildTimeline([slice("a", 0, 10, 20), slice("b", 0, 90, 95, { reason: "rollover", rolloverFromTs: 20n })]);
    expect(gaps).toEqual([{ from: 20n, to: 90n, reason: "rollover" }]);
  });

  test("a chain started again without state is a gap when it starts later, none when it starts where the other ended", () => {
    expect(buildTimeline([slice("a", 0, 10, 20), slice("b", 0, 25, 30)]).gaps).toEqual([{ from: 20n, to: 25n, reason: "restarted" }]);
    const joined = buildTimeline([slice("a", 0, 10, 20), slice("b", 0, 20, 30)]);
    expect(joined.gaps).toEqual([]);
    expect(joined.ranges.map((r) => r.chain)).toEqual(["a", "b"]);
  });

  test("no slices, no ranges", () => {
    expect(buildTimeline([])).toEqual({ ranges: [], gaps: [] });
  });
});
