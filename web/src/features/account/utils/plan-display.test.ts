import { describe, expect, test } from "bun:test";
import { canSwitchToPlan, computeStoragePercent, describePlanLimits, formatPlanPrice, storageBarTone } from "./plan-display";

const GiB = 1024 ** 3;

describe("storage bar", () => {
  test("percent of the limit, capped at 100", () => {
    expect(computeStoragePercent(512 * 1024 ** 2, GiB)).toBe(50);
    expect(computeStoragePercent(3 * GiB, GiB)).toBe(100);
    expect(computeStoragePercent(0, 0)).toBe(0);
  });

  test("green up to 70, amber above 70, red above 90", () => {
    expect(storageBarTone(70)).toBe("green");
    expect(storageBarTone(70.1)).toBe("amber");
    expect(storageBarTone(90)).toBe("amber");
    expect(storageBarTone(90.1)).toBe("red");
  });
});

describe("plan cards", () => {
  test("price 0 is Free, else dollars per month", () => {
    expect(formatPlanPrice(0)).toBe("Free");
    expect(formatPlanPrice(29)).toBe("$29/month");
  });

  test("limits: databases, storage, retention in days or months, frequency", () => {
    expect(describePlanLimits({ dbLimit: 1, storageLimit: GiB, retentionLimit: 168, frequencyLimit: 24 })).toEqual([
      "1 database",
      "1 GB storage",
      "7 days retention",
      "Daily backups",
    ]);
    expect(describePlanLimits({ dbLimit: 1000, storageLimit: 2048 * GiB, retentionLimit: 4320, frequencyLimit: 1 })).toEqual([
      "Unlimited databases",
      "2 TB storage",
      "6 months retention",
      "Hourly backups",
    ]);
  });

  test("only free plans can be switched to", () => {
    expect(canSwitchToPlan({ price: 0 })).toBe(true);
    expect(canSwitchToPlan({ price: 9 })).toBe(false);
  });
});
