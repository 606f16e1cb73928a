import { useState } from "react";
import { Badge } from "../../../components/ui/card";
import { DataTable, type DataTableColumn } from "../../../components/ui/data-table";
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

/** The details in words: cut at 50 characters, the whole of them once the row is expanded (touch screens have no hover). */
function AuditDetails({ details }: { details: { text: string; full: string } }) {
  const [expanded, setExpanded] = useState(false);
  if (details.full === details.text) return <>{details.text}</>;
  return (
    <>
      <span className={expanded ? "whitespace-pre-wrap break-words" : undefined} data-testid="audit-details">
        {expanded ? details.full : details.text}
      </span>{" "}
      <button
        type="button"
        aria-expanded={expanded}
        onClick={() => setExpanded((open) => !open)}
        className="keyboard-focus-ring rounded font-sans font-medium text-indigo-600 hover:underline"
      >
        {expanded ? "Show less" : "Show all"}
      </button>
    </>
  );
}

const columnsFor = (team: boolean): DataTableColumn<AuditLogEntry>[] => [
  {
    id: "timestamp",
    header: "Timestamp",
    cell: ({ row }) => <span className="whitespace-nowrap tabular-nums">{formatAuditTimestamp(row.original.timestamp)}</span>,
  },
  { id: "action", header: "Action", cell: ({ row }) => <Badge className={BADGE_CLASSES[auditBadgeTone(row.original.action)]}>{row.original.action}</Badge> },
  {
    id: "entity",
    header: "Entity",
    cell: ({ row }) => (
      <span className="whitespace-nowrap">{describeAuditEntity(row.original.action, row.original.details, team ? row.original.actor : null)}</span>
    ),
  },
  {
    id: "details",
    header: "Details",
    cell: ({ row }) => (
      <span className="text-xs text-slate-600">
        <AuditDetails details={formatAuditDetails(row.original.details)} />
      </span>
    ),
  },
];

const PERSONAL_COLUMNS = columnsFor(false);
const TEAM_COLUMNS = columnsFor(true);

/** Timestamp, Action (coloured badge), Entity (in a team: the member and their role), Details (in words, cut at 50 characters until expanded). */
export function AuditLogTable({ logs, team }: { logs: AuditLogEntry[]; team: boolean }) {
  return (
    <DataTable
      columns={team ? TEAM_COLUMNS : PERSONAL_COLUMNS}
      data={logs}
      getRowId={(log) => log.id}
      className="rounded-xl border border-slate-200 bg-white"
    />
  );
}
