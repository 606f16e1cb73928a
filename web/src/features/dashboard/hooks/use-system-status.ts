// The System Status card's data, refreshed every 30 seconds (spec 4 and 9), and the manual
// 'Check' of the backup service with the texts of spec 8.
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useState } from "react";
import { toast } from "../../../components/ui/toast-store";
import { type SystemStatus, systemStatusQuery, systemStatusQueryKey } from "../../../lib/api/get-system-status";
import { serviceHealthRequest } from "../api/dashboard-api";

export const SYSTEM_STATUS_REFRESH_MS = 30_000;

/** While a new account waits for its agent, the card (and the checklist) look more often. */
export const ONBOARDING_REFRESH_MS = 3_000;

export function useSystemStatus(refreshMs = SYSTEM_STATUS_REFRESH_MS) {
  const queryClient = useQueryClient();
  const query = useQuery({ ...systemStatusQuery, refetchInterval: refreshMs });
  const status = query.data ?? null;
  const [checking, setChecking] = useState(false);
  const reload = useCallback(() => queryClient.invalidateQueries({ queryKey: systemStatusQueryKey }), [queryClient]);
  const setServiceUp = useCallback(
    (ok: boolean) => queryClient.setQueryData<SystemStatus>(systemStatusQueryKey, (current) => (current ? { ...current, backupService: ok } : current)),
    [queryClient],
  );

  const checkService = useCallback(async () => {
    setChecking(true);
    try {
      const { data, response } = await serviceHealthRequest();
      // No response at all means the request never reached the server.
      if (!response) throw new Error("network");
      const ok = Boolean(data?.ok);
      setServiceUp(ok);
      toast(
        ok
          ? { title: "Backup service is online and functioning properly", variant: "success" }
          : { title: "Backup service appears to be offline", variant: "destructive" },
      );
    } catch {
      setServiceUp(false);
      toast({ title: "Failed to connect to backup service. Please check your network connection", variant: "destructive" });
    } finally {
      setChecking(false);
    }
  }, [setServiceUp]);

  return { status, checking, checkService, reload };
}
