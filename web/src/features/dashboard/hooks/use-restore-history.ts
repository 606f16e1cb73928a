// The Restore History list (spec 2 and 4): load, 'Try Again' after a failure, a reload every
// 5 seconds while the list, as last loaded, held pending or in-progress restores, and one at once
// when the realtime channel says a restore finished (so its Completed date shows without waiting).
import { useCallback, useEffect, useState } from "react";
import { listRestoresRequest, type RestoreRecord } from "../api/dashboard-api";
import type { LiveRestore } from "../stores/dashboard-atoms";
import { isRunning } from "../utils/operation-status";

export const HISTORY_REFRESH_MS = 5_000;

export function useRestoreHistory(live: Record<string, LiveRestore>) {
  const [restores, setRestores] = useState<RestoreRecord[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);

  const reload = useCallback(async () => {
    setLoading(true);
    try {
      const { data, error: failure } = await listRestoresRequest();
      if (failure || !data) {
        setError("Failed to fetch restore history");
      } else {
        setRestores(data);
        setError(null);
      }
    } catch {
      setError("An error occurred while fetching restore history");
    } finally {
      setLoading(false);
    }
  }, []);

  useEffect(() => {
    void reload();
  }, [reload]);

  const hasRunning = restores?.some((restore) => isRunning(restore.status)) ?? false;
  useEffect(() => {
    if (!hasRunning) return;
    const timer = setInterval(() => void reload(), HISTORY_REFRESH_MS);
    return () => clearInterval(timer);
  }, [hasRunning, reload]);

  const finished = Object.entries(live)
    .filter(([, restore]) => !isRunning(restore.status))
    .map(([id]) => id)
    .join(",");
  useEffect(() => {
    if (finished) void reload();
  }, [finished, reload]);

  return { restores, error, loading, reload };
}
