// One backup's details, opened by its deep link (?backup=ID on /dashboard). The server answers
// only a member of the backup's organization; anyone else (or a deleted backup) gets a plain
// "not found" here, never another organization's data.
import type { ReactNode } from "react";
import { Button } from "../../../components/ui/button";
import { Dialog } from "../../../components/ui/dialog";
import { Spinner } from "../../../components/ui/spinner";
import { ApiError } from "../../../lib/api-client";
import { formatDateTime } from "../../../lib/format-date";
import { useBackupDetails } from "../api/get-backups";
import type { Backup } from "../api/dashboard-api";
import { describeConsistency } from "../utils/consistency-format";
import { formatBytes } from "../utils/dashboard-format";
import { StatusBadge } from "./status-badge";
import { VerificationBadge } from "./trust-badges";

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="grid grid-cols-1 gap-0.5 py-2 sm:grid-cols-3 sm:gap-3">
      <dt className="text-sm font-medium text-slate-600">{label}</dt>
      <dd className="min-w-0 break-words text-sm text-slate-900 sm:col-span-2">{children}</dd>
    </div>
  );
}

function Details({ backup }: { backup: Backup }) {
  const consistency = describeConsistency(backup);
  return (
    <dl className="mt-4 divide-y divide-slate-100" data-testid="backup-details">
      <Row label="Database">{backup.databaseName}</Row>
      <Row label="Status">
        <div className="flex flex-col items-start gap-1">
          <StatusBadge status={backup.status} />
          {backup.status === "completed" ? <VerificationBadge backup={backup} /> : null}
        </div>
      </Row>
      <Row label="Started">{formatDateTime(backup.createdAt)}</Row>
      {backup.completedAt ? <Row label="Completed">{formatDateTime(backup.completedAt)}</Row> : null}
      {consistency ? <Row label="Consistency">{consistency.label}</Row> : null}
      <Row label="Type">{backup.type === "auto" ? "Scheduled" : "Manual"}</Row>
      {backup.status === "completed" ? <Row label="Size">{formatBytes(backup.size)}</Row> : null}
      {backup.error ? <Row label="Error">{backup.error}</Row> : null}
      {backup.keyId ? (
        <Row label="Key id">
          <span className="font-mono text-xs">{backup.keyId}</span>
        </Row>
      ) : null}
      {backup.sha256 ? (
        <Row label="SHA-256">
          <span className="font-mono text-xs">{backup.sha256}</span>
        </Row>
      ) : null}
      <Row label="Backup id">
        <span className="font-mono text-xs">{backup.id}</span>
      </Row>
    </dl>
  );
}

export function BackupDetailsDialog({ backupId, onClose }: { backupId: string; onClose: () => void }) {
  const details = useBackupDetails(backupId);
  // A 404 is the answer for a deleted backup and for anyone outside its organization alike.
  const notFound = details.error instanceof ApiError && details.error.status === 404;
  return (
    <Dialog
      open={backupId !== ""}
      onClose={onClose}
      title={notFound ? "Backup not found" : details.isError ? "Could not load this backup" : "Backup details"}
      description={
        notFound
          ? "No backup of this organization has this link. It may have been deleted, or it belongs to an organization you are not a member of: switch organization, or ask its owner."
          : details.isError
            ? details.error.message
            : undefined
      }
      footer={
        <Button variant="outline" onClick={onClose}>
          Close
        </Button>
      }
    >
      {details.data ? (
        <Details backup={details.data} />
      ) : details.isError ? null : (
        <p className="mt-4 flex items-center gap-2 text-sm text-slate-600">
          <Spinner /> Loading backup...
        </p>
      )}
    </Dialog>
  );
}
