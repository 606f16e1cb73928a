import { describe, expect, test } from "bun:test";
import { formatDatabaseLimit, formatFrequency, formatPitrWindow, formatPlanPrice, formatRetention, formatStorage } from "./plan-format";

describe("pricing formatting", () => {
  test("price 0 is Free, anything else dollars per month", () => {
    expect(formatPlanPrice(0)).toBe("Free");
    expect(formatPlanPrice(9)).toBe("$9/month");
    expect(formatPlanPrice(9.5)).toBe("$9.50/month");
  });

  test("databases above 500 are Unlimited", () => {
    expect(formatDatabaseLimit(1)).toBe("1 database");
    expect(formatDatabaseLimit(500)).toBe("500 databases");
    expect(formatDatabaseLimit(501)).toBe("Unlimited");
  });

  test("retention above 720 hours shows months (hours/24/30.42), otherwise days", () => {
    expect(formatRetention(72)).toBe("3 days");
    expect(formatRetention(168)).toBe("7 days");
    expect(formatRetention(720)).toBe("30 days");
    expect(formatRetention(2160)).toBe("3 months");
    expect(formatRetention(4320)).toBe("6 months");
    expect(formatRetention(36)).toBe("1.5 days");
    expect(formatRetention(24)).toBe("1 day");
  });

  test("frequency 1 is Hourly, 24 Daily, anything else Weekly", () => {
    expect(formatFrequency(1)).toBe("Hourly");
    expect(formatFrequency(24)).toBe("Daily");
    expect(formatFrequency(168)).toBe("Weekly");
    expect(formatFrequency(720)).toBe("Weekly");
  });

  test("storage uses 1024 steps", () => {
    expect(formatStorage(1024 ** 3)).toBe("1 GB");
    expect(formatStorage(2048 * 1024 ** 3)).toBe("2 TB");
    expect(formatStorage(1536)).toBe("1.5 KB");
  });

  test("the point-in-time window: not included at 0, hours below a day, otherwise days or months", () => {
    expect(formatPitrWindow(0)).toBe("Not included");
    expect(formatPitrWindow(12)).toBe("12 hours");
    expect(formatPitrWindow(24)).toBe("1 day");
    expect(formatPitrWindow(168)).toBe("7 days");
    expect(formatPitrWindow(720)).toBe("30 days");
  });
});
