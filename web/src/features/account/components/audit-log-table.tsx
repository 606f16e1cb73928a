import { useState } from "react";
import { Badge } from "../../../components/ui/card";
import type { AuditLogEntry } from "../api/account-api";
import { type BadgeTone, auditBadgeTone, describeAuditEntity, formatAuditDetails, formatAuditTimestamp } from "../utils/audit-format";

// Full class strings here (a .tsx file) so the UnoCSS extractor finds every one.
const BADGE_CLASSES: Record<BadgeTone, string> = {
  red: "bg-red-100 text-red-800",
  orange: "bg-orange-100 text-orange-800",
  green: "bg-emerald-100 text-emerald-800",
  blue: "bg-sky-100 text-sky-800",
  amber: "bg-amber-100 text-amber-800",
  violet: "bg-violet-100 text-violet-800",
  grey: "bg-slate-100 text-slate-800",
};

const COLUMNS = ["Timestamp", "Action", "Entity", "Details"] as const;

/** The details as JSON: cut at 50 characters, the whole of it once the row is expanded (touch screens have no hover). */
function AuditDetails({ details }: { details: { text: string; full: string } }) {
  const [expanded, setExpanded] = useState(false);
  if (details.full === details.text) return <>{details.text}</>;
  return (
    <>
      <span className={expanded ? "whitespace-pre-wrap break-all" : undefined} data-testid="audit-details">
        {expanded ? details.full : details.text}
      </span>{" "}
      <button
        type="button"
        aria-expanded={expanded}
        onClick={() => setExpanded((open) => !open)}
        className="focus-ring rounded font-sans font-medium text-indigo-600 hover:underline"
      >
        {expanded ? "Show less" : "Show all"}
      </button>
    </>
  );
}

/** Timestamp, Action (coloured badge), Entity, Details (raw JSON, cut at 50 characters until expanded). */
export function AuditLogTable({ logs }: { logs: AuditLogEntry[] }) {
  return (
    <div className="overflow-x-auto rounded-xl border border-slate-200">
      <table className="phone-cards min-w-full divide-y divide-slate-200 text-sm">
        <thead className="bg-slate-50 text-left text-xs font-semibold uppercase tracking-wide text-slate-600">
          <tr>
            {COLUMNS.map((column) => (
              <th key={column} scope="col" className="px-4 py-3">
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100 bg-white">
          {logs.map((log) => (
            <tr key={log.id} data-testid="audit-row">
              <td className="whitespace-nowrap px-4 py-3 tabular-nums text-slate-700" data-label={COLUMNS[0]}>
                {formatAuditTimestamp(log.timestamp)}
              </td>
              <td className="px-4 py-3" data-label={COLUMNS[1]}>
                <Badge className={BADGE_CLASSES[auditBadgeTone(log.action)]}>{log.action}</Badge>
              </td>
              <td className="whitespace-nowrap px-4 py-3 text-slate-700" data-label={COLUMNS[2]}>
                {describeAuditEntity(log.action, log.details)}
              </td>
              <td className="px-4 py-3 font-mono text-xs text-slate-600" data-label={COLUMNS[3]}>
                <AuditDetails details={formatAuditDetails(log.details)} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
