// The Restore History list as a query: read again every 5 seconds while it holds pending or
// in-progress restores.
import { useQuery } from "@tanstack/react-query";
import { answerOf } from "../../../lib/api-client";
import { isRunning } from "../utils/operation-status";
import { listRestoresRequest, restoreConnectionsRequest } from "./dashboard-api";

export const HISTORY_REFRESH_MS = 5_000;
export const restoresQueryKey = ["restores"] as const;

export function useRestores() {
  return useQuery({
    queryKey: restoresQueryKey,
    queryFn: () => answerOf(listRestoresRequest()),
    refetchInterval: (query) => (query.state.data?.some((restore) => isRunning(restore.status)) ? HISTORY_REFRESH_MS : false),
  });
}

/** Where a backup can be restored besides its own server: read when the wizard opens on it. */
export function useRestoreConnections(backupId: string | null) {
  return useQuery({
    queryKey: ["restore-connections", backupId],
    queryFn: () => answerOf(restoreConnectionsRequest(backupId!)),
    enabled: backupId !== null,
    staleTime: 0,
  });
}
