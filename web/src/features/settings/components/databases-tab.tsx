import { useMemo, useState } from "react";
import { Alert } from "../../../components/ui/alert";
import { Button } from "../../../components/ui/button";
import { Badge } from "../../../components/ui/card";
import { DataTable, type DataTableColumn } from "../../../components/ui/data-table";
import { Select } from "../../../components/ui/select";
import { Switch } from "../../../components/ui/switch";
import { toast } from "../../../components/ui/toast-store";
import { readErrorMessage } from "../../../lib/api-client";
import type { UserDatabase, UserPlan } from "../api/settings-api";
import { type DatabaseChange, useChangeDatabase } from "../api/settings-mutations";
import { describeDatabaseAgents } from "../utils/database-agents";
import { canToggleDatabase, describeDatabaseAllowance } from "../utils/database-limits";
import { formatPitrWindow } from "../../../lib/plan-format";
import { DatabaseCopiesDialog } from "./database-copies-dialog";
import { DatabaseSchedule } from "./database-schedule";

type DatabasesTabProps = { databases: UserDatabase[]; plan: UserPlan };

/** The user's databases with an Enable/Disable switch; only the plan's dbLimit may be active. */
export function DatabasesTab({ databases, plan }: DatabasesTabProps) {
  const { mutate, isPending: busy } = useChangeDatabase();
  const activeCount = databases.filter((db) => db.isActive).length;
  const [copiesOf, setCopiesOf] = useState<string | null>(null);

  const pitrOffered = plan.pitrWindowHours > 0;
  const columns = useMemo((): DataTableColumn<UserDatabase>[] => {
    /** One change to a database; the server answers the whole list, shown as it stands. */
    const change = (request: DatabaseChange, failure: string) =>
      mutate(request, { onError: (error) => toast({ title: failure, description: readErrorMessage(error) ?? undefined, variant: "destructive" }) });
    return [
      {
        id: "name",
        header: "Name",
        cell: ({ row }) => (
          <>
            <span className="font-medium text-slate-900">{row.original.name}</span>
            <DatabaseAgents
              database={row.original}
              disabled={busy}
              onChoose={(agentId) => change({ id: row.original.id, agentId }, "Failed to change the agent. Please try again.")}
            />
            <Button variant="link" size="sm" className="mt-1 block text-xs" onClick={() => setCopiesOf(row.original.name)}>
              Copies in your buckets
            </Button>
          </>
        ),
      },
      {
        id: "status",
        header: "Status",
        cell: ({ row }) => (
          <Badge className={row.original.isActive ? "bg-emerald-100 text-emerald-800" : "bg-slate-100 text-slate-700"}>
            {row.original.isActive ? "Active" : "Disabled"}
          </Badge>
        ),
      },
      {
        id: "enabled",
        header: "Enable/Disable",
        cell: ({ row }) => {
          const database = row.original;
          const allowed = canToggleDatabase(database, activeCount, plan.dbLimit);
          return (
            <div className="flex items-center gap-3">
              <Switch
                checked={database.isActive}
                label={`${database.name} enabled`}
                disabled={busy || !allowed}
                onCheckedChange={(isActive) => change({ id: database.id, isActive }, "Failed to update database. Please try again.")}
              />
              {!allowed ? <span className="text-xs text-slate-500">Plan limit reached: disable another database first</span> : null}
            </div>
          );
        },
      },
      {
        id: "schedule",
        header: "Schedule",
        cell: ({ row }) => (
          <DatabaseSchedule
            database={row.original}
            plan={plan}
            disabled={busy}
            onSave={(schedule) => change({ id: row.original.id, schedule }, "Failed to save the schedule.")}
          />
        ),
      },
      {
        id: "pitr",
        header: "Point-in-time recovery",
        cell: ({ row }) => {
          const database = row.original;
          return (
            <div className="flex items-center gap-3">
              <Switch
                checked={database.pitrEnabled}
                label={`${database.name} point-in-time recovery`}
                disabled={busy || (!pitrOffered && !database.pitrEnabled)}
                onCheckedChange={(pitrEnabled) => change({ id: database.id, pitrEnabled }, "Failed to switch point-in-time recovery. Please try again.")}
              />
              {pitrOffered ? (
                <span className="text-xs text-slate-500">Restore to any second, {formatPitrWindow(plan.pitrWindowHours)} back (replica sets only)</span>
              ) : (
                <span className="text-xs text-slate-500">Not in your plan: upgrade to restore to any second</span>
              )}
            </div>
          );
        },
      },
    ];
  }, [mutate, busy, activeCount, plan]);

  return (
    <div className="space-y-4">
      <div>
        <h2 className="text-lg font-semibold text-slate-900">Databases</h2>
        <p className="mt-1 text-sm text-slate-600">
          Databases are added only through the agent's command line: <code className="font-mono">dbvault-agent setup</code>, or{" "}
          <code className="font-mono">dbvault-agent db add</code> on a machine already set up. Connection strings stay on your server and are never stored by
          DBVault.
        </p>
      </div>
      <Alert tone="info">{describeDatabaseAllowance(plan, activeCount)}</Alert>
      {databases.length === 0 ? (
        <p className="rounded-xl border border-dashed border-slate-300 p-10 text-center text-slate-600">No databases yet. Run the agent setup to add one.</p>
      ) : (
        <DataTable columns={columns} data={databases} getRowId={(database) => database.id} className="rounded-xl border border-slate-200 bg-white" />
      )}
      <DatabaseCopiesDialog databaseName={copiesOf} onClose={() => setCopiesOf(null)} />
    </div>
  );
}

/** Which agent runs the database; with several holding it, a choice among them. */
function DatabaseAgents({ database, disabled, onChoose }: { database: UserDatabase; disabled: boolean; onChoose: (agentId: string) => void }) {
  const view = describeDatabaseAgents(database);
  if (view.kind === "none") return <p className="mt-1 text-xs text-amber-700">{view.text}</p>;
  if (view.kind === "one") return <p className="mt-1 text-xs text-slate-500">{view.text}</p>;
  return (
    // biome-ignore lint/a11y/noLabelWithoutControl: the Select inside is its control (a native <select>)
    <label className="mt-1 flex flex-wrap items-center gap-2 text-xs text-slate-500">
      Runs on
      <Select
        compact
        value={view.runnerId ?? ""}
        disabled={disabled}
        onChange={(event) => onChoose(event.target.value)}
        aria-label={`Agent that backs up ${database.name}`}
      >
        {view.runnerId ? null : <option value="">choose an agent</option>}
        {view.options.map((option) => (
          <option key={option.id} value={option.id}>
            {option.label}
          </option>
        ))}
      </Select>
    </label>
  );
}
