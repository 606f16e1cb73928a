import { GFS_LIMITS } from "@protocol/schedule";
import type { RetentionChoice, UserPlan } from "../api/settings-api";
import { labelRetention, listRetentionOptions } from "../utils/schedule-options";
import { RetentionPreview } from "./retention-preview";
import { Select } from "../../../components/ui/select";

type Props = { choice: RetentionChoice; plan: UserPlan; onChange: (choice: RetentionChoice) => void };

const RULES = [
  { key: "daily", label: "Daily", unit: "days" },
  { key: "weekly", label: "Weekly", unit: "weeks" },
  { key: "monthly", label: "Monthly", unit: "months" },
] as const;

/** Age-based retention (a period) or grandfather-father-son (N daily, weekly, monthly), with a preview of either on the existing backups. */
export function RetentionFields({ choice, plan, onChange }: Props) {
  const set = (changes: Partial<RetentionChoice>) => onChange({ ...choice, ...changes });
  const retentionOptions = listRetentionOptions(plan);
  return (
    <fieldset className="space-y-3">
      <legend className="block text-sm font-medium text-slate-700">Retention</legend>
      <div className="flex flex-wrap gap-4 text-sm">
        <label className="flex items-center gap-2">
          <input type="radio" name="retention-mode" value="age" checked={choice.mode === "age"} onChange={() => set({ mode: "age" })} />
          Keep for a period
        </label>
        <label className="flex items-center gap-2">
          <input type="radio" name="retention-mode" value="gfs" checked={choice.mode === "gfs"} onChange={() => set({ mode: "gfs" })} />
          Grandfather-father-son (GFS)
        </label>
      </div>
      {choice.mode === "age" ? (
        <div>
          <label htmlFor="settings-retention" className="block text-sm font-medium text-slate-700">
            Retention period
          </label>
          <Select id="settings-retention" value={choice.retention} onChange={(e) => set({ retention: Number(e.target.value) })} className="mt-1">
            {retentionOptions.map((option) => (
              <option key={option.value} value={option.value} disabled={option.disabled}>
                {option.disabled ? `${option.label} (upgrade required)` : option.label}
              </option>
            ))}
          </Select>
          <p className="mt-1 text-xs text-slate-500">Older backups are deleted automatically.</p>
        </div>
      ) : (
        <div>
          <div className="grid grid-cols-3 gap-3">
            {RULES.map((rule) => (
              <div key={rule.key}>
                <label htmlFor={`gfs-${rule.key}`} className="block text-sm font-medium text-slate-700">
                  {rule.label}
                </label>
                <input
                  id={`gfs-${rule.key}`}
                  type="number"
                  min={0}
                  max={GFS_LIMITS[rule.key]}
                  step={1}
                  value={choice[rule.key]}
                  onChange={(e) => set({ [rule.key]: Math.max(0, Math.min(GFS_LIMITS[rule.key], Math.floor(Number(e.target.value) || 0))) })}
                  className="mt-1"
                />
                <p className="mt-1 text-xs text-slate-500">last {rule.unit}</p>
              </div>
            ))}
          </div>
          <p className="mt-2 text-xs text-slate-500">
            Keeps the newest backup of each of the last days, weeks and months (UTC), and every backup of the last 24 hours; nothing older than your plan's{" "}
            {labelRetention(plan.retentionLimit)}.
          </p>
        </div>
      )}
      <p className="text-xs text-slate-500">
        Whatever the policy, the newest and the last verified backup of each database are kept, and while a database has an unusual backup (an anomaly) not
        marked as expected, so is its last good backup.
      </p>
      <RetentionPreview choice={choice} />
    </fieldset>
  );
}
