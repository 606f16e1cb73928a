// The admin console's plan editor: how far back point-in-time recovery reaches on a plan. Agents
// of the plan's users are told at once which databases they ship, so a window set to 0 stops it.
import { and, eq } from "drizzle-orm";
import { databases, organizations } from "@db/schema";
import type { AppContext } from "../../context";
import { findPlan, setPlanPitrWindow, toPlanView } from "../plans/service";
import { announceShippedDatabases } from "../databases/shipped-databases";
import { lockInPitrWindows } from "../backup-protection/locked-window";

export async function updatePlanPitrWindow(ctx: AppContext, planId: string, pitrWindowHours: number) {
  const plan = await findPlan(ctx.db, planId);
  // Protected organizations on the plan keep at least the window they have now (Protect backups).
  await lockInPitrWindows(ctx, { planId: plan.id });
  const updated = await setPlanPitrWindow(ctx.db, plan.id, pitrWindowHours);
  if (plan.pitrWindowHours > 0 !== pitrWindowHours > 0) {
    const runners = await ctx.db
      .selectDistinct({ agentId: databases.agentId })
      .from(databases)
      .innerJoin(organizations, eq(organizations.id, databases.organizationId))
      .where(and(eq(organizations.planId, plan.id), eq(databases.pitrEnabled, true)));
    for (const { agentId } of runners) if (agentId) await announceShippedDatabases(ctx, agentId);
  }
  return toPlanView(updated);
}
