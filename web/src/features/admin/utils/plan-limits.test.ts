import { describe, expect, test } from "bun:test";
import { describePlanLimits, formatDatabaseLimit, formatDurationHours } from "./plan-limits";

describe("formatDurationHours", () => {
  test("under an hour in minutes", () => {
    expect(formatDurationHours(0.5)).toBe("30 minutes");
    expect(formatDurationHours(1 / 60)).toBe("1 minute");
  });
  test("up to and including 24 hours in hours", () => {
    expect(formatDurationHours(1)).toBe("1 hour");
    expect(formatDurationHours(12)).toBe("12 hours");
    expect(formatDurationHours(24)).toBe("24 hours");
  });
  test("under a week in days, under a year in weeks", () => {
    expect(formatDurationHours(72)).toBe("3 days");
    expect(formatDurationHours(36)).toBe("1.5 days");
    expect(formatDurationHours(168)).toBe("1 week");
    expect(formatDurationHours(336)).toBe("2 weeks");
    expect(formatDurationHours(720)).toBe("4.3 weeks");
  });
  test("under 105,120 hours in months of 730 hours, beyond that in days", () => {
    expect(formatDurationHours(8760)).toBe("12 months");
    expect(formatDurationHours(730 * 143)).toBe("143 months");
    expect(formatDurationHours(105_120)).toBe("4380 days");
  });
  test("nonsense reads as unknown rather than a wrong figure", () => {
    expect(formatDurationHours(Number.NaN)).toBe("unknown");
    expect(formatDurationHours(-5)).toBe("unknown");
  });
});

describe("plan limits", () => {
  test("database limits above 500 are Unlimited", () => {
    expect(formatDatabaseLimit(1)).toBe("1");
    expect(formatDatabaseLimit(500)).toBe("500");
    expect(formatDatabaseLimit(501)).toBe("Unlimited");
  });

  test("the panel's retention reads as Billing and Settings do: 7 and 30 days, not '1 week' and '4.3 weeks'", () => {
    const retentionOf = (hours: number) => describePlanLimits({ storageLimit: 1, retentionLimit: hours, frequencyLimit: 24, dbLimit: 1 })[1]!.value;
    expect([retentionOf(168), retentionOf(720), retentionOf(2160)]).toEqual(["7 days", "30 days", "3 months"]);
  });

  test("the panel lists Storage, Retention, Frequency ('every ...') and DB Limit", () => {
    const limits = describePlanLimits({ storageLimit: 1024 ** 3, retentionLimit: 168, frequencyLimit: 24, dbLimit: 1 });
    expect(limits).toEqual([
      { label: "Storage", value: "1 GB" },
      { label: "Retention", value: "7 days" },
      { label: "Frequency", value: "every 24 hours" },
      { label: "DB Limit", value: "1" },
    ]);
    expect(describePlanLimits({ storageLimit: 100 * 1024 ** 3, retentionLimit: 72, frequencyLimit: 1, dbLimit: 1000 }).map((l) => l.value)).toEqual([
      "100 GB",
      "3 days",
      "every 1 hour",
      "Unlimited",
    ]);
  });
});
