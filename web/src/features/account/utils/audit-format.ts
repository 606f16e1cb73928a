// How the audit log shows its entries (spec 2 'Audit Logs', 9): timestamp format, action badge
// colours, the Entity column and the Details text (words, not raw JSON).
import { formatDateTimeToSecond } from "../../../lib/format-date";
import { ROLE_LABELS } from "../../../lib/organization/permissions";

const DETAILS_MAX_LENGTH = 50;
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const pad = (value: number) => String(value).padStart(2, "0");

/** 'MMM d, yyyy HH:mm:ss' in local time, e.g. 'Mar 5, 2025 14:07:09'; '' for a bad date. */
export function formatAuditTimestamp(value: string | number | Date): string {
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return "";
  return `${MONTHS[date.getMonth()]} ${date.getDate()}, ${date.getFullYear()} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

export type BadgeTone = "red" | "orange" | "green" | "blue" | "amber" | "violet" | "grey";

// First matching rule wins.
const BADGE_RULES: { test: (action: string) => boolean; tone: BadgeTone }[] = [
  { test: (a) => /FAILED|EXCEEDED|DISCONNECTED|_ANOMALY$/.test(a), tone: "red" },
  { test: (a) => a.includes("DELETED"), tone: "orange" },
  { test: (a) => /COMPLETED|REGISTERED|VERIFIED|RESOLVED/.test(a), tone: "green" },
  { test: (a) => a.startsWith("BACKUP_PROTECTION"), tone: "amber" },
  { test: (a) => /CREATED|REQUESTED|INITIATED/.test(a), tone: "blue" },
  { test: (a) => /API_KEY|PASSWORD|EMAIL|TWO_FACTOR|RECOVERY_CODE|^SSO_/.test(a), tone: "amber" },
  { test: (a) => /UPDATED|CHANGED/.test(a), tone: "violet" },
];

/** The colour of an action's badge: failures red, deletions orange, successes green, starts blue,
 * account security amber, setting changes violet, anything else grey. */
export function auditBadgeTone(action: string): BadgeTone {
  return BADGE_RULES.find((rule) => rule.test(action))?.tone ?? "grey";
}

type Details = Record<string, unknown> | null | undefined;
/** Who made an entry, as the server answers it (null for the server or an agent on its own). */
export type AuditActor = { name: string | null; email: string | null; role: keyof typeof ROLE_LABELS };
const textOf = (value: unknown) => (typeof value === "string" && value.trim() ? value : null);

/**
 * The Entity column: 'Agent: {name or hostname}' for agent actions; 'System' for automatic backup
 * actions, any action containing AUTO, and storage actions; otherwise 'User'. In a team, where
 * 'User' would not say which one, a member's entry names them and their role then.
 */
export function describeAuditEntity(action: string, details: Details, teamActor: AuditActor | null = null): string {
  if (action.startsWith("AGENT_")) return `Agent: ${textOf(details?.name) ?? textOf(details?.hostname) ?? "unknown"}`;
  // A backup an agent asked for itself (dbvault-agent backup now).
  if (action.startsWith("BACKUP_") && textOf(details?.agentName)) return `Agent: ${details!.agentName}`;
  if (action.includes("AUTO") || action.startsWith("STORAGE_")) return "System";
  if (action.startsWith("BACKUP_") && details?.type === "auto") return "System";
  if (!teamActor) return "User";
  // The answer allows a null name or e-mail (nullable columns): the role alone still tells then.
  const name = teamActor.name?.trim() || null;
  const who = name && teamActor.email ? `${name} (${teamActor.email})` : (name ?? teamActor.email);
  return who ? `User: ${who}, ${ROLE_LABELS[teamActor.role]}` : `User: ${ROLE_LABELS[teamActor.role]}`;
}

/**
 * The Details column: the details as words ("From: a@x.test · To: b@x.test"), not raw JSON (issue
 * 44 §16), cut to 50 characters plus '...' if longer; `full` is the whole text.
 */
export function formatAuditDetails(details: Details): { text: string; full: string } {
  const full = details ? describeFields(details) : "";
  return { full, text: truncateText(full, DETAILS_MAX_LENGTH) };
}

// Words written in capitals inside a field's name.
const CAPITALS: Record<string, string> = { id: "ID", ids: "IDs", api: "API", ip: "IP", url: "URL", sso: "SSO", pitr: "PITR" };

/** "databaseName" as "Database name", "backupId" as "Backup ID". */
export function labelAuditField(key: string): string {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/[_-]+/g, " ")
    .trim()
    .toLowerCase()
    .split(/\s+/)
    .map((word) => CAPITALS[word] ?? word);
  const [first = "", ...rest] = words;
  return [first === first.toLowerCase() ? first.charAt(0).toUpperCase() + first.slice(1) : first, ...rest].join(" ");
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

function describeValue(value: unknown): string {
  if (typeof value === "string") return ISO_TIME.test(value) ? formatDateTimeToSecond(value) : value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (Array.isArray(value)) return value.map(describeValue).join(", ");
  if (value && typeof value === "object") return `(${describeFields(value as Record<string, unknown>)})`;
  return "";
}

function describeFields(fields: Record<string, unknown>): string {
  return Object.entries(fields)
    .filter(([, value]) => value !== null && value !== undefined && value !== "")
    .map(([key, value]) => `${labelAuditField(key)}: ${describeValue(value)}`)
    .join(" · ");
}

/** Text cut to `max` characters with '...' appended when it was longer. */
export function truncateText(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}...` : text;
}

/** 'SETTINGS_UPDATED' as 'Settings Updated', for the filter's options. */
export function labelAuditAction(action: string): string {
  return action
    .toLowerCase()
    .split("_")
    .map((word) => (word === "api" ? "API" : word.charAt(0).toUpperCase() + word.slice(1)))
    .join(" ");
}
