const DATE_TIME = { month: "short", day: "numeric", year: "numeric", hour: "numeric", minute: "2-digit" } as const;

/** A date in the long US English form of spec 9: short month, day, year, hour, minute. */
export function formatDateTime(value: string | number | Date | null | undefined): string {
  return formatValid(value, (date) => date.toLocaleString("en-US", DATE_TIME));
}

/** A date as formatDateTime writes it, with the seconds: "Sep 21, 2026, 2:13:20 PM". */
export function formatDateTimeToSecond(value: string | number | Date | null | undefined): string {
  return formatValid(value, (date) => date.toLocaleString("en-US", { ...DATE_TIME, second: "2-digit" }));
}

/** A calendar date such as "Apr 30, 2025". */
export function formatDate(value: string | number | Date | null | undefined): string {
  return formatValid(value, (date) => date.toLocaleDateString("en-US", { month: "short", day: "numeric", year: "numeric" }));
}

// "" for a missing or unreadable date.
function formatValid(value: string | number | Date | null | undefined, format: (date: Date) => string): string {
  if (value === null || value === undefined || value === "") return "";
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return "";
  return format(date);
}
