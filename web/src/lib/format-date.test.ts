import { expect, test } from "bun:test";
import { describeTimeZone, formatTimeZone } from "./format-date";

test("a time zone reads as its offset from UTC and its name", () => {
  expect(formatTimeZone(60, "Europe/Berlin")).toBe("UTC+01:00, Europe/Berlin");
  expect(formatTimeZone(-300, "America/New_York")).toBe("UTC−05:00, America/New_York");
  expect(formatTimeZone(330, "Asia/Kolkata")).toBe("UTC+05:30, Asia/Kolkata");
  expect(formatTimeZone(0, "UTC")).toBe("UTC");
  expect(formatTimeZone(0, "Europe/London")).toBe("UTC+00:00, Europe/London");
  expect(formatTimeZone(120, undefined)).toBe("UTC+02:00");
});

test("the browser's zone at a moment: the offset of that moment", () => {
  const at = new Date(Date.UTC(2026, 11, 7, 12));
  expect(describeTimeZone(at, "Somewhere/Else")).toBe(formatTimeZone(-at.getTimezoneOffset(), "Somewhere/Else"));
});
