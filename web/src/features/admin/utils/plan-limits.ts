// How the User Details panel describes a plan's limits (spec 2 Admin Dashboard, spec 9).
import { formatBytes } from "@protocol/format";
import { formatRetention } from "../../../lib/plan-format";

const HOURS_PER_DAY = 24;
const HOURS_PER_WEEK = 168;
const HOURS_PER_YEAR = 8760;
/** Spec 9: a month is 730 hours, and durations from 105,120 hours (12 years) on read in days. */
const HOURS_PER_MONTH = 730;
const MONTHS_UP_TO_HOURS = 105_120;
const UNLIMITED_DATABASES_ABOVE = 500;

const tidy = (value: number) => Number.parseFloat(value.toFixed(1));
const quantity = (value: number, unit: string) => {
  const shown = tidy(value);
  return `${shown} ${unit}${shown === 1 ? "" : "s"}`;
};

/**
 * A number of hours as text (spec 9): under 1 hour in minutes; up to 24 hours in hours; under
 * 168 in days; under 8760 in weeks; under 105,120 in months of 730 hours; beyond that in days.
 */
export function formatDurationHours(hours: number): string {
  if (!Number.isFinite(hours) || hours < 0) return "unknown";
  if (hours < 1) return quantity(hours * 60, "minute");
  if (hours <= HOURS_PER_DAY) return quantity(hours, "hour");
  if (hours < HOURS_PER_WEEK) return quantity(hours / HOURS_PER_DAY, "day");
  if (hours < HOURS_PER_YEAR) return quantity(hours / HOURS_PER_WEEK, "week");
  if (hours < MONTHS_UP_TO_HOURS) return quantity(hours / HOURS_PER_MONTH, "month");
  return quantity(hours / HOURS_PER_DAY, "day");
}

/** A plan's database limit: 'Unlimited' above 500 (spec 9), otherwise the number. */
export function formatDatabaseLimit(dbLimit: number): string {
  return dbLimit > UNLIMITED_DATABASES_ABOVE ? "Unlimited" : String(dbLimit);
}

type LimitsOfPlan = { storageLimit: number; retentionLimit: number; frequencyLimit: number; dbLimit: number };

/** The four limits shown under the plan select: Storage, Retention, Frequency ('every ...'), DB Limit. */
export function describePlanLimits(plan: LimitsOfPlan): { label: string; value: string }[] {
  return [
    { label: "Storage", value: formatBytes(plan.storageLimit) },
    // Read as everywhere else a plan's retention shows (Billing, pricing, Settings): '7 days', '3 months'.
    { label: "Retention", value: formatRetention(plan.retentionLimit) },
    { label: "Frequency", value: `every ${formatDurationHours(plan.frequencyLimit)}` },
    { label: "DB Limit", value: formatDatabaseLimit(plan.dbLimit) },
  ];
}
