// The dashboard's backup lists as queries. Every key starts with "backups", so one invalidation
// after a change (a backup settled, deleted, triggered) refreshes the list, the counts and the chart.
// A failed read is only logged (spec 8); the previous data stays on screen.
import { keepPreviousData, type QueryClient, useQuery } from "@tanstack/react-query";
import { answerOf, answerOrLog } from "../../../lib/api-client";
import { userPlanQueryKey } from "../../../lib/api/get-user-plan";
import { type BackupFilters, backupListQuery } from "../utils/backup-filters";
import { backupSummaryRequest, findBackupsRequest, getBackupRequest, listBackupsRequest } from "./dashboard-api";

export const backupsQueryKey = ["backups"] as const;
export const CHART_BACKUP_LIMIT = 60;

/** The lists, counts, chart and storage use again (a backup settled, was deleted, verified, ...). */
export const reloadBackupLists = (queryClient: QueryClient) =>
  Promise.all([queryClient.invalidateQueries({ queryKey: backupsQueryKey }), queryClient.invalidateQueries({ queryKey: userPlanQueryKey })]);

export function useRecentBackups() {
  return useQuery({ queryKey: [...backupsQueryKey, "recent"], queryFn: () => answerOrLog("failed to fetch backups", listBackupsRequest()) });
}

export function useBackupSummary() {
  return useQuery({ queryKey: [...backupsQueryKey, "summary"], queryFn: () => answerOrLog("failed to fetch backup summary", backupSummaryRequest()) });
}

/** The recent completed backups of one database, for the size chart. */
export function useDatabaseBackups(databaseName: string) {
  return useQuery({
    queryKey: [...backupsQueryKey, "of-database", databaseName],
    queryFn: () => answerOrLog("failed to fetch backups of the database", listBackupsRequest({ databaseName, limit: CHART_BACKUP_LIMIT })),
    // No database yet (a new account): nothing to chart, and an empty name is a bad request.
    enabled: databaseName !== "",
    placeholderData: keepPreviousData,
  });
}

/** The backups tab's page under its filters; the previous page stays shown while the next loads. */
export function useFoundBackups(filters: BackupFilters) {
  const query = backupListQuery(filters);
  const unfiltered = Object.keys(query).length === 0;
  return useQuery({
    // Unfiltered, it is the recent list the rest of the dashboard reads: one request, not two.
    queryKey: unfiltered ? [...backupsQueryKey, "recent"] : [...backupsQueryKey, "found", query],
    queryFn: () => answerOrLog("failed to fetch backups", findBackupsRequest(query)),
    placeholderData: keepPreviousData,
  });
}

/** One backup by id, for its deep link (?backup=ID); a 404 (deleted, or another organization's) is an error, not retried. */
export function useBackupDetails(id: string) {
  return useQuery({
    queryKey: [...backupsQueryKey, "one", id],
    queryFn: () => answerOf(getBackupRequest(id)),
    enabled: id !== "",
    retry: false,
  });
}
