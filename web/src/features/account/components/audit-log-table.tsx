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

/** Timestamp, Action (coloured badge), Entity, Details (raw JSON, cut at 50 characters). */
export function AuditLogTable({ logs }: { logs: AuditLogEntry[] }) {
  return (
    <div className="overflow-x-auto rounded-xl border border-slate-200">
      <table className="min-w-full divide-y divide-slate-200 text-sm">
        <thead className="bg-slate-50 text-left text-xs font-semibold uppercase tracking-wide text-slate-600">
          <tr>
            <th scope="col" className="px-4 py-3">Timestamp</th>
            <th scope="col" className="px-4 py-3">Action</th>
            <th scope="col" className="px-4 py-3">Entity</th>
            <th scope="col" className="px-4 py-3">Details</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100 bg-white">
          {logs.map((log) => {
            const details = formatAuditDetails(log.details);
            return (
              <tr key={log.id}>
                <td className="whitespace-nowrap px-4 py-3 tabular-nums text-slate-700">{formatAuditTimestamp(log.timestamp)}</td>
                <td className="px-4 py-3">
                  <Badge className={BADGE_CLASSES[auditBadgeTone(log.action)]}>{log.action}</Badge>
                </td>
                <td className="whitespace-nowrap px-4 py-3 text-slate-700">{describeAuditEntity(log.action, log.details)}</td>
                <td className="px-4 py-3 font-mono text-xs text-slate-600" title={details.full !== details.text ? details.full : undefined}>
                  {details.text}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
