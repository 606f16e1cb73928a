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

/**
 * The time zone times are typed and shown in (the browser's), for wherever a time is typed or
 * chosen: "UTC+01:00, Europe/Berlin", "UTC−05:00, America/New_York", "UTC".
 */
export function describeTimeZone(at: Date = new Date(), zoneName: string | undefined = Intl.DateTimeFormat().resolvedOptions().timeZone): string {
  return formatTimeZone(-at.getTimezoneOffset(), zoneName);
}

/** An offset east of UTC in minutes and an IANA zone name as describeTimeZone writes them. */
export function formatTimeZone(offsetMinutes: number, zoneName: string | undefined): string {
  const sign = offsetMinutes < 0 ? "−" : "+";
  const minutes = Math.abs(offsetMinutes);
  const offset = `UTC${sign}${String(Math.floor(minutes / 60)).padStart(2, "0")}:${String(minutes % 60).padStart(2, "0")}`;
  if (!zoneName || zoneName === "UTC" || zoneName === "Etc/UTC") return offsetMinutes === 0 ? "UTC" : offset;
  return `${offset}, ${zoneName}`;
}
