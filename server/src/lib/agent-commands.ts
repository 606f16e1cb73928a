import type { ServerMessage } from "@protocol/agent-protocol";
import type { ClusterBus } from "./cluster-bus";
import type { SecretBox } from "./secret-box";

/**
 * Sends a command to an agent over whichever server instance holds its socket (the cluster bus;
 * modules/agent-link/gateway.ts delivers it), for commands nothing keeps: restart, reset, the
 * shipped-databases list. Backups, restores, drills, verifications and updates go through the job
 * ledger instead (modules/agent-jobs/), which survives a lost socket and has no size limit: a bus
 * message must stay under NOTIFY's 8,000 bytes. Fire and forget: an agent offline gets nothing.
 * The bus is the database's LISTEN/NOTIFY: a secret in a command crosses it sealed under a key
 * derived from API_KEY_SECRET, which the database does not hold.
 */
export async function sendToAgent(ctx: { bus: ClusterBus; commandBox: SecretBox }, agentId: string, message: ServerMessage) {
  if (message.type === "restore" && message.sealedIdentity !== undefined) {
    const { sealedIdentity, ...rest } = message;
    await ctx.bus.publish({ kind: "agent.send", agentId, message: rest, sealed: ctx.commandBox.seal(JSON.stringify({ sealedIdentity })) });
    return;
  }
  await ctx.bus.publish({ kind: "agent.send", agentId, message });
}

/** The command as the agent gets it: the bus's message with its sealed secrets opened. */
export function openAgentCommand(box: SecretBox, message: Record<string, unknown>, sealed: string | undefined): ServerMessage {
  return (sealed === undefined ? message : { ...message, ...(JSON.parse(box.open(sealed)) as Record<string, unknown>) }) as ServerMessage;
}
