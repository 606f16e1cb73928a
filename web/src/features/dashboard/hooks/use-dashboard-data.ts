// The dashboard's lists: recent backups, the summary counts, the plan (storage) and the
// databases. A failed fetch is only logged (spec 8); the previous data stays on screen.
import { useCallback, useEffect, useState } from "react";
import {
  type Backup,
  type BackupSummary,
  backupSummaryRequest,
  type DatabaseEntry,
  listBackupsRequest,
  listDatabasesRequest,
  type UserPlan,
  userPlanRequest,
} from "../api/dashboard-api";

export const CHART_BACKUP_LIMIT = 60;

async function fetchOrLog<T>(what: string, request: () => Promise<{ data: T | null; error: unknown }>): Promise<T | null> {
  try {
    const { data, error } = await request();
    if (error || data === null) {
      console.error(`failed to fetch ${what}`);
      return null;
    }
    return data;
  } catch {
    console.error(`failed to fetch ${what}`);
    return null;
  }
}

export function useDashboardData() {
  const [backups, setBackups] = useState<Backup[] | null>(null);
  const [summary, setSummary] = useState<BackupSummary | null>(null);
  const [plan, setPlan] = useState<UserPlan | null>(null);
  const [databases, setDatabases] = useState<DatabaseEntry[] | null>(null);

  const reloadBackups = useCallback(async () => {
    const [list, counts, limits] = await Promise.all([
      fetchOrLog("backups", () => listBackupsRequest()),
      fetchOrLog("backup summary", () => backupSummaryRequest()),
      fetchOrLog("plan", () => userPlanRequest()),
    ]);
    if (list) setBackups(list);
    else setBackups((previous) => previous ?? []);
    if (counts) setSummary(counts);
    if (limits) setPlan(limits);
  }, []);

  const reloadDatabases = useCallback(async () => {
    const list = await fetchOrLog("databases", () => listDatabasesRequest());
    setDatabases(list ?? []);
  }, []);

  useEffect(() => {
    void reloadBackups();
    void reloadDatabases();
  }, [reloadBackups, reloadDatabases]);

  return { backups, summary, plan, databases, reloadBackups, reloadDatabases };
}

/** The recent completed backups of one database, for the size chart. */
export function useDatabaseBackups(databaseName: string, version: number) {
  const [backups, setBackups] = useState<Backup[]>([]);
  useEffect(() => {
    // No database yet (a new account): nothing to chart, and an empty name is a bad request.
    if (!databaseName) {
      setBackups([]);
      return;
    }
    let active = true;
    void fetchOrLog("backups of the database", () => listBackupsRequest({ databaseName, limit: CHART_BACKUP_LIMIT })).then((list) => {
      if (active) setBackups(list ?? []);
    });
    return () => {
      active = false;
    };
  }, [databaseName, version]);
  return backups;
}
