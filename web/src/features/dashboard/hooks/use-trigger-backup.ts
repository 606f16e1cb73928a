// 'Trigger Backup' (spec 4 and 8): starts a backup, then polls it every 2 seconds until it is
// neither pending nor in progress, for 30 seconds at most. 429 gets the 'Backup Limit Reached' toast.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { toast } from "../../../components/ui/toast-store";
import { answerOf, readErrorMessage, readErrorStatus } from "../../../lib/api-client";
import { getBackupRequest, triggerBackupRequest } from "../api/dashboard-api";
import { reloadBackupLists } from "../api/get-backups";
import { describeBackupLimit } from "../utils/dashboard-format";
import { isRunning } from "../utils/operation-status";

export const BACKUP_POLL_INTERVAL_MS = 2_000;
export const BACKUP_POLL_TIMEOUT_MS = 30_000;

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function useTriggerBackup() {
  const queryClient = useQueryClient();
  // The polling stops when the dashboard closes.
  const mounted = useRef(true);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);

  const mutation = useMutation({
    mutationFn: async (databaseName: string) => {
      const started = await answerOf(triggerBackupRequest(databaseName));
      void reloadBackupLists(queryClient);
      const deadline = Date.now() + BACKUP_POLL_TIMEOUT_MS;
      let status = started.status;
      while (isRunning(status) && Date.now() < deadline && mounted.current) {
        await wait(BACKUP_POLL_INTERVAL_MS);
        const poll = await getBackupRequest(started.id).catch(() => null);
        if (poll?.data) status = poll.data.status;
      }
      if (mounted.current) await reloadBackupLists(queryClient);
    },
    onError: (error) => {
      if (readErrorStatus(error) === 429) {
        // The 429 answer carries nextBackupAvailable beside its message (spec 7).
        const next = ((error as { value?: unknown }).value as { nextBackupAvailable?: string } | undefined)?.nextBackupAvailable;
        toast({ title: "Backup Limit Reached", description: describeBackupLimit(readErrorMessage(error), next), variant: "destructive" });
      } else {
        toast({ title: "Error", description: readErrorMessage(error) ?? "Failed to trigger backup", variant: "destructive" });
      }
    },
  });

  return { trigger: mutation.mutate, busy: mutation.isPending };
}
