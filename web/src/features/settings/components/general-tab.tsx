import { type FormEvent, useEffect, useState } from "react";
import type { FrequencyWord } from "@protocol/schedule";
import { Alert } from "../../../components/ui/alert";
import { Button } from "../../../components/ui/button";
import { inputClasses } from "../../../components/ui/field";
import { toast } from "../../../components/ui/toast-store";
import { readErrorMessage } from "../../../lib/api-client";
import { saveSettingsRequest, type UserPlan, type UserSettings } from "../api/settings-api";
import { useTimedFlag } from "../hooks/use-timed-flag";
import { describePlanSchedule, listFrequencyOptions, listRetentionOptions, toFrequencyWord } from "../utils/schedule-options";

const SAVED_INDICATOR_MS = 3_000;

type GeneralTabProps = { settings: UserSettings; plan: UserPlan; onSaved: (settings: UserSettings) => void };

/** Backup frequency and retention; choices beyond the plan are shown but disabled (spec 5). */
export function GeneralTab({ settings, plan, onSaved }: GeneralTabProps) {
  const [frequency, setFrequency] = useState<FrequencyWord>(toFrequencyWord(settings.frequency));
  const [retention, setRetention] = useState(settings.retention);
  const [busy, setBusy] = useState(false);
  const [saved, showSaved] = useTimedFlag(SAVED_INDICATOR_MS);

  useEffect(() => {
    setFrequency(toFrequencyWord(settings.frequency));
    setRetention(settings.retention);
  }, [settings.frequency, settings.retention]);

  const frequencyOptions = listFrequencyOptions(plan);
  const retentionOptions = listRetentionOptions(plan);

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    try {
      const { data, error } = await saveSettingsRequest({ frequency, retention });
      if (error || !data) throw error ?? new Error("save failed");
      onSaved(data);
      showSaved();
    } catch (error) {
      toast({ title: "Failed to save settings. Please try again.", description: readErrorMessage(error) ?? undefined, variant: "destructive" });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={onSubmit} className="max-w-xl space-y-6">
      <div>
        <h2 className="text-lg font-semibold text-slate-900">Backup schedule</h2>
        <p className="mt-1 text-sm text-slate-600">How often your active databases are backed up, and how long backups are kept.</p>
      </div>
      <Alert tone="info">{describePlanSchedule(plan)} Options beyond your plan are disabled; upgrade on your profile's Billing &amp; Plan tab.</Alert>
      <div>
        <label htmlFor="settings-frequency" className="block text-sm font-medium text-slate-700">
          Backup frequency
        </label>
        <select id="settings-frequency" value={frequency} onChange={(e) => setFrequency(e.target.value as FrequencyWord)} className={`${inputClasses} mt-1`}>
          {frequencyOptions.map((option) => (
            <option key={option.value} value={option.value} disabled={option.disabled}>
              {option.disabled ? `${option.label} (upgrade required)` : option.label}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label htmlFor="settings-retention" className="block text-sm font-medium text-slate-700">
          Retention period
        </label>
        <select id="settings-retention" value={retention} onChange={(e) => setRetention(Number(e.target.value))} className={`${inputClasses} mt-1`}>
          {retentionOptions.map((option) => (
            <option key={option.value} value={option.value} disabled={option.disabled}>
              {option.disabled ? `${option.label} (upgrade required)` : option.label}
            </option>
          ))}
        </select>
        <p className="mt-1 text-xs text-slate-500">Older backups are deleted automatically.</p>
      </div>
      <Button type="submit" variant={saved ? "success" : "default"} disabled={busy}>
        <span aria-live="polite">{saved ? "Saved!" : busy ? "Saving..." : "Save Changes"}</span>
      </Button>
    </form>
  );
}
