/** Events of backup trust (verification, anomalies, drills); webhooks use the same names. */
export type TrustEvent = "backup.verified" | "backup.verification_failed" | "backup.anomaly" | "drill.completed" | "drill.failed";

/**
 * One alert about a backup or a drill, in a shape any channel can take as it is (the app's "alert"
 * event; e-mail and webhooks are sent from it here): ids, the database, a status word and one
 * sentence of detail. Never holds data, keys or connection strings.
 */
export type TrustAlert = {
  event: TrustEvent;
  organizationId: string;
  occurredAt: string;
  backupId: string | null;
  restoreId: string | null;
  agentId: string | null;
  databaseName: string;
  status: string;
  detail: string;
};

/** Something that happened which other modules (agents, realtime) react to. */
export type AppEvent =
  /** An alert was raised (verification, anomaly, drill): channels beyond e-mail subscribe here. */
  | { type: "alert"; alert: TrustAlert }
  | { type: "userDeleted"; userId: string }
  | { type: "organizationDeleted"; organizationId: string }
  /** An agent is about to be removed for good: its unfinished work fails with `reason` while the rows still name it. */
  | { type: "agentRemoving"; agentId: string; reason: string };

type Handler<T extends AppEvent["type"]> = (event: Extract<AppEvent, { type: T }>) => void | Promise<void>;

export type EventBus = {
  /** Delivers the event to every handler of its type; a failing handler is logged, not thrown. */
  emit(event: AppEvent): Promise<void>;
  on<T extends AppEvent["type"]>(type: T, handler: Handler<T>): () => void;
};

/** An in-process event bus. */
export function createEventBus(onHandlerError: (error: unknown, event: AppEvent) => void): EventBus {
  const handlers = new Map<string, Set<(event: AppEvent) => void | Promise<void>>>();
  return {
    async emit(event) {
      for (const handler of handlers.get(event.type) ?? []) {
        try {
          await handler(event);
        } catch (error) {
          onHandlerError(error, event);
        }
      }
    },
    on(type, handler) {
      const set = handlers.get(type) ?? new Set();
      handlers.set(type, set);
      const wrapped = handler as (event: AppEvent) => void | Promise<void>;
      set.add(wrapped);
      return () => set.delete(wrapped);
    },
  };
}
