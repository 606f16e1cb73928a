import { asc, eq } from "drizzle-orm";
import type { Db } from "@db/client";
import { plans } from "@db/schema";
import { AppError, notFound } from "../../lib/errors";
import { defaultPlans } from "./seed";

export type Plan = typeof plans.$inferSelect;

/** The plan as the API shows it. */
export function toPlanView(plan: Plan) {
  return {
    _id: plan.id,
    id: plan.id,
    name: plan.name,
    price: plan.price,
    popular: plan.popular,
    storageLimit: plan.storageLimit,
    dbLimit: plan.dbLimit,
    retentionLimit: plan.retentionLimit,
    frequencyLimit: plan.frequencyLimit,
    pitrWindowHours: plan.pitrWindowHours,
    features: plan.features,
  };
}

export async function listPlans(db: Db): Promise<Plan[]> {
  return db.select().from(plans).orderBy(asc(plans.sortOrder), asc(plans.price));
}

/** Creates the default plans when there are none yet (first start). */
export async function seedPlans(db: Db) {
  const existing = await db.select({ id: plans.id }).from(plans).limit(1);
  if (existing.length > 0) return;
  await db.insert(plans).values(defaultPlans).onConflictDoNothing();
}

/** The plan new accounts get: the cheapest free plan. Throws if the catalogue has none. */
export async function findDefaultPlan(db: Db): Promise<Plan> {
  const [plan] = await db.select().from(plans).where(eq(plans.price, 0)).orderBy(asc(plans.sortOrder)).limit(1);
  if (!plan) throw new AppError(500, "INTERNAL", "No free plan is configured.");
  return plan;
}

export async function findPlan(db: Db, planId: string): Promise<Plan> {
  const [plan] = await db.select().from(plans).where(eq(plans.id, planId));
  if (!plan) throw notFound("Plan");
  return plan;
}

/** A user's plan; users without one (or whose plan was removed) are on the default free plan. */
export async function planOfUser(db: Db, planId: string | null): Promise<Plan> {
  if (planId) {
    const [plan] = await db.select().from(plans).where(eq(plans.id, planId));
    if (plan) return plan;
  }
  return findDefaultPlan(db);
}

/** Sets how far back point-in-time recovery reaches on a plan (the admin console's plan editor); answers the plan as saved. */
export async function setPlanPitrWindow(db: Db, planId: string, pitrWindowHours: number): Promise<Plan> {
  const [updated] = await db.update(plans).set({ pitrWindowHours }).where(eq(plans.id, planId)).returning();
  if (!updated) throw notFound("Plan");
  return updated;
}
