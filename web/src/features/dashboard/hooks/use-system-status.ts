// The System Status card's data, refreshed every 30 seconds (spec 4 and 9), and the manual
// 'Check' of the backup service with the texts of spec 8.
import { useCallback, useEffect, useState } from "react";
import { toast } from "../../../components/ui/toast-store";
import { serviceHealthRequest, type SystemStatus, systemStatusRequest } from "../api/dashboard-api";

export const SYSTEM_STATUS_REFRESH_MS = 30_000;

/** While a new account waits for its agent, the card (and the checklist) look more often. */
export const ONBOARDING_REFRESH_MS = 3_000;

export function useSystemStatus(refreshMs = SYSTEM_STATUS_REFRESH_MS) {
  const [status, setStatus] = useState<SystemStatus | null>(null);
  const [checking, setChecking] = useState(false);

  const reload = useCallback(async () => {
    try {
      const { data, error } = await systemStatusRequest();
      if (error || !data) console.error("failed to fetch system status");
      else setStatus(data);
    } catch {
      console.error("failed to fetch system status");
    }
  }, []);

  useEffect(() => {
    void reload();
    const timer = setInterval(() => void reload(), refreshMs);
    return () => clearInterval(timer);
  }, [reload, refreshMs]);

  const checkService = useCallback(async () => {
    setChecking(true);
    try {
      const { data, response } = await serviceHealthRequest();
      // No response at all means the request never reached the server.
      if (!response) throw new Error("network");
      const ok = Boolean(data?.ok);
      setStatus((current) => (current ? { ...current, backupService: ok } : current));
      toast(
        ok
          ? { title: "Backup service is online and functioning properly", variant: "success" }
          : { title: "Backup service appears to be offline", variant: "destructive" },
      );
    } catch {
      setStatus((current) => (current ? { ...current, backupService: false } : current));
      toast({ title: "Failed to connect to backup service. Please check your network connection", variant: "destructive" });
    } finally {
      setChecking(false);
    }
  }, []);

  return { status, checking, checkService, reload };
}
