// Which databases an agent ships the oplog of (point-in-time recovery): told at once when the
// switch or the plan changes, and again each time the agent connects.
import { and, eq, gt } from "drizzle-orm";
import { databases, plans, organizations } from "@db/schema";
import type { AppContext } from "../../context";
import { sendToAgent } from "../../lib/agent-commands";

/** The names of the databases an agent runs whose oplog it ships: switched on, active, on a plan that offers it. */
export async function listShippedDatabases(ctx: AppContext, agentId: string): Promise<string[]> {
  const rows = await ctx.db
    .select({ name: databases.name })
    .from(databases)
    .innerJoin(organizations, eq(organizations.id, databases.organizationId))
    .innerJoin(plans, eq(plans.id, organizations.planId))
    .where(and(eq(databases.agentId, agentId), eq(databases.pitrEnabled, true), eq(databases.isActive, true), gt(plans.pitrWindowHours, 0)));
  return rows.map((row) => row.name).sort();
}

/** Tells an agent which databases it ships now (it stops the others). */
export async function announceShippedDatabases(ctx: AppContext, agentId: string): Promise<void> {
  await sendToAgent(ctx, agentId, { type: "pitr", databases: await listShippedDatabases(ctx, agentId) });
}
