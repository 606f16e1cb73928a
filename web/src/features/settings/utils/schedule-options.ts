// The General tab's choices (spec 2 and 9) and the plan rule of spec 5: choices beyond the plan
// are offered but disabled. The rule itself comes from protocol/schedule, which the server also
// enforces, so the page never offers what the server would refuse.
import {
  FREQUENCY_HOURS,
  type FrequencyWord,
  FREQUENCY_WORDS,
  frequencyWordOf,
  isFrequencyAllowed,
  isRetentionAllowed,
  type PlanLimits,
  RETENTION_OPTIONS_HOURS,
} from "@protocol/schedule";

export type ScheduleOption<T> = { value: T; label: string; disabled: boolean };

const FREQUENCY_LABELS: Record<FrequencyWord, string> = { hourly: "Hourly", daily: "Daily", weekly: "Weekly", monthly: "Monthly" };

/** 'Hourly', 'Daily', 'Weekly' or 'Monthly' for a frequency word. */
export function labelFrequency(word: FrequencyWord): string {
  return FREQUENCY_LABELS[word];
}

/** A retention in hours as whole days: 72 is '3 days', 24 is '1 day'. */
export function labelRetention(hours: number): string {
  const days = Math.round((hours / 24) * 10) / 10;
  return `${days} ${days === 1 ? "day" : "days"}`;
}

/** The four frequencies; those more frequent than the plan's frequencyLimit are disabled. */
export function listFrequencyOptions(plan: Pick<PlanLimits, "frequencyLimit"> | null): ScheduleOption<FrequencyWord>[] {
  return FREQUENCY_WORDS.map((word) => ({
    value: word,
    label: labelFrequency(word),
    disabled: plan ? !isFrequencyAllowed(FREQUENCY_HOURS[word], plan) : false,
  }));
}

/** The six retention choices; those longer than the plan's retentionLimit are disabled. */
export function listRetentionOptions(plan: Pick<PlanLimits, "retentionLimit"> | null): ScheduleOption<number>[] {
  return RETENTION_OPTIONS_HOURS.map((hours) => ({
    value: hours,
    label: labelRetention(hours),
    disabled: plan ? !isRetentionAllowed(hours, plan) : false,
  }));
}

/** The select value for the server's frequency in hours (unknown values read as daily). */
export function toFrequencyWord(hours: number): FrequencyWord {
  return frequencyWordOf(hours);
}

/** One line saying what the plan allows, shown above the choices. */
export function describePlanSchedule(plan: Pick<PlanLimits, "frequencyLimit" | "retentionLimit"> & { name: string }): string {
  const fastest = listFrequencyOptions(plan).find((option) => !option.disabled);
  const often = fastest ? fastest.label.toLowerCase() : "monthly";
  return `Your ${plan.name} plan allows backups as often as ${often} and keeps them for up to ${labelRetention(plan.retentionLimit)}.`;
}
