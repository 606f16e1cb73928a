import { and, asc, count, eq, ne, sum } from "drizzle-orm";
import { agents, backupProtections, backups, organizations, plans, users } from "@db/schema";
import { AGENT_REMOVED_CLOSE_CODE } from "@protocol/agent-protocol";
import { formatBytes } from "@protocol/format";
import type { AppContext } from "../../context";
import { badRequest, conflict, notFound } from "../../lib/errors";
import { recordAudit } from "../audit/service";
import { refuseIfProtected } from "../backup-protection/check";
import { toProtectionView } from "../backup-protection/service";
import { stateOfRow } from "../backup-protection/state";
import type { AuthenticatedUser } from "../auth/guard";
import { normaliseEmail } from "../auth/service";
import { findPlan, toPlanView } from "../plans/service";
import { switchPlan } from "../users/service";
import { type AccountChanges, deleteAccountRow, updateAccount } from "../users/account-rows";
import { removeAgent } from "../agents/remove-agent";
import { recordRemovedAgentsOf } from "../agents/removed-agents";
import { disconnectUserAgents, toAgentView } from "../agents/service";
import { endBrowserSessions } from "../../lib/browser-events";
import { removeTwoFactor } from "../two-factor/service";
import { refuseIfOnlyOwner } from "../organizations/sole-owner";
import { deletePersonalOrganization } from "../organizations/rows";

export const DEFAULT_BAN_REASON = "Policy violation";
/** What a deleted account's agents are told as they are disconnected for good. */
export const ACCOUNT_DELETED_MESSAGE = "This DBVault account was deleted.";

type UserRow = typeof users.$inferSelect;
type PlanRow = typeof plans.$inferSelect;

type ProtectionRow = typeof backupProtections.$inferSelect;

// A user's plan, storage and protection are their personal organization's (sharing their id).
function toAdminUserView(ctx: AppContext, user: UserRow, personal: { storageUsed: number } | null, plan: PlanRow | null, protection: ProtectionRow | null) {
  return {
    _id: user.id,
    id: user.id,
    name: user.name,
    email: user.email,
    role: user.role,
    status: user.status,
    isBanned: user.isBanned,
    banReason: user.banReason,
    bannedAt: user.bannedAt?.toISOString() ?? null,
    plan: plan ? toPlanView(plan) : null,
    storageUsed: personal?.storageUsed ?? 0,
    backupProtection: toProtectionView(stateOfRow(protection, ctx.now())),
    createdAt: user.createdAt.toISOString(),
  };
}

export async function listUsers(ctx: AppContext) {
  const rows = await ctx.db
    .select({ user: users, personal: { storageUsed: organizations.storageUsed }, plan: plans, protection: backupProtections })
    .from(users)
    .leftJoin(organizations, eq(organizations.id, users.id))
    .leftJoin(plans, eq(organizations.planId, plans.id))
    .leftJoin(backupProtections, eq(backupProtections.organizationId, users.id))
    .orderBy(asc(users.createdAt), asc(users.id));
  return rows.map((row) => toAdminUserView(ctx, row.user, row.personal, row.plan, row.protection));
}

async function findUser(ctx: AppContext, userId: string): Promise<UserRow> {
  const [user] = await ctx.db.select().from(users).where(eq(users.id, userId));
  if (!user) throw notFound("User");
  return user;
}

async function adminUserView(ctx: AppContext, userId: string) {
  const user = await findUser(ctx, userId);
  const personal = await findPersonalOrganization(ctx, userId);
  const [plan] = personal?.planId ? await ctx.db.select().from(plans).where(eq(plans.id, personal.planId)) : [];
  const [protection] = await ctx.db.select().from(backupProtections).where(eq(backupProtections.organizationId, userId));
  return toAdminUserView(ctx, user, personal, plan ?? null, protection ?? null);
}

async function findPersonalOrganization(ctx: AppContext, userId: string) {
  const [personal] = await ctx.db
    .select({ planId: organizations.planId, storageUsed: organizations.storageUsed })
    .from(organizations)
    .where(and(eq(organizations.id, userId), eq(organizations.personal, true)));
  return personal ?? null;
}

export async function backupStats(ctx: AppContext) {
  const [row] = await ctx.db.select({ totalCount: count(), totalSize: sum(backups.size) }).from(backups);
  const totalSize = Number(row?.totalSize ?? 0);
  return { totalCount: row?.totalCount ?? 0, totalSize, formattedSize: formatBytes(totalSize) };
}

export async function listUserAgents(ctx: AppContext, userId: string) {
  await findUser(ctx, userId);
  const rows = await ctx.db.select().from(agents).where(eq(agents.organizationId, userId)).orderBy(asc(agents.createdAt));
  return rows.map(toAgentView);
}

type UserUpdate = { plan?: string; role?: string; status?: string; email?: string };

/** An admin's change to a user's plan, role, status or e-mail. Admins cannot demote or deactivate themselves. */
export async function updateUser(ctx: AppContext, admin: AuthenticatedUser, userId: string, input: UserUpdate) {
  const user = await findUser(ctx, userId);
  if (user.id === admin.id && input.role === "user") throw badRequest("You cannot remove your own admin role.");
  if (user.id === admin.id && input.status === "inactive") throw badRequest("You cannot deactivate your own account.");
  const personal = input.plan === undefined ? null : await findPersonalOrganization(ctx, user.id);
  if (input.plan !== undefined && personal && input.plan !== personal.planId) {
    await switchPlan(ctx, user.id, await findPlan(ctx.db, input.plan), "admin");
  }
  const changes: AccountChanges = {};
  if (input.role !== undefined) changes.role = input.role as UserRow["role"];
  if (input.status !== undefined) changes.status = input.status as UserRow["status"];
  if (input.email !== undefined) {
    const email = normaliseEmail(input.email);
    if (email !== user.email) {
      const [taken] = await ctx.db
        .select({ id: users.id })
        .from(users)
        .where(and(eq(users.email, email), ne(users.id, user.id)));
      if (taken) throw conflict("An account with this email already exists.");
      changes.email = email;
    }
  }
  // Inactive: signed out everywhere now, sign-in and new agents refused (auth/guard.ts
  // accountRefusal); agents already set up keep backing up. Active again: sign-in works again.
  const deactivated = changes.status === "inactive" && user.status !== "inactive";
  if (Object.keys(changes).length > 0) {
    await ctx.db.transaction(async (tx) => {
      await updateAccount(tx, user.id, changes, { endTokens: deactivated, updatedAt: ctx.now() });
      if (changes.email) await recordAudit(tx, user.id, "EMAIL_CHANGED", { from: user.email, to: changes.email, by: "admin" });
    });
  }
  if (deactivated) {
    ctx.log.info("user deactivated", { userId: user.id, adminId: admin.id });
    await endBrowserSessions(ctx, user.id, "account deactivated");
  }
  return adminUserView(ctx, user.id);
}

/** Bans (with a reason, 'Policy violation' by default) or unbans a user. */
export async function setBan(ctx: AppContext, admin: AuthenticatedUser, userId: string, input: { isBanned: boolean; banReason?: string | null }) {
  const user = await findUser(ctx, userId);
  if (user.id === admin.id && input.isBanned) throw badRequest("You cannot ban your own account.");
  // While banned, old tokens get 403 with the reason (the banned page); unbanning moves the token
  // version on, so no token from before the ban works again.
  const values = input.isBanned
    ? { isBanned: true, banReason: input.banReason?.trim() || DEFAULT_BAN_REASON, bannedAt: ctx.now() }
    : { isBanned: false, banReason: null, bannedAt: null };
  const updated = await updateAccount(ctx.db, user.id, values, { endTokens: !input.isBanned && user.isBanned, updatedAt: ctx.now() });
  ctx.log.info(input.isBanned ? "user banned" : "user unbanned", { userId: user.id, adminId: admin.id });
  if (input.isBanned) {
    await endBrowserSessions(ctx, user.id, "account suspended");
    await disconnectUserAgents(ctx, user.id, "This DBVault account has been suspended.");
  }
  return {
    isBanned: updated!.isBanned,
    banReason: updated!.banReason,
    bannedAt: updated!.bannedAt?.toISOString() ?? null,
  };
}

/**
 * Turns a user's two-factor sign-in off, for someone who lost both their authenticator and their
 * recovery codes (after the admin has checked who is asking, outside the product).
 */
export async function resetTwoFactor(ctx: AppContext, admin: AuthenticatedUser, userId: string) {
  const user = await findUser(ctx, userId);
  if (!user.totpSecretCiphertext) throw badRequest("Two-factor sign-in is already off for this user.");
  await removeTwoFactor(ctx, user.id, "admin");
  ctx.log.info("two-factor sign-in reset", { userId: user.id, adminId: admin.id });
  return { message: "Two-factor sign-in turned off for this user." };
}

export async function deleteAgent(ctx: AppContext, admin: AuthenticatedUser, agentId: string) {
  return removeAgent(ctx, agentId, { ownerId: null, removedBy: admin.id });
}

/** Deletes a user and, through the foreign keys, all their data; stored backup files follow. */
export async function deleteUser(ctx: AppContext, admin: AuthenticatedUser, userId: string) {
  if (userId === admin.id) throw badRequest("You cannot delete your own account from the admin console.");
  await findUser(ctx, userId);
  await refuseIfOnlyOwner(ctx, userId);
  await refuseIfProtected(ctx, userId, { kind: "delete-account" });
  // Handlers (e.g. storage clean-up) run before the rows that point at the files are gone.
  await ctx.events.emit({ type: "userDeleted", userId });
  await ctx.db.transaction(async (tx) => {
    // Its personal organization's agents go with it: only their own tokens are told so later.
    await recordRemovedAgentsOf(tx, userId);
    await deleteAccountRow(tx, userId);
    await deletePersonalOrganization(tx, userId);
  });
  // After the rows are gone, so closing the sockets records nothing for the deleted account. The
  // removal close code makes its agents stop instead of retrying an API key that no longer exists.
  await disconnectUserAgents(ctx, userId, ACCOUNT_DELETED_MESSAGE, { closeCode: AGENT_REMOVED_CLOSE_CODE });
  await endBrowserSessions(ctx, userId, "account deleted");
  ctx.log.info("user deleted", { userId, adminId: admin.id });
  return { message: "User deleted" };
}
