import { type FormEvent, useState } from "react";
import { Button } from "../../../components/ui/button";
import { inputClasses } from "../../../components/ui/field";
import { Select } from "../../../components/ui/select";
import { formatDateTime } from "../../../lib/format-date";
import { FREQUENCY_HOURS, FREQUENCY_WORDS, frequencyWordOf, isFrequencyAllowed } from "@protocol/schedule";
import type { DatabaseScheduleInput, UserDatabase, UserPlan } from "../api/settings-api";

type Props = { database: UserDatabase; plan: UserPlan; disabled: boolean; onSave: (schedule: DatabaseScheduleInput) => void };

const capitalised = (word: string) => word[0]!.toUpperCase() + word.slice(1);

/** A database's next run, why the last one was missed, and its own schedule (times in UTC). */
export function DatabaseSchedule({ database, plan, disabled, onSave }: Props) {
  const { schedule } = database;
  const [editing, setEditing] = useState(false);
  const [frequency, setFrequency] = useState(schedule.frequencyHours === null ? "" : frequencyWordOf(schedule.frequencyHours));
  const [timeOfDay, setTimeOfDay] = useState(schedule.timeOfDay ?? "");
  const [windowStart, setWindowStart] = useState(schedule.windowStart ?? "");
  const [windowEnd, setWindowEnd] = useState(schedule.windowEnd ?? "");
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSave({ frequency: frequency || null, timeOfDay: timeOfDay || null, windowStart: windowStart || null, windowEnd: windowEnd || null });
    setEditing(false);
  };
  const window = schedule.windowStart && schedule.windowEnd ? `, between ${schedule.windowStart} and ${schedule.windowEnd} UTC` : "";
  const at = schedule.timeOfDay ? ` at ${schedule.timeOfDay} UTC` : "";
  return (
    <div className="space-y-1 text-xs text-slate-600">
      <p>
        {capitalised(frequencyWordOf(schedule.everyHours))}
        {at}
        {window}
        {schedule.frequencyHours === null ? " (account default)" : ""}
      </p>
      <p>Next backup: {database.nextBackupAt ? formatDateTime(database.nextBackupAt) : "not scheduled"}</p>
      {database.missedBackup ? (
        <p className="text-amber-800">
          Missed {formatDateTime(database.missedBackup.at)}: {database.missedBackup.reason}
        </p>
      ) : null}
      {editing ? (
        <form onSubmit={submit} className="mt-2 grid max-w-xs grid-cols-2 gap-2" aria-label={`Schedule of ${database.name}`}>
          {/* biome-ignore lint/a11y/noLabelWithoutControl: the Select inside is its control (a native <select>) */}
          <label className="col-span-2">
            Frequency
            <Select compact value={frequency} onChange={(event) => setFrequency(event.target.value)}>
              <option value="">Account default</option>
              {FREQUENCY_WORDS.map((word) => (
                <option key={word} value={word} disabled={!isFrequencyAllowed(FREQUENCY_HOURS[word], plan)}>
                  {capitalised(word)}
                </option>
              ))}
            </Select>
          </label>
          <label className="col-span-2">
            Time of day (UTC)
            <input type="time" className={inputClasses} value={timeOfDay} onChange={(event) => setTimeOfDay(event.target.value)} />
          </label>
          <label>
            Window from (UTC)
            <input type="time" className={inputClasses} value={windowStart} onChange={(event) => setWindowStart(event.target.value)} />
          </label>
          <label>
            Window to (UTC)
            <input type="time" className={inputClasses} value={windowEnd} onChange={(event) => setWindowEnd(event.target.value)} />
          </label>
          <div className="col-span-2 flex gap-2">
            <Button type="submit" size="sm" disabled={disabled}>
              Save schedule
            </Button>
            <Button type="button" size="sm" variant="outline" onClick={() => setEditing(false)}>
              Cancel
            </Button>
          </div>
        </form>
      ) : (
        <Button
          variant="link"
          size="sm"
          className="text-xs"
          onClick={() => setEditing(true)}
          disabled={disabled}
          aria-label={`Edit the schedule of ${database.name}`}
        >
          Edit schedule
        </Button>
      )}
    </div>
  );
}
