// The filters of the backup list ("find backups"): a database, a status, a date range, verified
// or not, point-in-time base or not. Each narrows the organization's own rows; the organization
// is always the first condition, so no filter can reach another organization's backups.
import { type SQL, and, eq, gte, ilike, isNotNull, lte, or, sql } from "drizzle-orm";
import { backups, type OperationStatus } from "@db/schema";
import { badRequest } from "../../lib/errors";

export type BackupListFilters = {
  databaseName?: string;
  search?: string;
  status?: OperationStatus;
  from?: string;
  to?: string;
  verified?: "true" | "false";
  pitrBase?: "true" | "false";
};

/** An ISO 8601 date or date-time as a Date; a 400 naming the parameter for anything else. */
function parseDate(value: string, name: string): Date {
  // Date.parse takes "2026", "Dec 7" and more: only ISO 8601 (a date, or a date and time) is a contract.
  const iso = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?)?$/;
  const [year, month, day] = value.slice(0, 10).split("-").map(Number) as [number, number, number];
  // Engines roll "2026-02-30" over to March 2: a day its month does not have is refused instead.
  const realDay = new Date(Date.UTC(year, month - 1, day)).getUTCDate() === day && month >= 1 && month <= 12;
  // A time without a zone is UTC, as a bare date is, not the server's local time.
  const zoned = value.includes("T") && !/(Z|[+-]\d{2}:\d{2})$/.test(value) ? `${value}Z` : value;
  const parsed = iso.test(value) && realDay ? new Date(zoned) : null;
  if (!parsed || Number.isNaN(parsed.getTime())) throw badRequest(`${name} must be an ISO 8601 date or date-time, such as 2026-12-07 or 2026-12-07T16:10:00Z`);
  return parsed;
}

/** A LIKE pattern matching `text` anywhere, its own % and _ taken literally. */
const containing = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * "Verified": read back by an agent and found whole. A point-in-time base: a completed backup
 * consistent at one oplog position whose verification did not fail (pitr/bases.ts uses the same
 * rule to choose where a restore to a moment starts).
 */
const verifiedOk = and(isNotNull(backups.verifiedAt), sql`${backups.verification}->>'status' = 'ok'`)!;
const pitrBase = and(
  eq(backups.status, "completed"),
  eq(backups.consistency, "point-in-time"),
  isNotNull(backups.consistentAtT),
  isNotNull(backups.consistentAtI),
  or(sql`${backups.verification} is null`, sql`${backups.verification}->>'status' <> 'failed'`),
)!;

/** The WHERE of an organization's backup list under `filters`; 400 for a range that ends before it starts. */
export function backupListWhere(organizationId: string, filters: BackupListFilters): SQL {
  const conditions: SQL[] = [eq(backups.organizationId, organizationId)];
  if (filters.databaseName) conditions.push(eq(backups.databaseName, filters.databaseName));
  if (filters.search) conditions.push(ilike(backups.databaseName, containing(filters.search)));
  if (filters.status) conditions.push(eq(backups.status, filters.status));
  const from = filters.from ? parseDate(filters.from, "from") : null;
  // A bare date as `to` means through that day, not up to its first instant.
  const wholeDay = filters.to !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(filters.to);
  const to = filters.to ? new Date(parseDate(filters.to, "to").getTime() + (wholeDay ? 24 * 3600_000 - 1 : 0)) : null;
  if (from && to && from > to) throw badRequest("from must not be after to");
  if (from) conditions.push(gte(backups.createdAt, from));
  if (to) conditions.push(lte(backups.createdAt, to));
  if (filters.verified === "true") conditions.push(verifiedOk);
  if (filters.verified === "false") conditions.push(sql`not coalesce(${verifiedOk}, false)`);
  if (filters.pitrBase === "true") conditions.push(pitrBase);
  if (filters.pitrBase === "false") conditions.push(sql`not coalesce(${pitrBase}, false)`);
  return and(...conditions)!;
}
