// The browser's realtime channel while the dashboard is open: authenticates with the session's
// token, writes each backup's and restore's status and progress into the query cache (the lists
// the screens show), and reconnects after a drop (1 s, growing to 5 s, spec 9). Connection errors
// are only logged (spec 8). Events sent while the channel was down are lost, so each reconnection
// fetches the lists again.
import { useQueryClient } from "@tanstack/react-query";
import { useAtomValue } from "jotai";
import { useEffect } from "react";
import { systemStatusQueryKey } from "../../../lib/api/get-system-status";
import { leaveLostOrganization } from "../../../lib/auth/session";
import { chosenOrganizationAtom, chosenOrganizationId, isNotAMemberAnswer } from "../../../lib/organization/chosen-organization";
import { type BrowserEvent, openRealtimeChannel } from "../api/dashboard-api";
import { backupsQueryKey, reloadBackupLists } from "../api/get-backups";
import { restoresQueryKey } from "../api/get-restores";
import { applyBackupEvent, applyRestoreEvent } from "../api/live-updates";
import { createFinishedFilter, isRunning } from "../utils/operation-status";

/**
 * How long after an operation settled its list is fetched again: the event already shows the
 * final status, and the server's row (dates, size, error) is surely written by then.
 */
export const SETTLED_REFETCH_MS = 2_000;
const RECONNECT_MIN_MS = 1_000;
const RECONNECT_MAX_MS = 5_000;

function isBrowserEvent(value: unknown): value is BrowserEvent {
  const type = (value as { type?: unknown } | null)?.type;
  return type === "backupProgress" || type === "restoreProgress" || type === "backupVerified";
}

export function useRealtimeEvents(token: string | null) {
  const queryClient = useQueryClient();
  // A switch of organization opens a new socket, naming the new one.
  useAtomValue(chosenOrganizationAtom);
  const organizationId = chosenOrganizationId() ?? undefined;

  useEffect(() => {
    if (!token) return;
    let stopped = false;
    let channel: ReturnType<typeof openRealtimeChannel> | null = null;
    let retryDelay = RECONNECT_MIN_MS;
    const timers = new Set<ReturnType<typeof setTimeout>>();
    const later = (ms: number, run: () => void) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        run();
      }, ms);
      timers.add(timer);
    };

    const accept = createFinishedFilter();
    // The last event of each operation: an event about a row the list does not hold yet (the
    // operation started after the last read) is laid over the row once the list is read again,
    // unless a newer event came meanwhile.
    const latest = new Map<string, BrowserEvent>();
    const apply = (id: string, event: BrowserEvent, write: () => boolean, queryKey: readonly string[]) => {
      latest.set(id, event);
      if (write()) return;
      // Joins a read under way rather than restarting it, so a burst of events cannot starve it.
      void queryClient
        .invalidateQueries({ queryKey }, { cancelRefetch: false })
        .then(() => (latest.get(id) === event ? write() : undefined))
        .catch(() => undefined);
    };
    const onEvent = (event: BrowserEvent) => {
      // A verification changes a finished backup's row only: the list is fetched again.
      if (event.type === "backupVerified") return void reloadBackupLists(queryClient);
      if (event.type === "backupProgress") {
        if (!accept(event.backupId, event.status)) return;
        apply(event.backupId, event, () => applyBackupEvent(queryClient, event), backupsQueryKey);
        if (!isRunning(event.status)) later(SETTLED_REFETCH_MS, () => void reloadBackupLists(queryClient));
        return;
      }
      if (!accept(event.restoreId, event.status)) return;
      apply(event.restoreId, event, () => applyRestoreEvent(queryClient, event), restoresQueryKey);
      if (!isRunning(event.status)) {
        // At once, so the Completed date shows without waiting, and again once surely written.
        void queryClient.invalidateQueries({ queryKey: restoresQueryKey });
        later(SETTLED_REFETCH_MS, () => void queryClient.invalidateQueries({ queryKey: restoresQueryKey }));
      }
    };

    let connectedBefore = false;
    const catchUp = () =>
      Promise.all([
        reloadBackupLists(queryClient),
        queryClient.invalidateQueries({ queryKey: restoresQueryKey }),
        queryClient.invalidateQueries({ queryKey: systemStatusQueryKey }),
      ]);

    const connect = () => {
      if (stopped) return;
      const current = openRealtimeChannel();
      channel = current;
      current.on("open", () => {
        retryDelay = RECONNECT_MIN_MS;
        current.send({ type: "auth", token, organizationId });
      });
      current.subscribe((message) => {
        if (isBrowserEvent(message.data)) return onEvent(message.data);
        // Refused for the organization named (the member was removed): the personal one instead.
        if ((message.data as { type?: unknown } | null)?.type === "error" && isNotAMemberAnswer(403, message.data)) return leaveLostOrganization();
        // 'ready': the server accepted the token and sends events from now on.
        if ((message.data as { type?: unknown } | null)?.type !== "ready") return;
        if (connectedBefore) void catchUp().catch(() => undefined);
        connectedBefore = true;
      });
      current.on("error", () => console.error("realtime channel error"));
      current.on("close", () => {
        if (stopped || channel !== current) return;
        later(retryDelay, connect);
        retryDelay = Math.min(RECONNECT_MAX_MS, retryDelay * 2);
      });
    };
    connect();

    return () => {
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
      channel?.close();
    };
  }, [token, queryClient, organizationId]);
}
