// 'Trigger Backup' (spec 4 and 8): starts a backup, then polls it every 2 seconds until it is
// neither pending nor in progress, for 30 seconds at most. 429 gets the 'Backup Limit Reached' toast.
import { useCallback, useEffect, useRef, useState } from "react";
import { toast } from "../../../components/ui/toast-store";
import { readErrorMessage, readErrorStatus } from "../../../lib/api-client";
import { getBackupRequest, triggerBackupRequest } from "../api/dashboard-api";
import { describeBackupLimit } from "../utils/dashboard-format";
import { isRunning } from "../utils/operation-status";

export const BACKUP_POLL_INTERVAL_MS = 2_000;
export const BACKUP_POLL_TIMEOUT_MS = 30_000;

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function useTriggerBackup(onChange: () => void) {
  const [busy, setBusy] = useState(false);
  const mounted = useRef(true);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);

  const trigger = useCallback(
    async (databaseName: string) => {
      setBusy(true);
      try {
        const { data, error } = await triggerBackupRequest(databaseName);
        if (error || !data) {
          if (readErrorStatus(error) === 429) {
            // The 429 answer carries nextBackupAvailable beside its message (spec 7).
            const next = (error?.value as { nextBackupAvailable?: string } | undefined)?.nextBackupAvailable;
            toast({ title: "Backup Limit Reached", description: describeBackupLimit(readErrorMessage(error), next), variant: "destructive" });
          } else {
            toast({ title: "Error", description: readErrorMessage(error) ?? "Failed to trigger backup", variant: "destructive" });
          }
          return;
        }
        onChange();
        const deadline = Date.now() + BACKUP_POLL_TIMEOUT_MS;
        let status = data.status;
        while (isRunning(status) && Date.now() < deadline && mounted.current) {
          await wait(BACKUP_POLL_INTERVAL_MS);
          const poll = await getBackupRequest(data.id).catch(() => null);
          if (poll?.data) status = poll.data.status;
        }
        if (mounted.current) onChange();
      } catch {
        toast({ title: "Error", description: "Failed to trigger backup", variant: "destructive" });
      } finally {
        if (mounted.current) setBusy(false);
      }
    },
    [onChange],
  );

  return { trigger, busy };
}
