// The Restore History list (spec 2 and 4): load, 'Try Again' after a failure, and a reload every
// 5 seconds while the list, as last loaded, held pending or in-progress restores. The realtime
// channel writes progress into the same cache entry and reloads it when a restore finishes.
import { useRestores } from "../api/get-restores";

export function useRestoreHistory() {
  const query = useRestores();
  const { refetch } = query;

  return {
    restores: query.data ?? null,
    // The last read failed; the list as last loaded stays under the message.
    error: query.isError ? "Failed to fetch restore history" : null,
    loading: query.isFetching,
    reload: refetch,
  };
}
