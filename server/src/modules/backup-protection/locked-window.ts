// Point-in-time recovery's window under "Protect backups": slice pruning (pitr/retention.ts) keeps
// the longer of the plan's window and the one protection locked in. The lock is the plan's window
// when protection was turned on, raised to the plan's each time a plan is about to change (the
// admin console's plan editor, a plan switch), so that no plan change shortens what a protected
// organization keeps: the owner alone may shorten it, by turning protection off (7 days' wait).
import { and, eq, inArray, isNull, or } from "drizzle-orm";
import { backupProtections, organizations } from "@db/schema";
import type { AppContext } from "../../context";
import { planOfUser } from "../plans/service";

/**
 * Raises the locked window of the protected organizations given (by id, or all on a plan) to
 * their plan's window now, before that plan changes. Organizations without protection are left alone.
 */
export async function lockInPitrWindows(ctx: AppContext, which: { organizationId: string } | { planId: string }) {
  const onPlan =
    "planId" in which
      ? (await planOfUser(ctx.db, null)).id === which.planId
        ? or(eq(organizations.planId, which.planId), isNull(organizations.planId))
        : eq(organizations.planId, which.planId)
      : eq(organizations.id, which.organizationId);
  const rows = await ctx.db
    .select({ organizationId: organizations.id, planId: organizations.planId, locked: backupProtections.pitrWindowHours })
    .from(backupProtections)
    .innerJoin(organizations, eq(organizations.id, backupProtections.organizationId))
    .where(onPlan);
  for (const row of rows) {
    const window = (await planOfUser(ctx.db, row.planId)).pitrWindowHours;
    if ((row.locked ?? 0) >= window) continue;
    await ctx.db.update(backupProtections).set({ pitrWindowHours: window }).where(eq(backupProtections.organizationId, row.organizationId));
  }
}

/** The window slices of these organizations are kept for: the plan's, or the longer one protection locked in while it is on. */
export async function keptPitrWindows(ctx: AppContext, organizationIds: string[]): Promise<Map<string, number>> {
  if (organizationIds.length === 0) return new Map();
  const rows = await ctx.db
    .select()
    .from(backupProtections)
    .where(and(inArray(backupProtections.organizationId, organizationIds)));
  const now = ctx.now().getTime();
  // A turn-off past its date is off (state.ts): what it locked in no longer holds.
  return new Map(rows.filter((row) => !row.offAt || row.offAt.getTime() > now).map((row) => [row.organizationId, row.pitrWindowHours ?? 0]));
}
