import { describe, expect, test } from "bun:test";
import { formatDatePattern } from "./date-pattern";

describe("formatDatePattern", () => {
  test("restore history pattern 'MMM d, yyyy h:mm a' in local time", () => {
    expect(formatDatePattern(new Date(2025, 0, 5, 15, 7), "MMM d, yyyy h:mm a")).toBe("Jan 5, 2025 3:07 PM");
    expect(formatDatePattern(new Date(2024, 11, 31, 0, 0), "MMM d, yyyy h:mm a")).toBe("Dec 31, 2024 12:00 AM");
    expect(formatDatePattern(new Date(2024, 5, 10, 12, 30), "MMM d, yyyy h:mm a")).toBe("Jun 10, 2024 12:30 PM");
    expect(formatDatePattern(new Date(2024, 5, 10, 11, 59), "MMM d, yyyy h:mm a")).toBe("Jun 10, 2024 11:59 AM");
  });

  test("audit pattern 'MMM d, yyyy HH:mm:ss' uses 24-hour time with seconds", () => {
    expect(formatDatePattern(new Date(2025, 3, 30, 9, 5, 3), "MMM d, yyyy HH:mm:ss")).toBe("Apr 30, 2025 09:05:03");
    expect(formatDatePattern(new Date(2025, 3, 30, 23, 0, 59), "MMM d, yyyy HH:mm:ss")).toBe("Apr 30, 2025 23:00:59");
  });

  test("accepts ISO strings and gives nothing for missing or invalid dates", () => {
    const iso = new Date(2025, 1, 3, 8, 4).toISOString();
    expect(formatDatePattern(iso, "MMM d, yyyy h:mm a")).toBe("Feb 3, 2025 8:04 AM");
    expect(formatDatePattern(null, "MMM d, yyyy")).toBe("");
    expect(formatDatePattern("", "MMM d, yyyy")).toBe("");
    expect(formatDatePattern("not a date", "MMM d, yyyy")).toBe("");
  });
});
