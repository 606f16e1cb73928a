import type { AgentMessage } from "../../../protocol/agent-protocol";
import type { DaemonRuntime } from "./runtime.ts";

/** What every job of the daemon works with: the agent's runtime and the two ways to tell the server. */
export type JobContext = {
  runtime: DaemonRuntime;
  /** Results the server must not miss (queued until the socket is up). */
  deliver(message: AgentMessage): void;
  /** Progress, dropped when the socket is down. */
  send(message: AgentMessage): void;
  /** Aborted when the agent stops: the running job fails with the stop's reason. */
  signal: AbortSignal;
};

/** A message for the server: the error's own text, never a stack, trimmed to the protocol's limit. */
export const describeError = (error: unknown) => ((error as Error)?.message || String(error)).slice(0, 1900);
