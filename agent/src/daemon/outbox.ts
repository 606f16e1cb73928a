import type { AgentMessage } from "../../../protocol/agent-protocol";

/**
 * Results the server must not miss (a restore finished or failed, a backup failed) wait here
 * until the socket is up; progress messages are not queued, the next one supersedes them.
 */
export function createOutbox(send: (message: AgentMessage) => void, isConnected: () => boolean) {
  const pending: AgentMessage[] = [];
  const flush = () => {
    while (pending.length > 0 && isConnected()) send(pending.shift()!);
  };
  return {
    /** Sends now if connected, else keeps the message for the next connection. */
    deliver(message: AgentMessage) {
      pending.push(message);
      flush();
    },
    flush,
    size: () => pending.length,
  };
}
