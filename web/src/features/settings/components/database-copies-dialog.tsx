import { Alert } from "../../../components/ui/alert";
import { Button } from "../../../components/ui/button";
import { Badge } from "../../../components/ui/card";
import { Dialog } from "../../../components/ui/dialog";
import { Spinner } from "../../../components/ui/spinner";
import { readErrorMessage } from "../../../lib/api-client";
import { formatDateTime } from "../../../lib/format-date";
import { type DatabaseCopy, useDatabaseCopies } from "../api/get-database-copies";
import { describeBucket, describeCopyStatus } from "../utils/copy-status";

const TONES = { success: "bg-emerald-100 text-emerald-800", warning: "bg-amber-100 text-amber-800", danger: "bg-red-100 text-red-800" } as const;

/** A database's backup copies in the user's own buckets: bucket, key, size, status and the agent's last check of each. */
export function DatabaseCopiesDialog({ databaseName, onClose }: { databaseName: string | null; onClose: () => void }) {
  const { data, isPending, error } = useDatabaseCopies(databaseName);
  return (
    <Dialog
      open={databaseName !== null}
      onClose={onClose}
      title={`Copies of ${databaseName ?? ""}`}
      description="Each backup's copies in your own buckets (dbvault-agent copies add). The agent checks them once a day and reads one back whole; run dbvault-agent copies check to check now."
      footer={<Button onClick={onClose}>Close</Button>}
    >
      <div className="mt-4 max-h-[60vh] overflow-y-auto" data-testid="database-copies">
        {isPending ? (
          <Spinner className="h-5 w-5" />
        ) : error ? (
          <Alert tone="error">{readErrorMessage(error) ?? "The copies could not be loaded. Please try again."}</Alert>
        ) : data.copies.length === 0 ? (
          <p className="text-sm text-slate-600">No copies yet. Add a bucket of yours on the agent's machine with dbvault-agent copies add.</p>
        ) : (
          <ul className="divide-y divide-slate-200">
            {data.copies.map((copy) => (
              <CopyRow key={`${copy.backupId} ${copy.destination}`} copy={copy} />
            ))}
          </ul>
        )}
      </div>
    </Dialog>
  );
}

function CopyRow({ copy }: { copy: DatabaseCopy }) {
  const look = describeCopyStatus(copy);
  return (
    <li className="py-3 text-sm" data-copy-status={copy.status}>
      <div className="flex items-center justify-between gap-2">
        <span className="font-medium text-slate-900">Backup of {formatDateTime(copy.backupCreatedAt)}</span>
        <Badge className={TONES[look.tone]}>{look.label}</Badge>
      </div>
      <p className="mt-1 break-all text-slate-700">
        {describeBucket(copy.destination)} · <span className="font-mono text-xs">{copy.key}</span>
      </p>
      <p className="mt-0.5 text-xs text-slate-500">
        {look.size} · {look.checked}
        {look.locked ? ` · ${look.locked}` : ""}
      </p>
      {look.note ? <p className="mt-0.5 text-xs text-red-700">{look.note}</p> : null}
    </li>
  );
}
