// The per-database "Point-in-time recovery" switch: on only where the plan offers it, and the
// database's agent is told at once which databases it ships (and again each time it connects).
import { and, eq, gt } from "drizzle-orm";
import { databases, plans, users } from "@db/schema";
import type { AppContext } from "../../context";
import { sendToAgent } from "../../lib/agent-commands";
import { AppError, notFound } from "../../lib/errors";
import type { AuthenticatedUser } from "../auth/guard";
import { refuseIfProtected } from "../backup-protection/check";
import { planOfUser } from "../plans/service";
import { listDatabases } from "../settings/service";

/** The names of the databases an agent runs whose oplog it ships: switched on, active, on a plan that offers it. */
export async function listShippedDatabases(ctx: AppContext, agentId: string): Promise<string[]> {
  const rows = await ctx.db
    .select({ name: databases.name })
    .from(databases)
    .innerJoin(users, eq(users.id, databases.userId))
    .innerJoin(plans, eq(plans.id, users.planId))
    .where(and(eq(databases.agentId, agentId), eq(databases.pitrEnabled, true), eq(databases.isActive, true), gt(plans.pitrWindowHours, 0)));
  return rows.map((row) => row.name).sort();
}

/** Tells an agent which databases it ships now (it stops the others). */
export async function announceShippedDatabases(ctx: AppContext, agentId: string): Promise<void> {
  await sendToAgent(ctx, agentId, { type: "pitr", databases: await listShippedDatabases(ctx, agentId) });
}

/**
 * Switches point-in-time recovery of one of the user's databases and answers them all; 403
 * PLAN_LIMIT when the plan does not offer it; 409 BACKUPS_PROTECTED when turning it off under
 * "Protect backups" (no new slices would be kept: the window of restorable moments would close).
 */
export async function setPointInTimeRecovery(ctx: AppContext, user: AuthenticatedUser, databaseId: string, enabled: boolean) {
  const [database] = await ctx.db
    .select()
    .from(databases)
    .where(and(eq(databases.id, databaseId), eq(databases.userId, user.id)));
  if (!database) throw notFound("Database");
  const plan = await planOfUser(ctx.db, user.planId);
  if (enabled && plan.pitrWindowHours <= 0) {
    throw new AppError(403, "PLAN_LIMIT", `Your ${plan.name} plan does not include point-in-time recovery. Upgrade your plan to turn it on.`);
  }
  if (!enabled && database.pitrEnabled) await refuseIfProtected(ctx, user.id, { kind: "turn-off-pitr" });
  await ctx.db.update(databases).set({ pitrEnabled: enabled }).where(eq(databases.id, database.id));
  if (database.agentId) await announceShippedDatabases(ctx, database.agentId);
  return listDatabases(ctx, user.id);
}
