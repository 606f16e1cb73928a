// The one place that says whether "Protect backups" lets a change through. Every path that could
// destroy or shorten the life of a kept backup asks refuseIfProtected before it acts, whoever asks
// (the user, an admin, an API key): deleting a backup or an account, saving shorter retention,
// a plan change that shortens it. Features not built yet call it too: turning point-in-time
// recovery off ("turn-off-pitr") and removing a copy destination ("remove-copy-destination").
// Retention's own passes do not ask: what has expired goes.
import { and, eq } from "drizzle-orm";
import { memberships } from "@db/schema";
import type { AppContext } from "../../context";
import { AppError } from "../../lib/errors";
import { planOfUser } from "../plans/service";
import { policyOf, type RetentionPolicy } from "../retention-rules/policy";
import { policyOfUser } from "../retention-rules/user-policy";
import { shortensRetention } from "./retention-shortening";
import { formatWhen, type ProtectionState, protectionOf, TURN_OFF_WAIT_MS } from "./state";

const HOUR = 3_600_000;
/** The settings table's defaults, for an account whose row was never made. */
const DEFAULT_RETENTION = { retentionMode: "age", retention: 72, gfsDaily: 7, gfsWeekly: 4, gfsMonthly: 6 } as const;

export type ProtectedChange =
  | { kind: "delete-backup"; backup: { status: string; createdAt: Date } }
  /** Letting retention decide about a kept-forever backup again (it could then delete it). */
  | { kind: "unkeep-backup" }
  | { kind: "delete-account" }
  | { kind: "delete-organization" }
  /** New retention settings, as the policy they make (retention-rules/policy.ts policyOf). */
  | { kind: "change-retention"; to: RetentionPolicy }
  /** The user's own; an admin's reset for a lost authenticator stays possible (the owner is checked outside the product). */
  | { kind: "turn-off-two-factor" }
  | { kind: "turn-off-pitr" }
  | { kind: "remove-copy-destination" };

/** The user's retention policy (on another plan, when given); the defaults for an account that never saved settings. */
async function retentionOf(ctx: AppContext, organizationId: string, plan?: { retentionLimit: number }): Promise<RetentionPolicy> {
  return (await policyOfUser(ctx, organizationId, { plan })) ?? policyOf(DEFAULT_RETENTION, plan ?? (await planOfUser(ctx.db, null)));
}

/** The retention policy the user would have on another plan: switchPlan asks the check with it. */
export const retentionUnderPlan = (ctx: AppContext, organizationId: string, plan: { retentionLimit: number }) => retentionOf(ctx, organizationId, plan);

/** When retention lets a completed backup go at the latest: its age past the hours, or the plan's limit under GFS. */
const keptUntil = (backup: { createdAt: Date }, policy: RetentionPolicy) =>
  new Date(backup.createdAt.getTime() + (policy.mode === "age" ? policy.hours : policy.limitHours) * HOUR);

const refused = (message: string, possibleFrom: Date) => new AppError(409, "BACKUPS_PROTECTED", message, { possibleFrom: possibleFrom.toISOString() });

/** When turning the policy off takes effect: the date asked for, or 7 days from now if asked now. */
const offDate = (ctx: AppContext, protection: Exclude<ProtectionState, { state: "off" }>) =>
  protection.state === "turning-off" ? protection.offAt : new Date(ctx.now().getTime() + TURN_OFF_WAIT_MS);

const offClause = (ctx: AppContext, protection: Exclude<ProtectionState, { state: "off" }>) =>
  protection.state === "turning-off"
    ? `when turning Protect backups off takes effect on ${formatWhen(protection.offAt)}`
    : `at the earliest 7 days after Protect backups is turned off in Settings → Security (${formatWhen(offDate(ctx, protection))} if asked now)`;

/**
 * Throws 409 BACKUPS_PROTECTED, saying from when the change becomes possible (`possibleFrom`),
 * when the user's policy is on (or waiting to turn off) and the change would destroy a kept backup
 * or let one go earlier. Answers quietly otherwise.
 */
export async function refuseIfProtected(ctx: AppContext, organizationId: string, change: ProtectedChange): Promise<void> {
  const protection = await protectionOf(ctx, organizationId);
  if (protection.state === "off") return;
  const prefix = "Protect backups is on for this account";
  switch (change.kind) {
    case "delete-backup": {
      // A failed or unfinished backup holds no data to protect; other rules decide about it.
      if (change.backup.status !== "completed") return;
      const policy = await retentionOf(ctx, organizationId);
      const until = keptUntil(change.backup, policy);
      if (until.getTime() <= ctx.now().getTime()) return;
      const off = offDate(ctx, protection);
      if (protection.state === "turning-off" && off < until) {
        throw refused(`${prefix}: this backup cannot be deleted before ${formatWhen(off)}, when turning the protection off takes effect.`, off);
      }
      // GFS may let a backup go sooner (a newer pick of its period), but no later than the plan's limit.
      const when = policy.mode === "age" ? "when its retention lets it go" : "the longest its GFS retention may keep it";
      throw refused(`${prefix}: this backup is kept until ${formatWhen(until)}, ${when}. It cannot be deleted before then.`, until);
    }
    case "unkeep-backup":
      throw refused(
        `${prefix}: a backup kept forever cannot be un-kept, as retention could then delete it. It can be un-kept when the protection is off, ${offClause(ctx, protection)}.`,
        offDate(ctx, protection),
      );
    case "delete-account":
      throw refused(
        `${prefix}: the account and its backups cannot be deleted until the protection is off, ${offClause(ctx, protection)}.`,
        offDate(ctx, protection),
      );
    case "delete-organization":
      throw refused(
        `${prefix}: the organization and its backups cannot be deleted until the protection is off, ${offClause(ctx, protection)}.`,
        offDate(ctx, protection),
      );
    case "change-retention":
      if (!shortensRetention(await retentionOf(ctx, organizationId), change.to)) return;
      throw refused(
        `${prefix}: retention cannot be shortened, as kept backups would expire earlier. Keep or lengthen it; a shorter retention is possible ${offClause(ctx, protection)}.`,
        offDate(ctx, protection),
      );
    case "turn-off-two-factor":
      throw refused(
        `${prefix}, and it needs two-factor sign-in: that stays on until the protection is off, ${offClause(ctx, protection)}.`,
        offDate(ctx, protection),
      );
    case "turn-off-pitr":
      throw refused(
        `${prefix}: point-in-time recovery cannot be turned off until the protection is off, ${offClause(ctx, protection)}.`,
        offDate(ctx, protection),
      );
    case "remove-copy-destination":
      throw refused(`${prefix}: a copy destination cannot be removed until the protection is off, ${offClause(ctx, protection)}.`, offDate(ctx, protection));
  }
}

/**
 * Turning two-factor sign-in off: refused while Protect backups is on in any organization the
 * user owns (personal or team), since an owner's password alone could then turn it off there.
 */
export async function refuseTwoFactorOffWhileProtected(ctx: AppContext, userId: string): Promise<void> {
  const owned = await ctx.db
    .select({ organizationId: memberships.organizationId })
    .from(memberships)
    .where(and(eq(memberships.userId, userId), eq(memberships.role, "owner")));
  for (const { organizationId } of owned) await refuseIfProtected(ctx, organizationId, { kind: "turn-off-two-factor" });
}
