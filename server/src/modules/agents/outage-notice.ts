// One notice per outage of an agent that its databases' scheduled backups are skipped: the agent's
// row holds when it was sent (cleared when the agent connects again, agents/service.ts).
import { and, eq, isNull } from "drizzle-orm";
import { type AgentRow, agents } from "@db/schema";
import type { AppContext } from "../../context";

/**
 * Claims this outage's notice for the agent: its row when this call is the first since the agent
 * went offline, else undefined. One conditional update, so several instances send it once.
 */
export async function claimOutageNotice(ctx: AppContext, agentId: string): Promise<AgentRow | undefined> {
  const [agent] = await ctx.db
    .update(agents)
    .set({ outageNoticeAt: ctx.now() })
    .where(and(eq(agents.id, agentId), isNull(agents.outageNoticeAt)))
    .returning();
  return agent;
}
