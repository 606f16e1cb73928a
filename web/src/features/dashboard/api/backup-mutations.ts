// The dashboard's actions on backups and restores as mutations; each reloads the lists it changes.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { answerOf } from "../../../lib/api-client";
import {
  deleteBackupRequest,
  resolveAnomalyRequest,
  restoreBackupRequest,
  restoreToMomentRequest,
  setBackupKeptRequest,
  setBackupLabelRequest,
  verifyBackupRequest,
} from "./dashboard-api";
import { reloadBackupLists } from "./get-backups";
import { restoresQueryKey } from "./get-restores";

/** Deleting frees storage: the lists, counts, chart and storage use are read again, even after a failure. */
export function useDeleteBackup() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: (backupId: string) => answerOf(deleteBackupRequest(backupId)), onSettled: () => reloadBackupLists(queryClient) });
}

/** Asks the database's agent to read the backup back; the result arrives later as an event. */
export function useVerifyBackup() {
  return useMutation({ mutationFn: (backupId: string) => answerOf(verifyBackupRequest(backupId)) });
}

export function useResolveAnomaly() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: (backupId: string) => answerOf(resolveAnomalyRequest(backupId)), onSettled: () => reloadBackupLists(queryClient) });
}

/** Keep forever on or off; the lists are read again so the row shows what the server kept. */
export function useSetBackupKept() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ backupId, kept }: { backupId: string; kept: boolean }) => answerOf(setBackupKeptRequest(backupId, kept)),
    onSettled: () => reloadBackupLists(queryClient),
  });
}

export function useSetBackupLabel() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ backupId, label }: { backupId: string; label: string | null }) => answerOf(setBackupLabelRequest(backupId, label)),
    onSuccess: () => reloadBackupLists(queryClient),
  });
}

/** `sealedIdentity`: a write-only agent's identity, sealed in the wizard to the restoring agent; the server forwards it only. */
export type RestoreRequest = {
  backupId: string;
  databaseName: string;
  targetDatabase?: string;
  collections?: string[];
  sealedIdentity?: string;
  /** Another connection an agent knows, by its name (issue 44). */
  connection?: { agentId: string; name: string };
};

/** Starts a restore; Restore History is read again so the new row shows at once. */
export function useStartRestore() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ backupId, databaseName, ...where }: RestoreRequest) => answerOf(restoreBackupRequest(backupId, databaseName, where)),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: restoresQueryKey }),
  });
}

export type RestoreToMomentRequest = Parameters<typeof restoreToMomentRequest>[0];

/** Restores a database to a moment (a base backup and its oplog); Restore History is read again. */
export function useRestoreToMoment() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (request: RestoreToMomentRequest) => answerOf(restoreToMomentRequest(request)),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: restoresQueryKey }),
  });
}
