import { useState } from "react";
import { Link } from "wouter";
import { Button } from "../../../components/ui/button";
import { toast } from "../../../components/ui/toast-store";
import { readErrorMessage } from "../../../lib/api-client";
import { formatDateTime } from "../../../lib/format-date";
import { startDrillRequest, type UserDatabase, type UserSettings } from "../api/settings-api";
import { DRILL_FREQUENCY_OPTIONS } from "../utils/retention-display";
import { Select } from "../../../components/ui/select";

type Frequency = UserSettings["drillFrequency"];
type Props = { frequency: Frequency; nextDrillAt: string | null; databases: UserDatabase[]; onFrequencyChange: (frequency: Frequency) => void };

/** Restore drills: the schedule (saved with the form) and a drill of one database now. */
export function DrillSettings({ frequency, nextDrillAt, databases, onFrequencyChange }: Props) {
  const active = databases.filter((database) => database.isActive);
  const [database, setDatabase] = useState(active[0]?.name ?? "");
  const [starting, setStarting] = useState(false);

  const runNow = async () => {
    setStarting(true);
    try {
      const { data, error } = await startDrillRequest(database);
      if (error || !data) throw error ?? new Error("drill failed to start");
      toast({ title: data.message, variant: "success" });
    } catch (error) {
      toast({ title: "Could not start the drill", description: readErrorMessage(error) ?? undefined, variant: "destructive" });
    } finally {
      setStarting(false);
    }
  };

  return (
    <div className="space-y-3">
      <div>
        <h3 className="text-sm font-semibold text-slate-800">Restore drills</h3>
        <p className="mt-1 text-xs text-slate-500">
          A drill restores the latest backup into a scratch database (<code>&lt;name&gt;_dbvault_drill</code>) on your agent's server, checks every collection's
          documents and indexes, and drops it. Your database is not touched. Results are listed in the dashboard's{" "}
          <Link href="/dashboard" className="text-indigo-600 underline">
            Restore History
          </Link>
          , marked Drill; a failed drill is e-mailed.
        </p>
      </div>
      <div>
        <label htmlFor="settings-drills" className="block text-sm font-medium text-slate-700">
          Scheduled drills
        </label>
        <Select id="settings-drills" value={frequency} onChange={(e) => onFrequencyChange(e.target.value as Frequency)} className="mt-1">
          {DRILL_FREQUENCY_OPTIONS.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </Select>
        {nextDrillAt && frequency !== "off" ? <p className="mt-1 text-xs text-slate-500">Next drill: {formatDateTime(nextDrillAt)}</p> : null}
      </div>
      <div className="flex flex-wrap items-end gap-2">
        <div className="min-w-48 flex-1">
          <label htmlFor="drill-database" className="block text-sm font-medium text-slate-700">
            Drill a database now
          </label>
          <Select id="drill-database" value={database} onChange={(e) => setDatabase(e.target.value)} className="mt-1" disabled={active.length === 0}>
            {active.length === 0 ? <option value="">No active database</option> : null}
            {active.map((entry) => (
              <option key={entry.id} value={entry.name}>
                {entry.name}
              </option>
            ))}
          </Select>
        </div>
        <Button type="button" variant="outline" onClick={() => void runNow()} disabled={starting || !database}>
          {starting ? "Starting..." : "Run drill now"}
        </Button>
      </div>
    </div>
  );
}
