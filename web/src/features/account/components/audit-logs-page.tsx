import { useState } from "react";
import { Alert } from "../../../components/ui/alert";
import { Button } from "../../../components/ui/button";
import { LoadingScreen } from "../../../components/ui/spinner";
import { useAuditActions, useAuditLogs } from "../hooks/use-audit-logs";
import { labelAuditAction } from "../utils/audit-format";
import { AuditLogTable } from "./audit-log-table";
import { Select } from "../../../components/ui/select";
import { useCurrentOrganization } from "../../../lib/api/get-organizations";
import { useAuditExport } from "../hooks/use-audit-export";

/** The user's own audit log (spec 2, /audit-logs): action filter, table, paging. */
export function AuditLogsPage() {
  const [page, setPage] = useState(1);
  const [action, setAction] = useState("all");
  const actions = useAuditActions();
  const logs = useAuditLogs(page, action);
  const { organization } = useCurrentOrganization();
  const { exportLog, exporting } = useAuditExport();
  const pages = logs.status === "ready" ? Math.max(1, logs.answer.pagination.pages) : 1;

  return (
    <div className="mx-auto max-w-7xl px-4 py-10 sm:px-6 lg:px-8">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-3xl font-bold tracking-tight text-slate-900">Audit Logs</h1>
          <p className="mt-1 text-slate-600">Everything that happened on your account, newest first.</p>
        </div>
        <div className="flex flex-wrap items-end gap-2">
          <div className="w-64">
            <label htmlFor="audit-action-filter" className="block text-sm font-medium text-slate-700">
              Filter by action
            </label>
            <Select
              id="audit-action-filter"
              value={action}
              onChange={(e) => {
                setAction(e.target.value);
                setPage(1);
              }}
              className="mt-1"
            >
              <option value="all">All Actions</option>
              {actions.map((name) => (
                <option key={name} value={name}>
                  {labelAuditAction(name)}
                </option>
              ))}
            </Select>
          </div>
          {/* The filter as shown: the file holds every entry of the chosen action, not only this page. */}
          <Button variant="outline" disabled={exporting !== null} onClick={() => void exportLog("csv", action)}>
            {exporting === "csv" ? "Exporting..." : "Export CSV"}
          </Button>
          <Button variant="outline" disabled={exporting !== null} onClick={() => void exportLog("json", action)}>
            {exporting === "json" ? "Exporting..." : "Export JSON"}
          </Button>
        </div>
      </div>

      <div className="mt-8">
        {logs.status === "loading" ? (
          <LoadingScreen label="Loading audit logs..." />
        ) : logs.status === "error" ? (
          <Alert title="Failed to fetch audit logs">{logs.message}</Alert>
        ) : logs.answer.logs.length === 0 ? (
          <p className="rounded-xl border border-dashed border-slate-300 p-12 text-center text-slate-600">No logs found</p>
        ) : (
          <AuditLogTable logs={logs.answer.logs} team={organization ? !organization.personal : false} />
        )}
      </div>

      <nav aria-label="Audit log pages" className="mt-6 flex items-center justify-between gap-4">
        <Button variant="outline" disabled={page <= 1 || logs.status !== "ready"} onClick={() => setPage((p) => Math.max(1, p - 1))}>
          Previous
        </Button>
        <p className="text-sm text-slate-600" aria-live="polite">
          Page {page} of {pages}
        </p>
        <Button variant="outline" disabled={page >= pages || logs.status !== "ready"} onClick={() => setPage((p) => p + 1)}>
          Next
        </Button>
      </nav>
    </div>
  );
}
