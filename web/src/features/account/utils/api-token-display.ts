import { formatDateTime } from "../../../lib/format-date";

/** Expiry choices of the create form, in days; the server accepts 1 to 365. */
export const TOKEN_EXPIRY_DAYS = [7, 30, 90, 365] as const;

/** What each scope lets a token do, as the create form explains it. */
export const SCOPE_DESCRIPTIONS = {
  read: "List backups, restores, databases, settings and the audit log",
  backup: "Trigger, verify and download backups",
  restore: "Start restores and restore drills",
  admin: "Change settings, agents, webhooks; delete backups",
} as const;

/** "Never" or when a token was last used. */
export const describeLastUsed = (lastUsedAt: string | null) => (lastUsedAt ? formatDateTime(lastUsedAt) : "Never");

/** When a token expires, or that it has (it is refused from then on, but listed until revoked). */
export function describeExpiry(expiresAt: string, now: Date = new Date()): { text: string; expired: boolean } {
  const expired = Date.parse(expiresAt) <= now.getTime();
  return { text: expired ? `Expired ${formatDateTime(expiresAt)}` : `Expires ${formatDateTime(expiresAt)}`, expired };
}
