import { eq } from "drizzle-orm";
import type { DbOrTx } from "@db/client";
import { settings } from "@db/schema";
import { recordAudit } from "../audit/service";
import { deactivateBeyondLimit } from "../databases/service";
import { clampFrequency, clampRetention, type PlanLimits } from "@protocol/schedule";

/**
 * Brings a user's settings and databases within a plan's limits, e.g. after a downgrade:
 * frequency and retention move to the nearest allowed choice, and only the oldest `dbLimit`
 * active databases stay active. Answers the new frequency when it moved (the caller reschedules).
 */
export async function applyPlanLimits(db: DbOrTx, organizationId: string, plan: PlanLimits): Promise<{ frequencyChanged: number | null }> {
  const [current] = await db.select().from(settings).where(eq(settings.organizationId, organizationId));
  let frequencyChanged: number | null = null;
  if (current) {
    const frequency = clampFrequency(current.frequency, plan);
    const retention = clampRetention(current.retention, plan);
    if (frequency !== current.frequency || retention !== current.retention) {
      // A shorter retention applies at the next pass, as when the user saves it.
      await db
        .update(settings)
        .set({ frequency, retention, ...(retention !== current.retention ? { retentionCheckedAt: null } : {}) })
        .where(eq(settings.organizationId, organizationId));
    }
    // The user's audit log says what the plan changed in their settings, as a save there would.
    if (frequency !== current.frequency) {
      await recordAudit(db, organizationId, "FREQUENCY_UPDATED", { from: current.frequency, to: frequency, by: "plan" });
      frequencyChanged = frequency;
    }
    if (retention !== current.retention) {
      await recordAudit(db, organizationId, "RETENTION_UPDATED", { from: current.retention, to: retention, mode: current.retentionMode, by: "plan" });
    }
  }
  await deactivateBeyondLimit(db, organizationId, plan.dbLimit);
  return { frequencyChanged };
}
