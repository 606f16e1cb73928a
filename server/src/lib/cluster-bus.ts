import type { Database } from "@db/client";
import type { Logger } from "./logger";

const CHANNEL = "dbvault_bus";

/**
 * What one server instance tells all the others (and itself) through Postgres LISTEN/NOTIFY:
 * a command for an agent whose socket may be held by another instance, an event for a user's
 * browsers, or an order to drop sockets.
 */
export type BusMessage =
  /** `sealed`: the command's secrets, sealed (lib/agent-commands.ts), merged back in by the instance holding the socket. */
  | { kind: "agent.send"; agentId: string; message: Record<string, unknown>; sealed?: string }
  /** The agent has jobs in the ledger (modules/agent-jobs/): the instance holding its socket reads and sends them. */
  | { kind: "agent.work"; agentId: string }
  | { kind: "agent.disconnect"; organizationId: string; agentId?: string; reason: string; closeCode?: number }
  /** To the browser sockets open in the organization, every member's. */
  | { kind: "browser.event"; organizationId: string; event: Record<string, unknown> }
  /** Closes a user's sockets: all of them, or only those open in `organizationId` (membership ended or changed). */
  | { kind: "browser.disconnect"; userId: string; organizationId?: string; reason: string };

export type ClusterBus = {
  publish(message: BusMessage): Promise<void>;
  subscribe(handler: (message: BusMessage) => void): () => void;
  /** Starts listening; call once at start-up. */
  start(): Promise<void>;
  stop(): Promise<void>;
};

export function createClusterBus(database: Database, log: Logger): ClusterBus {
  const handlers = new Set<(message: BusMessage) => void>();
  let unlisten: (() => Promise<void>) | null = null;
  return {
    async publish(message) {
      await database.notify(CHANNEL, JSON.stringify(message));
    },
    subscribe(handler) {
      handlers.add(handler);
      return () => handlers.delete(handler);
    },
    async start() {
      unlisten = await database.listen(CHANNEL, (payload) => {
        let message: BusMessage;
        try {
          message = JSON.parse(payload) as BusMessage;
        } catch {
          log.warn("ignored a malformed bus message");
          return;
        }
        for (const handler of handlers) {
          try {
            handler(message);
          } catch (error) {
            log.error("bus handler failed", { kind: message.kind, error });
          }
        }
      });
    },
    async stop() {
      await unlisten?.();
      unlisten = null;
    },
  };
}
