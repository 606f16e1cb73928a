import type { ServerMessage } from "@protocol/agent-protocol";
import type { ClusterBus } from "./cluster-bus";

/**
 * Sends a command to an agent over whichever server instance holds its socket (the cluster bus;
 * modules/agent-link/gateway.ts delivers it). Fire and forget: an agent offline gets nothing, and
 * the job it names is failed by the sweep if it never starts.
 */
export async function sendToAgent(ctx: { bus: ClusterBus }, agentId: string, message: ServerMessage) {
  await ctx.bus.publish({ kind: "agent.send", agentId, message });
}
