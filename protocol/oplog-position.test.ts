// The one reading of a moment: the server's `at` (restores/point-in-time.ts readMoment) and the
// CLI's `--until` (commands/point-in-time-options.ts parseUntil) both go through parseMoment.
import { describe, expect, test } from "bun:test";
import { compareOplogTimes, formatOplogTime, oplogTimeFromBigInt, oplogTimeToBigInt, parseMoment, parseOplogTime } from "./oplog-position";

const LAST = 0xffff_ffff;

describe("parseMoment", () => {
  test.each([
    ["1795760102,22", { t: 1795760102, i: 22 }],
    ["0,0", { t: 0, i: 0 }],
    ["4294967295,4294967295", { t: LAST, i: LAST }],
    ["2026-11-27T14:37:05Z", { t: 1795790225, i: LAST }],
    ["2026-11-27T14:37:05.000Z", { t: 1795790225, i: LAST }],
    ["2026-11-27T14:37:05.0Z", { t: 1795790225, i: LAST }],
    ["2026-11-27T16:37:05+02:00", { t: 1795790225, i: LAST }],
    ["1970-01-01T00:00:00Z", { t: 0, i: LAST }],
    ["2106-02-07T06:28:15Z", { t: LAST, i: LAST }],
  ])("%s names %o", (text, position) => {
    expect(parseMoment(text)).toEqual(position);
  });

  test.each([
    "",
    "now",
    "1795760102",
    "01,2",
    "4294967296,0",
    "1,4294967296",
    "2026-11-27T14:37:05",
    "2026-11-27T14:37Z",
    "2026-11-27T14:37:05.5Z",
    "2026-11-27 14:37:05Z",
    "2026-13-27T14:37:05Z",
    "1969-12-31T23:59:59Z",
    "2106-02-07T06:28:16Z",
  ])("%p names no moment", (text) => {
    expect(parseMoment(text)).toBeUndefined();
  });
});

test("positions order, print and read back as MongoDB orders and the CLI writes them", () => {
  const a = { t: 10, i: 4_000_000_000 };
  const b = { t: 11, i: 0 };
  expect(compareOplogTimes(a, b)).toBeLessThan(0);
  expect(compareOplogTimes(b, a)).toBeGreaterThan(0);
  expect(compareOplogTimes(a, { ...a })).toBe(0);
  expect(oplogTimeToBigInt(a) < oplogTimeToBigInt(b)).toBe(true);
  expect(oplogTimeFromBigInt(oplogTimeToBigInt(a))).toEqual(a);
  expect(parseOplogTime(formatOplogTime(a))).toEqual(a);
});
