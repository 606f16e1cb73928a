import { describe, expect, test } from "bun:test";
import { describePlanSchedule, labelFrequency, labelRetention, listFrequencyOptions, listRetentionOptions, toFrequencyWord } from "./schedule-options";

const free = { name: "Free", frequencyLimit: 24, retentionLimit: 168 };
const pro = { name: "Pro", frequencyLimit: 1, retentionLimit: 2160 };

describe("labels", () => {
  test("frequency words read as Hourly, Daily, Weekly, Monthly", () => {
    expect(["hourly", "daily", "weekly", "monthly"].map((w) => labelFrequency(w as never))).toEqual(["Hourly", "Daily", "Weekly", "Monthly"]);
  });

  test("retention hours read in days: the six spec options", () => {
    expect(listRetentionOptions(null).map((o) => o.label)).toEqual(["3 days", "7 days", "14 days", "30 days", "90 days", "180 days"]);
    expect(labelRetention(24)).toBe("1 day");
  });

  test("the server's hours map to the select's word; unknown hours read as daily", () => {
    expect([1, 24, 168, 720, 5].map(toFrequencyWord)).toEqual(["hourly", "daily", "weekly", "monthly", "daily"]);
  });
});

describe("plan limits disable choices beyond the plan", () => {
  test("a daily plan disables only hourly", () => {
    const disabled = listFrequencyOptions(free)
      .filter((o) => o.disabled)
      .map((o) => o.value);
    expect(disabled).toEqual(["hourly"]);
  });

  test("an hourly plan disables no frequency", () => {
    expect(listFrequencyOptions(pro).some((o) => o.disabled)).toBe(false);
  });

  test("a 7-day plan disables retention beyond 7 days", () => {
    const enabled = listRetentionOptions(free)
      .filter((o) => !o.disabled)
      .map((o) => o.value);
    expect(enabled).toEqual([72, 168]);
  });

  test("a 90-day plan disables only 180 days", () => {
    expect(
      listRetentionOptions(pro)
        .filter((o) => o.disabled)
        .map((o) => o.value),
    ).toEqual([4320]);
  });

  test("with no plan known yet nothing is disabled", () => {
    expect(listFrequencyOptions(null).every((o) => !o.disabled)).toBe(true);
  });

  test("the plan summary names the fastest schedule and the longest retention", () => {
    expect(describePlanSchedule(free)).toBe("Your Free plan allows backups as often as daily and keeps them for up to 7 days.");
    expect(describePlanSchedule(pro)).toBe("Your Pro plan allows backups as often as hourly and keeps them for up to 90 days.");
  });
});
