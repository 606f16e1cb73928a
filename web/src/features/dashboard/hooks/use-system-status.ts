// The System Status card's data, refreshed every 30 seconds (spec 4 and 9), and the manual
// 'Check' of the backup service with the texts of spec 8.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback } from "react";
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
  const reload = useCallback(() => queryClient.invalidateQueries({ queryKey: systemStatusQueryKey }), [queryClient]);
  const setServiceUp = useCallback(
    (ok: boolean) => queryClient.setQueryData<SystemStatus>(systemStatusQueryKey, (current) => (current ? { ...current, backupService: ok } : current)),
    [queryClient],
  );

  // Any answer, even an error one, says whether the service is up; only no answer is a failure.
  const check = useMutation({
    mutationFn: async () => {
      const { data, response } = await serviceHealthRequest();
      // No response at all means the request never reached the server.
      if (!response) throw new Error("network");
      return Boolean(data?.ok);
    },
    onSuccess: (ok) => {
      setServiceUp(ok);
      toast(
        ok
          ? { title: "Backup service is online and functioning properly", variant: "success" }
          : { title: "Backup service appears to be offline", variant: "destructive" },
      );
    },
    onError: () => {
      setServiceUp(false);
      toast({ title: "Failed to connect to backup service. Please check your network connection", variant: "destructive" });
    },
  });

  return { status, checking: check.isPending, checkService: () => check.mutate(), reload };
}
