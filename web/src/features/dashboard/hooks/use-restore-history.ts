// The Restore History list (spec 2 and 4): load, 'Try Again' after a failure, a reload every
// 5 seconds while the list, as last loaded, held pending or in-progress restores, and one at once
// when the realtime channel says a restore finished (so its Completed date shows without waiting).
import { useEffect } from "react";
import { useRestores } from "../api/get-restores";
import type { LiveRestore } from "../stores/dashboard-atoms";
import { isRunning } from "../utils/operation-status";

export function useRestoreHistory(live: Record<string, LiveRestore>) {
  const query = useRestores();
  const { refetch } = query;

  const finished = Object.entries(live)
    .filter(([, restore]) => !isRunning(restore.status))
    .map(([id]) => id)
    .join(",");
  useEffect(() => {
    if (finished) void refetch();
  }, [finished, refetch]);

  return {
    restores: query.data ?? null,
    // The last read failed; the list as last loaded stays under the message.
    error: query.isError ? "Failed to fetch restore history" : null,
    loading: query.isFetching,
    reload: refetch,
  };
}
