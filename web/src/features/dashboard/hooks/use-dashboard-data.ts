// The dashboard's lists: recent backups, the summary counts, the plan (storage) and the
// databases. A failed fetch is only logged (spec 8); the previous data stays on screen.
import { useQueryClient } from "@tanstack/react-query";
import { useCallback } from "react";
import { databasesQueryKey, useDatabases } from "../../../lib/api/get-databases";
import { useUserPlan } from "../../../lib/api/get-user-plan";
import { useBackupSummary, useDatabaseBackups as useDatabaseBackupsQuery, useRecentBackups } from "../api/get-backups";
import type { Backup } from "../api/dashboard-api";

export function useDashboardData() {
  const queryClient = useQueryClient();
  const backups = useRecentBackups();
  const summary = useBackupSummary();
  const plan = useUserPlan();
  const databases = useDatabases();

  const reloadDatabases = useCallback(() => queryClient.invalidateQueries({ queryKey: databasesQueryKey }), [queryClient]);

  return {
    // A first load that failed shows an empty list rather than loading for ever.
    backups: backups.data ?? (backups.isError ? [] : null),
    summary: summary.data ?? null,
    plan: plan.data ?? null,
    databases: databases.data ?? (databases.isError ? [] : null),
    reloadDatabases,
  };
}

/** The recent completed backups of one database, for the size chart. */
export function useDatabaseBackups(databaseName: string): Backup[] {
  const query = useDatabaseBackupsQuery(databaseName);
  return (databaseName && query.data) || [];
}
