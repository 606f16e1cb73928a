import { and, eq } from "drizzle-orm";
import { agents } from "@db/schema";
import { AGENT_REMOVED_CLOSE_CODE, AGENT_REMOVED_MESSAGE } from "@protocol/agent-protocol";
import type { AppContext } from "../../context";
import { notFound } from "../../lib/errors";
import { type AuditActor, recordAudit } from "../audit/service";
import { handOverDatabases } from "../databases/declared";
import { recordRemovedAgent } from "./removed-agents";

const REMOVED_REASON = "The agent was removed from DBVault.";

/**
 * Removes an agent for good: its row (and so its token) goes, its live socket is told to stop
 * (AGENT_REMOVED_CLOSE_CODE, on whichever instance holds it), work it had in hand fails with a
 * reason, and past backups stay (their agent becomes unknown). `ownerId` limits it to that
 * user's agents (404 otherwise, as for an agent that does not exist); null is an admin's removal.
 */
export async function removeAgent(ctx: AppContext, agentId: string, options: { ownerId: string | null; removedBy: string; actor?: AuditActor }) {
  const ownership = options.ownerId === null ? eq(agents.id, agentId) : and(eq(agents.id, agentId), eq(agents.organizationId, options.ownerId));
  const [agent] = await ctx.db.select().from(agents).where(ownership);
  if (!agent) throw notFound("Agent");

  // Its unfinished work fails first, while the rows still name the agent: the modules owning that
  // work react (subscriptions.ts), since they read which agent can open a backup from this one.
  await ctx.events.emit({ type: "agentRemoving", agentId: agent.id, reason: REMOVED_REASON });

  // Its databases pass to another agent holding them, rather than to none.
  const [removed] = await ctx.db.transaction(async (tx) => {
    await handOverDatabases(tx, agent.id, { onlineOnly: false });
    await recordRemovedAgent(tx, agent.id);
    return tx.delete(agents).where(eq(agents.id, agent.id)).returning({ id: agents.id });
  });
  if (!removed) throw notFound("Agent"); // removed meanwhile by another request
  await recordAudit(
    ctx.db,
    agent.organizationId,
    "AGENT_REMOVED",
    {
      agentId: agent.id,
      name: agent.name,
      hostname: agent.hostname,
      removedBy: options.removedBy,
    },
    options.actor,
  );
  await ctx.bus.publish({
    kind: "agent.disconnect",
    organizationId: agent.organizationId,
    agentId: agent.id,
    reason: AGENT_REMOVED_MESSAGE,
    closeCode: AGENT_REMOVED_CLOSE_CODE,
  });
  ctx.log.info("agent removed", { organizationId: agent.organizationId, agentId: agent.id, removedBy: options.removedBy });
  return { message: `The agent "${agent.name}" was removed. Its backups are kept.` };
}
