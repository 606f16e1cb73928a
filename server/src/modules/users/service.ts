import { revokeAccountApiTokens } from "../auth/api-tokens";
import { mailSecurityNotice } from "../auth/security-mail";
import { eq } from "drizzle-orm";
import { users } from "@db/schema";
import type { AppContext } from "../../context";
import { AppError } from "../../lib/errors";
import { type AuditActor, actorOf, recordAudit } from "../audit/service";
import { apiKeyShownTo } from "../organizations/api-key";
import type { CurrentOrganization } from "../organizations/current-organization";
import { endBrowserSessions } from "../../lib/browser-events";
import { hashPassword } from "../auth/password";
import { normaliseEmail, revokeResetLinks, toSessionUser } from "../auth/service";
import type { AuthenticatedUser, SessionInfo } from "../auth/guard";
import { requestEmailChange } from "../email-change/service";
import { isRecentlyReauthenticated, requireRecentReauthentication } from "../reauthentication/service";
import { findPlan, planOfUser, type Plan } from "../plans/service";
import { rescheduleUser } from "../databases/schedule";
import { replaceApiKey } from "../organizations/api-key";
import { setOrganizationPlan } from "../organizations/plan";
import { refuseIfProtected, retentionUnderPlan } from "../backup-protection/check";
import { lockInPitrWindows } from "../backup-protection/locked-window";
import { applyPlanLimits } from "../settings/plan-limits";
import { refuseMultiLine } from "../../lib/single-line";

/** The profile: the user, with the current organization's API key, plan and storage. */
export async function toProfile(ctx: AppContext, user: AuthenticatedUser, organization: CurrentOrganization) {
  return {
    ...toSessionUser(ctx, user, await apiKeyShownTo(ctx, organization)),
    plan: organization.planId,
    storageUsed: organization.storageUsed,
    status: user.status,
    createdAt: user.createdAt.toISOString(),
  };
}

export async function getUserPlan(ctx: AppContext, organization: CurrentOrganization) {
  const plan = await planOfUser(ctx.db, organization.planId);
  return { ...planLimitsView(plan), storageUsed: organization.storageUsed };
}

export function planLimitsView(plan: Plan) {
  return {
    _id: plan.id,
    id: plan.id,
    name: plan.name,
    price: plan.price,
    storageLimit: plan.storageLimit,
    dbLimit: plan.dbLimit,
    frequencyLimit: plan.frequencyLimit,
    retentionLimit: plan.retentionLimit,
    pitrWindowHours: plan.pitrWindowHours,
  };
}

/** Moves an organization to another plan and brings its settings and databases within its limits. */
export async function switchPlan(ctx: AppContext, organizationId: string, plan: Plan, by: "user" | "admin", actor?: AuditActor) {
  // A smaller plan clamps retention; under Protect backups that must not let kept backups go.
  await refuseIfProtected(ctx, organizationId, { kind: "change-retention", to: await retentionUnderPlan(ctx, organizationId, plan) });
  // Nor may it shorten the point-in-time window it keeps.
  await lockInPitrWindows(ctx, { organizationId });
  const { frequencyChanged } = await ctx.db.transaction(async (tx) => {
    await setOrganizationPlan(tx, organizationId, plan.id);
    await recordAudit(tx, organizationId, "PLAN_CHANGED", { plan: plan.name, planId: plan.id, by }, actor);
    return applyPlanLimits(tx, organizationId, plan);
  });
  // The slots already planned at the old frequency (the next hour's, after hourly) are moved too,
  // as a frequency saved in Settings moves them: the new plan's limit holds from now on.
  if (frequencyChanged !== null) await rescheduleUser(ctx, organizationId, frequencyChanged);
}

/** A user's own plan change: only free plans, paid ones go through billing. */
export async function changeOwnPlan(ctx: AppContext, user: AuthenticatedUser, organization: CurrentOrganization, planId: string) {
  const plan = await findPlan(ctx.db, planId);
  if (plan.price !== 0) {
    throw new AppError(403, "FORBIDDEN", "Only free plans can be selected here. Please contact support to move to a paid plan.");
  }
  if (plan.id !== organization.planId) await switchPlan(ctx, organization.id, plan, "user", actorOf(user, organization));
  return { message: `Plan updated to ${plan.name}!`, plan: planLimitsView(plan) };
}

/**
 * Updates the name now; a new e-mail needs the current password (and a code, or a recent
 * re-authentication) and takes effect once confirmed by the link mailed to it (email-change/).
 */
export async function updateProfile(
  ctx: AppContext,
  user: AuthenticatedUser,
  organization: CurrentOrganization,
  session: SessionInfo,
  input: { name?: string; email?: string; currentPassword?: string; code?: string },
) {
  refuseMultiLine(input.name, "name");
  const email = input.email === undefined ? user.email : normaliseEmail(input.email);
  let pendingEmail: string | null = null;
  if (email !== user.email) {
    // A recent stamp (from the password or from SSO, whose members may know none) stands for it.
    if (input.currentPassword === undefined && !isRecentlyReauthenticated(ctx, session)) {
      throw new AppError(400, "BAD_REQUEST", "currentPassword: enter your current password to change your e-mail.", { field: "currentPassword" });
    }
    await requireRecentReauthentication(ctx, user, session, { password: input.currentPassword, code: input.code });
    await requestEmailChange(ctx, user, email);
    pendingEmail = email;
  }
  const name = input.name === undefined ? user.name : input.name.trim();
  const [updated] = await ctx.db.update(users).set({ name, updatedAt: ctx.now() }).where(eq(users.id, user.id)).returning();
  return {
    message: pendingEmail
      ? `Profile updated successfully! We sent a link to ${pendingEmail}: your e-mail changes once you open it.`
      : "Profile updated successfully!",
    user: await toProfile(ctx, updated!, organization),
    pendingEmail,
  };
}

/** Changes the password (once re-authenticated: reauthentication/service.ts); every other session ends. */
export async function changePassword(
  ctx: AppContext,
  user: AuthenticatedUser,
  newPassword: string,
  options: { rotateApiKey: boolean; revokeApiTokens: boolean },
) {
  const passwordHash = await hashPassword(newPassword);
  const tokenVersion = user.tokenVersion + 1;
  const { apiKey, revokedApiTokens } = await ctx.db.transaction(async (tx) => {
    await tx.update(users).set({ passwordHash, tokenVersion, updatedAt: ctx.now() }).where(eq(users.id, user.id));
    await revokeResetLinks(tx, user.id, ctx.now());
    await recordAudit(tx, user.id, "PASSWORD_CHANGED");
    return {
      // Whoever learnt the old password may have copied the API key too (it is shown in Settings).
      apiKey: options.rotateApiKey ? await replaceApiKey(ctx, tx, user.id) : undefined,
      revokedApiTokens: options.revokeApiTokens ? await revokeAccountApiTokens(tx, user.id) : 0,
    };
  });
  // The caller's own session carries on with this token; all earlier tokens stop working, and
  // sockets opened with them close (this page reconnects with the new token).
  await endBrowserSessions(ctx, user.id, "password changed");
  await mailSecurityNotice(ctx, user, "Your password was changed", revokedApiTokens);
  return {
    message: "Password updated successfully!",
    token: await ctx.tokens.issue(user.id, tokenVersion),
    ...(apiKey ? { apiKey } : {}),
    revokedApiTokens,
  };
}
