import { ProgressBar } from "../../../components/ui/progress-bar";
import { Spinner } from "../../../components/ui/spinner";
import type { OperationProgress } from "../api/dashboard-api";
import { useTimeRemaining } from "../hooks/use-time-remaining";
import { formatDocumentCount } from "../utils/dashboard-format";
import { formatTimeRemaining } from "../utils/time-remaining";

/** A running restore: documents (K/M), percentage, collection and the time-remaining estimate. */
export function RestoreProgress({ databaseName, progress }: { databaseName: string; progress: OperationProgress | null }) {
  const remaining = useTimeRemaining(progress);
  if (!progress) {
    return (
      <span className="inline-flex items-center gap-2 text-sm text-slate-600">
        <Spinner className="h-3.5 w-3.5 text-indigo-600" /> Starting up...
      </span>
    );
  }
  return (
    <div className="min-w-56" data-testid="restore-progress">
      <div className="flex justify-between text-xs text-slate-600">
        <span>
          {/* The agent estimates the total from the share of the file read; 0 means not known yet. */}
          {progress.total > 0 ? `${formatDocumentCount(progress.current)} / ${formatDocumentCount(progress.total)}` : formatDocumentCount(progress.current)}{" "}
          documents
        </span>
        <span className="font-medium">{progress.percentage}%</span>
      </div>
      <ProgressBar value={progress.percentage} label={`Restore of ${databaseName}`} className="mt-1" />
      <div className="mt-1 flex justify-between gap-3 text-xs text-slate-500">
        <span className="truncate">{progress.collection ? `Collection: ${progress.collection}` : null}</span>
        <span>{remaining === null ? "Estimating time..." : `About ${formatTimeRemaining(remaining)} remaining`}</span>
      </div>
    </div>
  );
}
