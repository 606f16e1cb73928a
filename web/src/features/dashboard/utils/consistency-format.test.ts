import { expect, test } from "bun:test";
import { describeConsistency } from "./consistency-format";

test("a backup's consistency line: T1 to the second with the oplog timestamp, standalone's warning, nothing when unreported", () => {
  const time = "2026-09-21T14:13:20.000Z";
  const shown = new Date(time).toLocaleString("en-US", {
    month: "short",
    day: "numeric",
    year: "numeric",
    hour: "numeric",
    minute: "2-digit",
    second: "2-digit",
  });
  expect(describeConsistency({ consistency: "point-in-time", consistentAt: { time, ts: { t: 1_790_000_000, i: 3 } } })).toEqual({
    label: `Consistent as of the last write at ${shown}`,
    title: "As of oplog timestamp {t: 1790000000, i: 3}",
  });
  expect(describeConsistency({ consistency: "standalone", consistentAt: null })?.label).toBe("not point-in-time consistent (standalone server)");
  expect(describeConsistency({ consistency: null, consistentAt: null })).toBeNull();
});
