// Number and size formatting for terminal output.
import { formatBytes as formatProductBytes } from "../../../protocol/format";

/** 1234567 → "1,234,567"; never throws. */
export function formatCount(value: number): string {
  return Math.round(value)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/**
 * Bytes in 1024 steps with one decimal: "512 Bytes", "1.5 KB", "2 GB". The product's one unit
 * convention (protocol/format.ts), so the agent, the web app and the e-mails agree; never throws.
 */
export function formatBytes(bytes: number): string {
  return formatProductBytes(bytes, 1);
}

/** "1 document" / "3 documents"; never throws. */
export function pluralize(count: number, word: string): string {
  return `${formatCount(count)} ${word}${count === 1 ? "" : "s"}`;
}
