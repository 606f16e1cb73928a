import { and, asc, eq, inArray } from "drizzle-orm";
import type { DbOrTx } from "@db/client";
import { databases, settings } from "@db/schema";
import { clampFrequency, clampRetention, type PlanLimits } from "@protocol/schedule";

/**
 * Brings a user's settings and databases within a plan's limits, e.g. after a downgrade:
 * frequency and retention move to the nearest allowed choice, and only the oldest `dbLimit`
 * active databases stay active.
 */
export async function applyPlanLimits(db: DbOrTx, userId: string, plan: PlanLimits) {
  const [current] = await db.select().from(settings).where(eq(settings.userId, userId));
  if (current) {
    const frequency = clampFrequency(current.frequency, plan);
    const retention = clampRetention(current.retention, plan);
    if (frequency !== current.frequency || retention !== current.retention) {
      await db.update(settings).set({ frequency, retention }).where(eq(settings.userId, userId));
    }
  }
  const active = await db
    .select({ id: databases.id })
    .from(databases)
    .where(and(eq(databases.userId, userId), eq(databases.isActive, true)))
    .orderBy(asc(databases.createdAt), asc(databases.id));
  const beyondLimit = active.slice(Math.max(0, plan.dbLimit)).map((row) => row.id);
  if (beyondLimit.length > 0) {
    await db.update(databases).set({ isActive: false }).where(inArray(databases.id, beyondLimit));
  }
}
