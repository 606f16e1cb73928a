// The restore wizard's "A point in time" choice: the database's timeline (base backups as marks,
// what can be restored in green, what cannot in red), a date and time to the second that only
// accepts restorable moments,
// and what the restore will use, as the server's dry run answers.
import { useEffect, useId, useState } from "react";
import { Alert } from "../../../components/ui/alert";
import { inputClasses } from "../../../components/ui/field";
import { Spinner } from "../../../components/ui/spinner";
import { cn } from "../../../lib/cn";
import { describeTimeZone, formatDateTimeToSecond } from "../../../lib/format-date";
import { readErrorMessage } from "../../../lib/api-client";
import { type RestorePlan, useRestorePlan, useTimeline } from "../api/pitr-api";
import { OfflineRestore } from "./offline-restore";
import { inputFromMoment, isCovered, layoutTimeline, momentFromInput, pickerBounds } from "../utils/timeline-layout";

type Props = {
  databaseId: string;
  /** The moment chosen (ISO, to the second) and its plan, once the server confirmed it; null otherwise. */
  onChange: (chosen: { at: string; plan: RestorePlan } | null) => void;
};

export function PointInTimePicker({ databaseId, onChange }: Props) {
  const inputId = useId();
  const timeline = useTimeline(databaseId);
  const [value, setValue] = useState("");
  const baseTimes = timeline.data?.bases.map((base) => base.consistentAt.at) ?? [];
  const moment = momentFromInput(value);
  const covered = timeline.data && moment ? isCovered(timeline.data, moment) : false;
  const plan = useRestorePlan(databaseId, covered ? moment : null);
  const current = covered && plan.data && !plan.isPlaceholderData ? plan.data : null;
  const chosenAt = current ? moment : null;
  // The wizard learns of each moment the server confirmed, and of none while it checks or refuses.
  useEffect(() => {
    onChange(chosenAt && current ? { at: chosenAt, plan: current } : null);
  }, [chosenAt, current, onChange]);

  if (timeline.isPending) return <p className="text-slate-500">Loading the timeline...</p>;
  if (timeline.isError || !timeline.data) return <Alert>Failed to load the point-in-time timeline. Close and try again.</Alert>;
  const bounds = pickerBounds(timeline.data);
  if (!bounds) {
    return (
      <Alert tone="warning" title="Nothing to restore to yet">
        A point-in-time restore starts from a point-in-time consistent backup followed by shipped oplog. Keep point-in-time recovery on and take a backup.
      </Alert>
    );
  }
  const { segments, marks } = layoutTimeline(timeline.data, baseTimes);
  const problem =
    value === ""
      ? null
      : !moment
        ? "Enter a date and a time to the second."
        : !covered
          ? "This moment cannot be restored: choose a time in a green range."
          : null;

  return (
    <div className="space-y-3" data-testid="point-in-time-picker">
      <div>
        <div className="relative h-6 rounded bg-slate-100" role="img" aria-label="Point-in-time timeline" data-testid="pitr-timeline">
          {segments.map((segment) => (
            <div
              key={`${segment.kind}-${segment.from}`}
              className={cn("absolute top-1 h-4 rounded-sm", segment.kind === "covered" ? "bg-emerald-500" : "bg-red-500")}
              style={{ left: `${segment.left}%`, width: `${segment.width}%` }}
              title={`${segment.kind === "covered" ? "Restorable" : "Cannot be restored"}: ${formatDateTimeToSecond(segment.from)} to ${formatDateTimeToSecond(segment.to)}`}
              data-testid={segment.kind === "covered" ? "pitr-range" : "pitr-gap"}
            />
          ))}
          {marks.map((mark) => (
            <div
              key={mark.at}
              className="absolute top-0 h-6 w-0.5 bg-slate-900"
              style={{ left: `${mark.left}%` }}
              title={`Base backup consistent at ${formatDateTimeToSecond(mark.at)}`}
              data-testid="pitr-base"
            />
          ))}
        </div>
        <p className="mt-1 text-xs text-slate-500">
          Green: can be restored. Red: cannot (a gap, or oplog with no base backup before it). Marks: base backups. Restorable from{" "}
          {formatDateTimeToSecond(bounds.min)} to {formatDateTimeToSecond(bounds.max)}.
        </p>
      </div>
      <div>
        <label htmlFor={inputId} className="block font-medium text-slate-900">
          Restore to (date and time, to the second)
        </label>
        {/* Typed in the browser's time zone, which is said here: a server in another zone is no guess. */}
        <p id={`${inputId}-zone`} className="text-xs text-slate-500" data-testid="pitr-time-zone">
          In your time zone: {describeTimeZone(moment ? new Date(moment) : new Date())}
        </p>
        <input
          id={inputId}
          type="datetime-local"
          step={1}
          min={inputFromMoment(bounds.min)}
          max={inputFromMoment(bounds.max)}
          value={value}
          onChange={(event) => setValue(event.target.value)}
          aria-invalid={problem ? true : undefined}
          aria-describedby={`${inputId}-zone`}
          className={cn(inputClasses, "mt-1 font-mono")}
          data-testid="pitr-moment"
        />
        {problem ? <p className="mt-1 text-sm text-red-600">{problem}</p> : null}
      </div>
      {covered && plan.isFetching && !current ? (
        <p className="flex items-center gap-2 text-slate-500">
          <Spinner className="h-3.5 w-3.5" /> Checking what the restore will use...
        </p>
      ) : null}
      {covered && plan.isError ? <Alert>{readErrorMessage(plan.error) ?? "Could not check this moment. Try again."}</Alert> : null}
      {current ? (
        <p className="rounded-md bg-slate-50 p-3" data-testid="pitr-plan">
          Will use the backup consistent at {formatDateTimeToSecond(current.base.consistentAt.at)} + {current.slices.count} oplog slice
          {current.slices.count === 1 ? "" : "s"}, replayed up to {formatDateTimeToSecond(moment)}.
        </p>
      ) : null}
      {current ? <OfflineRestore databaseId={databaseId} plan={current} /> : null}
    </div>
  );
}
