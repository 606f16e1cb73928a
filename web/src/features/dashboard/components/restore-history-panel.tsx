import { Alert } from "../../../components/ui/alert";
import { Button } from "../../../components/ui/button";
import { Badge } from "../../../components/ui/card";
import { Tooltip } from "../../../components/ui/tooltip";
import { Icon } from "../../../components/ui/icons";
import { Spinner } from "../../../components/ui/spinner";
import { formatDatePattern } from "../../../lib/date-pattern";
import type { RestoreRecord } from "../api/dashboard-api";
import { describeRestoreDetails, isRunning } from "../utils/operation-status";
import { describeDrillResult } from "../utils/trust-format";
import { RestoreProgress } from "./restore-progress";
import { StatusBadge } from "./status-badge";

export const HISTORY_DATE_PATTERN = "MMM d, yyyy h:mm a";

const COLUMNS = ["Database", "Status", "Requested", "Completed", "Details"] as const;

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
        <div className="overflow-x-auto">
          <table className="phone-cards min-w-full divide-y divide-slate-200 text-sm">
            <thead className="bg-slate-50">
              <tr>
                {COLUMNS.map((column) => (
                  <th key={column} scope="col" className="px-4 py-3 text-left text-xs font-semibold uppercase tracking-wide text-slate-600">
                    {column}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {restores.map((restore) => {
                const { status, progress } = restore;
                return (
                  <tr key={restore.id} data-testid="restore-row">
                    <td className="px-4 py-3 font-medium text-slate-900" data-label={COLUMNS[0]}>
                      {restore.databaseName}
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
                    </td>
                    <td className="px-4 py-3" data-label={COLUMNS[1]}>
                      <StatusBadge status={status} />
                    </td>
                    <td className="px-4 py-3 text-slate-700" data-label={COLUMNS[2]}>
                      {formatDatePattern(restore.createdAt, HISTORY_DATE_PATTERN)}
                    </td>
                    <td className="px-4 py-3 text-slate-700" data-label={COLUMNS[3]}>
                      {restore.completedAt ? formatDatePattern(restore.completedAt, HISTORY_DATE_PATTERN) : "-"}
                    </td>
                    <td className="px-4 py-3 text-slate-700" data-label={COLUMNS[4]}>
                      {isRunning(status) ? <RestoreProgress databaseName={restore.databaseName} progress={progress} /> : <RestoreDetails restore={restore} />}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
