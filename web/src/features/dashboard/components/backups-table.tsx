import { type ComponentProps, useMemo } from "react";
import { Link } from "wouter";
import { Button } from "../../../components/ui/button";
import { DataTable, type DataTableColumn } from "../../../components/ui/data-table";
import { Icon } from "../../../components/ui/icons";
import { ProgressBar } from "../../../components/ui/progress-bar";
import { formatDateTime } from "../../../lib/format-date";
import type { Permissions } from "../../../lib/organization/permissions";
import type { Agent, Backup } from "../api/dashboard-api";
import { describeConsistency } from "../utils/consistency-format";
import { formatBytes, formatDocumentCount } from "../utils/dashboard-format";
import { isRunning } from "../utils/operation-status";
import { formatTimeRemaining } from "../utils/time-remaining";
import { useTimeRemaining } from "../hooks/use-time-remaining";
import { describeReaders, shortKeyId } from "../utils/key-warning";
import { BackupMarks } from "./backup-marks";
import { StatusBadge } from "./status-badge";
import { AnomalyBadge, PlacesBadge, VerificationBadge } from "./trust-badges";

type Actions = {
  onDownload: (backup: Backup) => void;
  onRestore: (backup: Backup) => void;
  onDelete: (backup: Backup) => void;
  /** Asks the agent to read the backup back from storage again. */
  onVerify: (backup: Backup) => void;
  onResolveAnomaly: (backup: Backup) => void;
  downloadingId: string | null;
  /** The user's agents: which of them can read each backup (by the key ids they hold). */
  agents: readonly Agent[];
  /** What the current role may do: operators download, restore and verify; admins delete. */
  can: Permissions;
  /** The deep link to a backup's details (?backup=ID, the list's filters kept). */
  detailsHref: (backup: Backup) => string;
};

/** A running backup: percentage, documents, collection and the time-remaining estimate restores show too. */
function RunningProgress({ row }: { row: Backup }) {
  const progress = row.progress;
  const remaining = useTimeRemaining(progress);
  if (!progress) return <span className="text-sm text-slate-500">Starting up...</span>;
  return (
    <div className="min-w-0 sm:min-w-48" data-testid="backup-progress">
      <ProgressBar value={progress.percentage} label={`Backup of ${row.databaseName}`} />
      <p className="mt-1 text-xs text-slate-500">
        {progress.percentage}% · {formatDocumentCount(progress.current)} / {formatDocumentCount(progress.total)} documents
        {progress.collection ? ` · ${progress.collection}` : ""}
      </p>
      <p className="text-xs text-slate-500">{remaining === null ? "Estimating time..." : `About ${formatTimeRemaining(remaining)} remaining`}</p>
    </div>
  );
}

/** A completed backup's timestamp, with what moment it holds beneath it. */
function CompletedTimestamp({ backup }: { backup: Backup }) {
  const consistency = describeConsistency(backup);
  return (
    <div>
      <span>{formatDateTime(backup.timestamp)}</span>
      {consistency ? (
        <p className="mt-0.5 text-xs text-slate-500" title={consistency.title} data-testid="backup-consistency">
          {consistency.label}
        </p>
      ) : null}
      {backup.excludedCollections.length > 0 ? (
        <p className="mt-0.5 text-xs text-slate-500" data-testid="backup-excluded">
          Excluded: {backup.excludedCollections.join(", ")}
        </p>
      ) : null}
    </div>
  );
}

/** The backup's key id and which agents can read it. */
function KeyLines({ backup, agents }: { backup: Backup; agents: readonly Agent[] }) {
  if (!backup.keyId) return null;
  const readers = describeReaders(backup, agents);
  return (
    <>
      <span
        className="font-mono text-xs text-slate-500"
        title={`Encrypted with the master key whose key id (fingerprint) is ${backup.keyId}`}
        data-testid="backup-key-id"
      >
        key {shortKeyId(backup.keyId)}
      </span>
      {readers ? (
        <span className={readers.none ? "text-xs text-amber-700" : "text-xs text-slate-500"} data-testid="backup-readers">
          {readers.text}
        </span>
      ) : null}
    </>
  );
}

function buildColumns({
  onDownload,
  onRestore,
  onDelete,
  onVerify,
  onResolveAnomaly,
  downloadingId,
  agents,
  can,
  detailsHref,
}: Actions): DataTableColumn<Backup>[] {
  return [
    {
      accessorKey: "databaseName",
      header: "Database",
      cell: ({ row }) => (
        <BackupMarks
          backup={row.original}
          canChange={can.operate}
          name={
            <Link
              href={detailsHref(row.original)}
              className="font-medium text-slate-900 underline decoration-slate-300 underline-offset-2 hover:decoration-indigo-500"
              aria-label={`${row.original.databaseName}: details of the backup of ${formatDateTime(row.original.createdAt)}`}
              data-testid="backup-details-link"
            >
              {row.original.databaseName}
            </Link>
          }
        />
      ),
    },
    {
      id: "timestamp",
      header: "Timestamp",
      cell: ({ row }) => (isRunning(row.original.status) ? <RunningProgress row={row.original} /> : <CompletedTimestamp backup={row.original} />),
    },
    {
      id: "size",
      header: "Size",
      cell: ({ row }) =>
        isRunning(row.original.status) ? null : (
          <div className="flex flex-col">
            <span>{formatBytes(row.original.size)}</span>
            <KeyLines backup={row.original} agents={agents} />
          </div>
        ),
    },
    {
      id: "status",
      header: "Status",
      cell: ({ row }) => {
        const status = row.original.status;
        return (
          <div className="flex flex-col items-start gap-1.5">
            <StatusBadge status={status} />
            {status === "completed" ? <VerificationBadge backup={row.original} /> : null}
            {status === "completed" ? <PlacesBadge backup={row.original} /> : null}
            <AnomalyBadge backup={row.original} onResolve={onResolveAnomaly} />
          </div>
        );
      },
    },
    {
      id: "actions",
      header: "Actions",
      cell: ({ row }) => {
        const backup = row.original;
        const usable = backup.status === "completed";
        const label = `${backup.databaseName} backup of ${formatDateTime(backup.createdAt)}`;
        return (
          <div className="flex flex-wrap gap-1 sm:flex-nowrap">
            {can.operate ? (
              <>
                <Button
                  variant="ghost"
                  size="sm"
                  disabled={!usable || downloadingId === backup.id}
                  onClick={() => onDownload(backup)}
                  aria-label={`Download ${label}`}
                >
                  <Icon name="cloud" className="h-4 w-4" /> Download
                </Button>
                <Button variant="ghost" size="sm" disabled={!usable} onClick={() => onRestore(backup)} aria-label={`Restore ${label}`}>
                  <Icon name="restore" className="h-4 w-4" /> Restore
                </Button>
                <Button variant="ghost" size="sm" disabled={!usable} onClick={() => onVerify(backup)} aria-label={`Verify ${label}`}>
                  <Icon name="shield" className="h-4 w-4" /> Verify
                </Button>
              </>
            ) : null}
            {can.administer ? (
              <Button
                variant="ghost"
                size="sm"
                className="text-red-600 hover:bg-red-50"
                disabled={!usable || backup.kept}
                title={backup.kept ? "Kept forever: turn Keep forever off to delete it" : undefined}
                onClick={() => onDelete(backup)}
                aria-label={`Delete ${label}`}
              >
                <Icon name="trash" className="h-4 w-4" /> Delete
              </Button>
            ) : null}
          </div>
        );
      },
    },
  ];
}

/** Recent Backups (spec 2), TanStack Table; running rows show their live progress. */
export function BackupsTable({ backups, filtered = false, ...actions }: Actions & { backups: Backup[]; filtered?: boolean }) {
  const { onDownload, onRestore, onDelete, onVerify, onResolveAnomaly, downloadingId, agents, can, detailsHref } = actions;
  const columns = useMemo(
    () => buildColumns({ onDownload, onRestore, onDelete, onVerify, onResolveAnomaly, downloadingId, agents, can, detailsHref }),
    [onDownload, onRestore, onDelete, onVerify, onResolveAnomaly, downloadingId, agents, can, detailsHref],
  );

  if (backups.length === 0) {
    return (
      <p className="rounded-lg border border-dashed border-slate-300 p-10 text-center text-slate-600">
        {filtered ? "No backups match these filters." : "No backups found. Trigger a backup to protect your data."}
      </p>
    );
  }
  return (
    <DataTable
      columns={columns}
      data={backups}
      getRowId={(row) => row.id}
      rowProps={(row) => ({ "data-testid": "backup-row", "data-backup-id": row.id }) as ComponentProps<"tr">}
    />
  );
}
