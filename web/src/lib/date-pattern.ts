// Dates in the fixed patterns the spec names ('MMM d, yyyy h:mm a', 'MMM d, yyyy HH:mm:ss'):
// Intl cannot produce them exactly (it puts a comma after the year), so the tokens are filled here.
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const TOKENS = /yyyy|MMM|HH|hh|mm|ss|d|h|a/g;

const pad = (value: number) => String(value).padStart(2, "0");

/**
 * Formats a date in local time with the tokens yyyy, MMM, d, HH, hh, h, mm, ss and a (AM/PM);
 * other characters are kept. Empty or unparseable input gives "".
 */
export function formatDatePattern(value: string | number | Date | null | undefined, pattern: string): string {
  if (value === null || value === undefined || value === "") return "";
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return "";
  const hours = date.getHours();
  const hours12 = hours % 12 === 0 ? 12 : hours % 12;
  return pattern.replace(TOKENS, (token) => {
    switch (token) {
      case "yyyy":
        return String(date.getFullYear());
      case "MMM":
        return MONTHS[date.getMonth()]!;
      case "d":
        return String(date.getDate());
      case "HH":
        return pad(hours);
      case "hh":
        return pad(hours12);
      case "h":
        return String(hours12);
      case "mm":
        return pad(date.getMinutes());
      case "ss":
        return pad(date.getSeconds());
      default:
        return hours < 12 ? "AM" : "PM";
    }
  });
}
