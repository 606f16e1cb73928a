// The browser's realtime channel while the dashboard is open: authenticates with the session's
// token, keeps the live backup and restore state in the feature's atoms, and reconnects after a
// drop (1 s, growing to 5 s, spec 9). Connection errors are only logged (spec 8). Events sent
// while the channel was down are lost, so each reconnection catches up from the lists.
import { useSetAtom, useStore } from "jotai";
import { useEffect, useRef } from "react";
import { type BrowserEvent, openRealtimeChannel } from "../api/dashboard-api";
import { liveBackupsAtom, liveRestoresAtom } from "../stores/dashboard-atoms";
import { createFinishedFilter, isRunning } from "../utils/operation-status";

export const BACKUP_PROGRESS_CLEANUP_MS = 2_000;
export const HISTORY_PROGRESS_CLEANUP_MS = 2_000;
export const DASHBOARD_RESTORE_CLEANUP_MS = 5_000;
const RECONNECT_MIN_MS = 1_000;
const RECONNECT_MAX_MS = 5_000;

type Handlers = {
  onBackupSettled: () => void;
  onRestoreSettled: () => void;
  /** The channel is back after a drop: fetch the lists again (events of the gap were missed). */
  onReconnected: () => Promise<unknown>;
};

const without = <T>(map: Record<string, T>, id: string) => {
  const { [id]: _removed, ...rest } = map;
  return rest;
};

/** `map` without the entries still exactly as they were in `before` (no event has touched them since). */
function withoutUnchanged<T>(map: Record<string, T>, before: Record<string, T>): Record<string, T> {
  const kept = Object.entries(map).filter(([id, value]) => before[id] !== value);
  return kept.length === Object.keys(map).length ? map : Object.fromEntries(kept);
}

function isBrowserEvent(value: unknown): value is BrowserEvent {
  const type = (value as { type?: unknown } | null)?.type;
  return type === "backupProgress" || type === "restoreProgress" || type === "backupVerified";
}

export function useRealtimeEvents(token: string | null, handlers: Handlers) {
  const setBackups = useSetAtom(liveBackupsAtom);
  const setRestores = useSetAtom(liveRestoresAtom);
  const store = useStore();
  const handlersRef = useRef(handlers);
  handlersRef.current = handlers;

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
    const onEvent = (event: BrowserEvent) => {
      // A verification changes a finished backup's row only: the list is fetched again.
      if (event.type === "backupVerified") return handlersRef.current.onBackupSettled();
      if (!accept(event.type === "backupProgress" ? event.backupId : event.restoreId, event.status)) return;
      if (event.type === "backupProgress") {
        setBackups((map) => ({ ...map, [event.backupId]: { status: event.status, progress: event.progress, size: event.size } }));
        if (!isRunning(event.status)) {
          later(BACKUP_PROGRESS_CLEANUP_MS, () => {
            setBackups((map) => without(map, event.backupId));
            handlersRef.current.onBackupSettled();
          });
        }
        return;
      }
      setRestores((map) => ({ ...map, [event.restoreId]: { status: event.status, progress: event.progress, error: event.error } }));
      if (!isRunning(event.status)) {
        later(HISTORY_PROGRESS_CLEANUP_MS, () => handlersRef.current.onRestoreSettled());
        later(DASHBOARD_RESTORE_CLEANUP_MS, () => setRestores((map) => without(map, event.restoreId)));
      }
    };

    // A live entry from before a drop can be stale for ever: its operation may have finished while
    // no one listened, and the entry would still lay 'In Progress' over the refetched row. Once the
    // lists are fetched again, the entries no event has updated since the reconnection are dropped.
    let connectedBefore = false;
    const catchUp = async () => {
      const backupsBefore = store.get(liveBackupsAtom);
      const restoresBefore = store.get(liveRestoresAtom);
      await handlersRef.current.onReconnected().catch(() => undefined);
      if (stopped) return;
      setBackups((map) => withoutUnchanged(map, backupsBefore));
      setRestores((map) => withoutUnchanged(map, restoresBefore));
    };

    const connect = () => {
      if (stopped) return;
      const current = openRealtimeChannel();
      channel = current;
      current.on("open", () => {
        retryDelay = RECONNECT_MIN_MS;
        current.send({ type: "auth", token });
      });
      current.subscribe((message) => {
        if (isBrowserEvent(message.data)) return onEvent(message.data);
        // 'ready': the server accepted the token and sends events from now on.
        if ((message.data as { type?: unknown } | null)?.type !== "ready") return;
        if (connectedBefore) void catchUp();
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
  }, [token, setBackups, setRestores, store]);
}
