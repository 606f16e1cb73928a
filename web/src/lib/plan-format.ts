// How a plan's price and limits read (spec 2 and 9): the landing pricing cards and the profile's
// Billing & Plan cards use the same rules.
import { formatBytes } from "@protocol/format";

const HOURS_PER_DAY = 24;
const DAYS_PER_MONTH = 30.42;
const UNLIMITED_DATABASES_ABOVE = 500;

const plural = (count: number, unit: string) => `${count} ${unit}${count === 1 ? "" : "s"}`;
const tidy = (value: number) => Number.parseFloat(value.toFixed(1));

/** 'Free' for price 0, otherwise dollars per month. */
export function formatPlanPrice(price: number): string {
  if (price === 0) return "Free";
  return `$${Number.isInteger(price) ? price : price.toFixed(2)}/month`;
}

/** 'Unlimited' above 500 databases, otherwise the count. */
export function formatDatabaseLimit(dbLimit: number): string {
  if (dbLimit > UNLIMITED_DATABASES_ABOVE) return "Unlimited";
  return plural(dbLimit, "database");
}

/** Above 720 hours in months (hours/24/30.42), otherwise in days (hours/24). */
export function formatRetention(hours: number): string {
  // Whole months read better on a price card (4320 h is 5.92 months: "6 months").
  if (hours > 720) return plural(Math.round(hours / HOURS_PER_DAY / DAYS_PER_MONTH), "month");
  return plural(tidy(hours / HOURS_PER_DAY), "day");
}

/** 1 'Hourly', 24 'Daily', anything else 'Weekly'. */
export function formatFrequency(hours: number): string {
  if (hours === 1) return "Hourly";
  if (hours === 24) return "Daily";
  return "Weekly";
}

/** How far back point-in-time recovery reaches: 'Not included' at 0 hours, otherwise as retention reads. */
export function formatPitrWindow(hours: number): string {
  if (!(hours > 0)) return "Not included";
  return hours < HOURS_PER_DAY ? plural(hours, "hour") : formatRetention(hours);
}

/** Storage as a size in 1024 steps. */
export function formatStorage(bytes: number): string {
  return formatBytes(bytes);
}
