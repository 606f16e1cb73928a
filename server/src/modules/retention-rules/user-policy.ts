// A user's retention policy as their saved settings and plan make it. Apart from service.ts so that
// modules below backups (backup-protection/check.ts) can read it without an import cycle.
import { eq } from "drizzle-orm";
import { settings, organizations } from "@db/schema";
import type { AppContext } from "../../context";
import { planOfUser } from "../plans/service";
import { policyOf, type RetentionPolicy } from "./policy";

export type SettingsRow = typeof settings.$inferSelect;

/**
 * The user's retention policy (their saved settings, changed by `override`, within their plan or
 * the `plan` given); null without settings.
 */
export async function policyOfUser(
  ctx: AppContext,
  organizationId: string,
  options: { override?: (saved: SettingsRow) => SettingsRow; plan?: { retentionLimit: number } } = {},
): Promise<RetentionPolicy | null> {
  const [row] = await ctx.db
    .select({ settings, planId: organizations.planId })
    .from(settings)
    .innerJoin(organizations, eq(organizations.id, settings.organizationId))
    .where(eq(settings.organizationId, organizationId));
  if (!row) return null;
  const plan = options.plan ?? (await planOfUser(ctx.db, row.planId));
  return policyOf(options.override ? options.override(row.settings) : row.settings, plan);
}
