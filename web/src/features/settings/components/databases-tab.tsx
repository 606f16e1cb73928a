import { useState } from "react";
import { Alert } from "../../../components/ui/alert";
import { Badge } from "../../../components/ui/card";
import { Switch } from "../../../components/ui/switch";
import { toast } from "../../../components/ui/toast-store";
import { readErrorMessage } from "../../../lib/api-client";
import { chooseDatabaseAgentRequest, setDatabaseActiveRequest, setPointInTimeRecoveryRequest, type UserDatabase, type UserPlan } from "../api/settings-api";
import { describeDatabaseAgents } from "../utils/database-agents";
import { canToggleDatabase, describeDatabaseAllowance } from "../utils/database-limits";
import { Select } from "../../../components/ui/select";
import { formatPitrWindow } from "../../../lib/plan-format";

type DatabasesTabProps = { databases: UserDatabase[]; plan: UserPlan; onChanged: (databases: UserDatabase[]) => void };

/** The user's databases with an Enable/Disable switch; only the plan's dbLimit may be active. */
export function DatabasesTab({ databases, plan, onChanged }: DatabasesTabProps) {
  const [busyId, setBusyId] = useState<string | null>(null);
  const activeCount = databases.filter((db) => db.isActive).length;

  /** One change to a database; the server answers the whole list, shown as it stands. */
  const change = async (database: UserDatabase, request: () => Promise<{ data: UserDatabase[] | null; error: unknown }>, failure: string) => {
    setBusyId(database.id);
    try {
      const { data, error } = await request();
      if (error || !data) throw error ?? new Error("update failed");
      onChanged(data);
    } catch (error) {
      toast({ title: failure, description: readErrorMessage(error) ?? undefined, variant: "destructive" });
    } finally {
      setBusyId(null);
    }
  };
  const toggle = (database: UserDatabase, isActive: boolean) =>
    change(database, () => setDatabaseActiveRequest(database.id, isActive), "Failed to update database. Please try again.");
  const switchPitr = (database: UserDatabase, enabled: boolean) =>
    change(database, () => setPointInTimeRecoveryRequest(database.id, enabled), "Failed to switch point-in-time recovery. Please try again.");
  const pitrOffered = plan.pitrWindowHours > 0;
  const chooseAgent = (database: UserDatabase, agentId: string) =>
    change(database, () => chooseDatabaseAgentRequest(database.id, agentId), "Failed to change the agent. Please try again.");

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
        <div className="overflow-x-auto rounded-xl border border-slate-200">
          <table className="min-w-full divide-y divide-slate-200 text-sm">
            <thead className="bg-slate-50 text-left text-xs font-semibold uppercase tracking-wide text-slate-600">
              <tr>
                <th scope="col" className="px-4 py-3">
                  Name
                </th>
                <th scope="col" className="px-4 py-3">
                  Status
                </th>
                <th scope="col" className="px-4 py-3">
                  Enable/Disable
                </th>
                <th scope="col" className="px-4 py-3">
                  Point-in-time recovery
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100 bg-white">
              {databases.map((database) => {
                const allowed = canToggleDatabase(database, activeCount, plan.dbLimit);
                return (
                  <tr key={database.id}>
                    <td className="px-4 py-3">
                      <span className="font-medium text-slate-900">{database.name}</span>
                      <DatabaseAgents database={database} disabled={busyId !== null} onChoose={(agentId) => chooseAgent(database, agentId)} />
                    </td>
                    <td className="px-4 py-3">
                      <Badge className={database.isActive ? "bg-emerald-100 text-emerald-800" : "bg-slate-100 text-slate-700"}>
                        {database.isActive ? "Active" : "Disabled"}
                      </Badge>
                    </td>
                    <td className="px-4 py-3">
                      <div className="flex items-center gap-3">
                        <Switch
                          checked={database.isActive}
                          label={`${database.name} enabled`}
                          disabled={busyId !== null || !allowed}
                          onCheckedChange={(checked) => toggle(database, checked)}
                        />
                        {!allowed ? <span className="text-xs text-slate-500">Plan limit reached: disable another database first</span> : null}
                      </div>
                    </td>
                    <td className="px-4 py-3">
                      <div className="flex items-center gap-3">
                        <Switch
                          checked={database.pitrEnabled}
                          label={`${database.name} point-in-time recovery`}
                          disabled={busyId !== null || (!pitrOffered && !database.pitrEnabled)}
                          onCheckedChange={(checked) => switchPitr(database, checked)}
                        />
                        {pitrOffered ? (
                          <span className="text-xs text-slate-500">
                            Restore to any second, {formatPitrWindow(plan.pitrWindowHours)} back (replica sets only)
                          </span>
                        ) : (
                          <span className="text-xs text-slate-500">Not in your plan: upgrade to restore to any second</span>
                        )}
                      </div>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
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
