import { and, eq, isNotNull, type SQL, sql } from "drizzle-orm";
import type { DbOrTx } from "@db/client";
import { agents, removedAgents } from "@db/schema";

/**
 * Keeps, for the agents `which` selects, the hash of the token each held, before their rows go:
 * only that token is later told the agent was removed (agent-link/agent-auth.ts). Call it in the
 * transaction that deletes them (an agent's removal, or its account's or team's deletion).
 */
async function recordRemoved(tx: DbOrTx, which: SQL | undefined) {
  const rows = await tx
    .select({ agentId: agents.id, organizationId: agents.organizationId, tokenHash: agents.tokenHash })
    .from(agents)
    .where(and(which, isNotNull(agents.tokenHash)));
  const kept = rows.flatMap((row) => (row.tokenHash ? [{ agentId: row.agentId, organizationId: row.organizationId, tokenHash: row.tokenHash }] : []));
  if (kept.length === 0) return;
  await tx
    .insert(removedAgents)
    .values(kept)
    .onConflictDoUpdate({ target: removedAgents.agentId, set: { tokenHash: sql`excluded.token_hash`, removedAt: new Date() } });
}

export const recordRemovedAgent = (tx: DbOrTx, agentId: string) => recordRemoved(tx, eq(agents.id, agentId));

/** Every agent of an organization about to be deleted (an account's personal one, or a team). */
export const recordRemovedAgentsOf = (tx: DbOrTx, organizationId: string) => recordRemoved(tx, eq(agents.organizationId, organizationId));
