import type { ComponentProps } from "react";
import { Alert } from "../../../components/ui/alert";
import { Button } from "../../../components/ui/button";
import { Badge } from "../../../components/ui/card";
import { DataTable, type DataTableColumn } from "../../../components/ui/data-table";
import { Tooltip } from "../../../components/ui/tooltip";
import { Icon } from "../../../components/ui/icons";
import { Spinner } from "../../../components/ui/spinner";
import { formatDatePattern } from "../../../lib/date-pattern";
import { formatDateTimeToSecond } from "../../../lib/format-date";
import type { RestoreRecord } from "../api/dashboard-api";
import { describeRestoreDetails, isRunning } from "../utils/operation-status";
import { describeDrillResult } from "../utils/trust-format";
import { RestoreProgress } from "./restore-progress";
import { StatusBadge } from "./status-badge";

export const HISTORY_DATE_PATTERN = "MMM d, yyyy h:mm a";

/** A finished restore's Details: the error or status in words; a drill's findings in full (its error on hover). */
function RestoreDetails({ restore }: { restore: RestoreRecord }) {
  const short = describeRestoreDetails(restore);
  const drill = describeDrillResult(restore);
  if (!drill) return <>{short}</>;
  if (restore.status === "failed") {
    return (
      <Tooltip content={drill}>
        <span data-testid="drill-result">{short}</span>
      </Tooltip>
    );
  }
  return <span data-testid="drill-result">{drill}</span>;
}

/** Where the restore went: the database itself, a copy, a drill's scratch database; and which collections. */
function RestoreTarget({ restore }: { restore: RestoreRecord }) {
  return (
    <>
      <span className="font-medium text-slate-900">{restore.databaseName}</span>
      {restore.kind === "drill" ? (
        <Badge className="ml-2 bg-indigo-100 text-indigo-800" data-testid="drill-badge">
          Drill
        </Badge>
      ) : null}
      {restore.kind === "drill" ? (
        <span className="block text-xs font-normal text-slate-500">test restore into {restore.targetDatabase}, dropped afterwards</span>
      ) : restore.targetDatabase !== restore.databaseName ? (
        <span className="block text-xs font-normal text-slate-500">as a copy in {restore.targetDatabase}</span>
      ) : null}
      {restore.collections ? <span className="block text-xs font-normal text-slate-500">only {restore.collections.join(", ")}</span> : null}
      {restore.pointInTime ? (
        <span className="block text-xs font-normal text-slate-500" data-testid="restore-moment" title={`oplog position ${restore.pointInTime.ts}`}>
          to {formatDateTimeToSecond(restore.pointInTime.at)}
        </span>
      ) : null}
    </>
  );
}

const COLUMNS: DataTableColumn<RestoreRecord>[] = [
  { id: "database", header: "Database", cell: ({ row }) => <RestoreTarget restore={row.original} /> },
  { id: "status", header: "Status", cell: ({ row }) => <StatusBadge status={row.original.status} /> },
  { id: "requested", header: "Requested", cell: ({ row }) => formatDatePattern(row.original.createdAt, HISTORY_DATE_PATTERN) },
  {
    id: "completed",
    header: "Completed",
    cell: ({ row }) => (row.original.completedAt ? formatDatePattern(row.original.completedAt, HISTORY_DATE_PATTERN) : "-"),
  },
  {
    id: "details",
    header: "Details",
    cell: ({ row }) =>
      // Not sent to an agent yet: why (no restore agent that can read the backup is online).
      row.original.waitingFor ? (
        <span className="text-sm text-amber-800" data-testid="restore-waiting">
          {row.original.waitingFor}
        </span>
      ) : isRunning(row.original.status) ? (
        <RestoreProgress databaseName={row.original.databaseName} progress={row.original.progress} />
      ) : (
        <RestoreDetails restore={row.original} />
      ),
  },
];

type Props = {
  restores: RestoreRecord[] | null;
  error: string | null;
  loading: boolean;
  onRefresh: () => void;
};

/** Restore History (spec 2): columns, live progress for running restores, empty and error states. */
export function RestoreHistoryPanel({ restores, error, loading, onRefresh }: Props) {
  return (
    <section aria-labelledby="restore-history-title">
      <div className="flex flex-wrap items-start justify-between gap-3 p-5">
        <div>
          <h2 id="restore-history-title" className="text-lg font-semibold text-slate-900">
            Restore History
          </h2>
          <p className="text-sm text-slate-500">Recent database restore operations</p>
        </div>
        <Button variant="outline" size="sm" onClick={onRefresh} disabled={loading}>
          {loading ? <Spinner className="h-3.5 w-3.5" /> : <Icon name="restore" className="h-4 w-4" />} Refresh
        </Button>
      </div>
      {error ? (
        <div className="px-5 pb-5">
          <Alert>
            <p>{error}</p>
            <Button variant="outline" size="sm" className="mt-2" onClick={onRefresh}>
              Try Again
            </Button>
          </Alert>
        </div>
      ) : restores === null ? (
        <p className="px-5 pb-5 text-sm text-slate-500">Loading...</p>
      ) : restores.length === 0 ? (
        <div className="mx-5 mb-5 rounded-lg border border-dashed border-slate-300 p-10 text-center">
          <p className="font-medium text-slate-900">No restore operations found.</p>
          <p className="mt-1 text-sm text-slate-500">When you restore a database, the history will appear here.</p>
        </div>
      ) : (
        <DataTable
          columns={COLUMNS}
          data={restores}
          getRowId={(restore) => restore.id}
          rowProps={() => ({ "data-testid": "restore-row" }) as ComponentProps<"tr">}
        />
      )}
    </section>
  );
}
