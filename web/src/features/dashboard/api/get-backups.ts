// The dashboard's backup lists as queries. Every key starts with "backups", so one invalidation
// after a change (a backup settled, deleted, triggered) refreshes the list, the counts and the chart.
// A failed read is only logged (spec 8); the previous data stays on screen.
import { keepPreviousData, type QueryClient, useQuery } from "@tanstack/react-query";
import { answerOrLog } from "../../../lib/api-client";
import { userPlanQueryKey } from "../../../lib/api/get-user-plan";
import { backupSummaryRequest, listBackupsRequest } from "./dashboard-api";

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
