import { type FormEvent, useEffect, useState } from "react";
import type { FrequencyWord } from "@protocol/schedule";
import { Alert } from "../../../components/ui/alert";
import { Button } from "../../../components/ui/button";
import { createRetractableToast } from "../../../components/ui/toast-store";
import { readErrorMessage } from "../../../lib/api-client";
import type { RetentionChoice, UserDatabase, UserPlan, UserSettings } from "../api/settings-api";
import { useSaveSettings } from "../api/settings-mutations";
import { useTimedFlag } from "../hooks/use-timed-flag";
import { describePlanSchedule, listFrequencyOptions, toFrequencyWord } from "../utils/schedule-options";
import { DrillSettings } from "./drill-settings";
import { RetentionFields } from "./retention-fields";
import { Select } from "../../../components/ui/select";

const SAVED_INDICATOR_MS = 3_000;

type GeneralTabProps = { settings: UserSettings; plan: UserPlan; databases: UserDatabase[] };

const retentionOf = (settings: UserSettings): RetentionChoice => ({ mode: settings.retentionMode, retention: settings.retention, ...settings.gfs });

/** Backup frequency, retention (age or GFS, with a preview) and restore drills; choices beyond the plan are shown but disabled (spec 5). */
export function GeneralTab({ settings, plan, databases }: GeneralTabProps) {
  const [frequency, setFrequency] = useState<FrequencyWord>(toFrequencyWord(settings.frequency));
  const [retention, setRetention] = useState<RetentionChoice>(retentionOf(settings));
  const [drillFrequency, setDrillFrequency] = useState(settings.drillFrequency);
  const { mutate: save, isPending: busy } = useSaveSettings();
  const [failure] = useState(createRetractableToast);
  const [saved, showSaved] = useTimedFlag(SAVED_INDICATOR_MS);

  useEffect(() => {
    setFrequency(toFrequencyWord(settings.frequency));
    setRetention(retentionOf(settings));
    setDrillFrequency(settings.drillFrequency);
  }, [settings]);

  const frequencyOptions = listFrequencyOptions(plan);

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const { mode, daily, weekly, monthly } = retention;
    save(
      { frequency, retention: retention.retention, retentionMode: mode, gfs: { daily, weekly, monthly }, drillFrequency },
      {
        onSuccess: () => {
          failure.retract();
          showSaved();
        },
        onError: (error) =>
          failure.show({ title: "Failed to save settings. Please try again.", description: readErrorMessage(error) ?? undefined, variant: "destructive" }),
      },
    );
  };

  return (
    <form onSubmit={onSubmit} className="max-w-2xl space-y-6">
      <div>
        <h2 className="text-lg font-semibold text-slate-900">Backup schedule</h2>
        <p className="mt-1 text-sm text-slate-600">How often your active databases are backed up, and how long backups are kept.</p>
      </div>
      <Alert tone="info">{describePlanSchedule(plan)} Options beyond your plan are disabled; upgrade on your profile's Billing &amp; Plan tab.</Alert>
      <div>
        <label htmlFor="settings-frequency" className="block text-sm font-medium text-slate-700">
          Backup frequency
        </label>
        <Select id="settings-frequency" value={frequency} onChange={(e) => setFrequency(e.target.value as FrequencyWord)} className="mt-1">
          {frequencyOptions.map((option) => (
            <option key={option.value} value={option.value} disabled={option.disabled}>
              {option.disabled ? `${option.label} (upgrade required)` : option.label}
            </option>
          ))}
        </Select>
      </div>
      <RetentionFields choice={retention} plan={plan} onChange={setRetention} />
      <DrillSettings frequency={drillFrequency} nextDrillAt={settings.nextDrillAt} databases={databases} onFrequencyChange={setDrillFrequency} />
      <Button type="submit" variant={saved ? "success" : "default"} disabled={busy}>
        <span aria-live="polite">{saved ? "Saved!" : busy ? "Saving..." : "Save Changes"}</span>
      </Button>
    </form>
  );
}
