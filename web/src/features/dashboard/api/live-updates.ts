// The realtime channel's events written into the query cache: the rows the lists already hold
// take the event's status and progress at once, and the lists are fetched again when an
// operation settles (the server's row then has its final dates, size and error).
import type { QueryClient } from "@tanstack/react-query";
import type { BrowserEvent, Backup, RestoreRecord } from "./dashboard-api";
import { backupsQueryKey } from "./get-backups";
import { restoresQueryKey } from "./get-restores";

type BackupEvent = Extract<BrowserEvent, { type: "backupProgress" }>;
type RestoreEvent = Extract<BrowserEvent, { type: "restoreProgress" }>;

/**
 * Lays the event over the backup's row in every backup list (recent, of one database).
 * Returns whether some list held the row; the summary entry shares the key's prefix but is no list.
 */
export function applyBackupEvent(queryClient: QueryClient, event: BackupEvent): boolean {
  let found = false;
  queryClient.setQueriesData<Backup[]>({ queryKey: backupsQueryKey }, (list) => {
    if (!Array.isArray(list) || !list.some((backup) => backup.id === event.backupId)) return list;
    found = true;
    return list.map((backup) =>
      backup.id === event.backupId ? { ...backup, status: event.status, progress: event.progress, size: event.size ?? backup.size } : backup,
    );
  });
  return found;
}

/** Lays the event over the restore's row in the Restore History list; whether the list held it. */
export function applyRestoreEvent(queryClient: QueryClient, event: RestoreEvent): boolean {
  let found = false;
  queryClient.setQueryData<RestoreRecord[]>(restoresQueryKey, (list) => {
    if (!list?.some((restore) => restore.id === event.restoreId)) return list;
    found = true;
    return list.map((restore) =>
      restore.id === event.restoreId ? { ...restore, status: event.status, progress: event.progress, error: event.error } : restore,
    );
  });
  return found;
}
