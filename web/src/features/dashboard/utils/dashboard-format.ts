// Formatting rules of the dashboard (spec 2, 8 and 9).
import { formatBytes } from "@protocol/format";

export { formatBytes };

export const STORAGE_WARNING_PERCENT = 70;
export const STORAGE_DANGER_PERCENT = 90;

/** Percent of the plan's storage in use, 0–100 (0 when the limit is unknown). */
export function storagePercent(used: number, limit: number): number {
  if (!(limit > 0)) return 0;
  return Math.min(100, Math.max(0, (used / limit) * 100));
}

/** The storage bar colour: red above 90 %, amber above 70 %, otherwise green. */
export function storageBarTone(percent: number): "red" | "amber" | "green" {
  if (percent > STORAGE_DANGER_PERCENT) return "red";
  if (percent > STORAGE_WARNING_PERCENT) return "amber";
  return "green";
}

const trimmed = (value: number) => Number.parseFloat(value.toFixed(1)).toString();

/** Document counts: K for thousands, M for millions (1.2K, 3.4M), plain below 1000. */
export function formatDocumentCount(count: number): string {
  if (count >= 1_000_000) return `${trimmed(count / 1_000_000)}M`;
  if (count >= 1_000) return `${trimmed(count / 1_000)}K`;
  return String(Math.max(0, Math.round(count)));
}

/** The download's file name: backup-{databaseName}-{ISO createdAt}.enc.dbvault */
export function backupDownloadName(backup: { databaseName: string; createdAt: string }): string {
  return `backup-${backup.databaseName}-${new Date(backup.createdAt).toISOString()}.enc.dbvault`;
}

/** 'Download complete (x MB)': megabytes in 1024 steps, two decimals. */
export function formatMegabytes(bytes: number): string {
  return (bytes / (1024 * 1024)).toFixed(2);
}

/** The 429 toast's text: the server message plus when the next backup is allowed. */
export function describeBackupLimit(message: string | null, nextBackupAvailable: string | null | undefined): string {
  const next = nextBackupAvailable ? new Date(nextBackupAvailable) : null;
  if (!next || Number.isNaN(next.getTime())) return message ?? "";
  const time = next.toLocaleTimeString("en-US", { hour: "numeric", minute: "2-digit" });
  const date = next.toLocaleDateString("en-US", { month: "short", day: "numeric", year: "numeric" });
  return `${message ? `${message} ` : ""}Next backup available at ${time} on ${date}.`;
}

// admin's users, roles and auth version travel in whole-server backups and come back with the
// rest by mongorestore's rules (or not, with --no-users-and-roles); they are not collections to
// pick one by one.
const USERS_AND_ROLES = new Set(["admin.system.users", "admin.system.roles", "admin.system.version"]);

/** The collections of a backup's inventory a restore can be limited to, by name without the database, sorted. */
export function restorableCollections(inventory: Record<string, number>): [name: string, documents: number][] {
  return Object.entries(inventory)
    .filter(([namespace]) => !USERS_AND_ROLES.has(namespace))
    .map(([namespace, count]): [string, number] => [namespace.slice(namespace.indexOf(".") + 1), count])
    .sort(([a], [b]) => a.localeCompare(b));
}
