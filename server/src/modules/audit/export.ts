// The audit log as a file (issue 44): every entry the log page shows under its filter, as CSV
// for a spreadsheet or JSON for a script. Same entries and fields as GET /api/user/audit-logs.
import { desc } from "drizzle-orm";
import { type AuditAction, auditLogs } from "@db/schema";
import type { Db } from "@db/client";
import { auditWhere, toAuditView } from "./service";

/** The most entries one export holds, newest first: years of an hourly schedule's entries fit, and the answer stays bounded. */
export const AUDIT_EXPORT_LIMIT = 50_000;

export const auditExportFormats = ["csv", "json"] as const;
export type AuditExportFormat = (typeof auditExportFormats)[number];

const CSV_COLUMNS = ["id", "timestamp", "action", "actor_name", "actor_email", "actor_role", "details"] as const;

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, quote, CR or LF, its quotes doubled.
 * Text that a spreadsheet would run as a formula (=, +, -, @, tab, CR first) gets a leading
 * apostrophe: audit details carry names members typed, and a file opened in Excel must not
 * run them.
 */
export function csvField(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** The export's file: its body, media type and name. */
export async function exportAuditLogs(db: Db, input: { organizationId: string; action: AuditAction | null; format: AuditExportFormat; now: Date }) {
  const rows = await db
    .select()
    .from(auditLogs)
    .where(auditWhere(input.organizationId, input.action))
    .orderBy(desc(auditLogs.timestamp), desc(auditLogs.id))
    .limit(AUDIT_EXPORT_LIMIT);
  const entries = rows.map(toAuditView);
  const filename = `audit-log${input.action ? `-${input.action.toLowerCase()}` : ""}-${input.now.toISOString().slice(0, 10)}.${input.format}`;
  if (input.format === "json") return { body: `${JSON.stringify(entries, null, 2)}\n`, type: "application/json; charset=utf-8", filename };
  const lines = entries.map((entry) =>
    [entry.id, entry.timestamp, entry.action, entry.actor?.name ?? "", entry.actor?.email ?? "", entry.actor?.role ?? "", JSON.stringify(entry.details)]
      .map(csvField)
      .join(","),
  );
  // CRLF line ends, as RFC 4180 and spreadsheets expect.
  return { body: `${[CSV_COLUMNS.join(","), ...lines].join("\r\n")}\r\n`, type: "text/csv; charset=utf-8", filename };
}
