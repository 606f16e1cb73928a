// Settings → Team: the members of the current organization, their roles, removal, leaving and
// ownership transfer. Every change runs under the organization's lock and reads the roles again
// inside it, so two changes at once cannot leave the organization without an owner.
import { and, asc, eq } from "drizzle-orm";
import { type MemberRole, memberships, users } from "@db/schema";
import type { Tx } from "@db/client";
import type { AppContext } from "../../context";
import { badRequest, conflict, forbidden, notFound } from "../../lib/errors";
import { lockUntilCommit } from "../../lib/transaction-lock";
import { type CurrentOrganization, NOT_A_MEMBER_MESSAGE } from "../organizations/current-organization";
import { closeMemberSockets, recordMembershipChange } from "./membership-effects";
import { ROLE_LABELS, requireRole, roleAtLeast } from "../organizations/roles";
import { refuseWithoutBreakGlass } from "../organizations/sso-required";
import { deleteMembership, setMemberRole } from "../organizations/rows";
import type { ConfirmOwnerChange } from "./owner-changes";

export const LAST_OWNER_MESSAGE =
  "An organization always keeps at least one owner. Make another member an owner first (or transfer ownership), then try again.";

/** The organization's members with their roles, read under its lock (until the transaction ends). */
export async function lockMemberships(tx: Tx, organizationId: string) {
  await lockUntilCommit(tx, `organization-members:${organizationId}`);
  return tx
    .select({ userId: memberships.userId, role: memberships.role, name: users.name, email: users.email })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(eq(memberships.organizationId, organizationId));
}

type Members = Awaited<ReturnType<typeof lockMemberships>>;

/** The caller's role as it is now (not as the request began), or 403 when they are no longer a member. */
function actorRoleIn(members: Members, actorId: string): MemberRole {
  const actor = members.find((member) => member.userId === actorId);
  if (!actor) throw forbidden(NOT_A_MEMBER_MESSAGE);
  return actor.role;
}

/**
 * Locks the organization's members (lockMemberships) and checks the caller's role as it is now:
 * at least `least` for `action`, or only a member when `least` is null.
 */
export async function lockAsActor(tx: Tx, organizationId: string, actorId: string, least: MemberRole | null, action = "") {
  const members = await lockMemberships(tx, organizationId);
  const actorRole = actorRoleIn(members, actorId);
  if (least) requireRole({ role: actorRole }, least, action);
  return { members, actorRole };
}

function targetIn(members: Members, userId: string) {
  const target = members.find((member) => member.userId === userId);
  if (!target) throw notFound("Member");
  return target;
}

const membership = (organizationId: string, userId: string) => and(eq(memberships.organizationId, organizationId), eq(memberships.userId, userId));

const ROLE_CHANGED_MESSAGE = "This member's role changed meanwhile: reload Settings → Team and try again.";

/** A member's role now, read without the organization's lock (null: not a member). */
async function memberRoleOf(ctx: AppContext, organizationId: string, userId: string): Promise<MemberRole | null> {
  const [row] = await ctx.db.select({ role: memberships.role }).from(memberships).where(membership(organizationId, userId));
  return row?.role ?? null;
}

const ownersIn = (members: Members) => members.filter((member) => member.role === "owner").length;
const nameOf = (member: { name: string; email: string }) => member.name || member.email;

/** Everyone in the organization, owners first, then by the date they joined. */
export async function listMembers(ctx: AppContext, organization: CurrentOrganization, callerId: string) {
  const rows = await ctx.db
    .select({ userId: memberships.userId, role: memberships.role, joinedAt: memberships.createdAt, name: users.name, email: users.email })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(eq(memberships.organizationId, organization.id))
    .orderBy(asc(memberships.createdAt), asc(memberships.userId));
  const rank = (role: MemberRole) => ["owner", "admin", "operator", "viewer"].indexOf(role);
  return rows.sort((a, b) => rank(a.role) - rank(b.role)).map((row) => ({ ...row, joinedAt: row.joinedAt.toISOString(), you: row.userId === callerId }));
}

/**
 * Gives a member another role. Admins manage admins, operators and viewers; only an owner changes
 * an owner's role or makes an owner; the last owner keeps the role (409).
 */
export async function changeMemberRole(
  ctx: AppContext,
  actorId: string,
  organization: CurrentOrganization,
  targetId: string,
  role: MemberRole,
  confirmOwnerChange: ConfirmOwnerChange,
) {
  // Confirmed before the lock is taken (it reads the database); checked again under it.
  // Only an owner may make such a change: anyone else is refused under the lock, unasked.
  const touchesOwner = role === "owner" || (await memberRoleOf(ctx, organization.id, targetId)) === "owner";
  const confirmed = touchesOwner && organization.role === "owner";
  if (confirmed) await confirmOwnerChange();
  const change = await ctx.db.transaction(async (tx) => {
    const { members, actorRole } = await lockAsActor(tx, organization.id, actorId, "admin", "changing a member's role");
    const target = targetIn(members, targetId);
    if (target.role === "owner" && actorRole !== "owner") throw forbidden("Only an owner can change an owner's role.");
    if (role === "owner" && actorRole !== "owner") throw forbidden("Only an owner can make another member an owner.");
    if (target.role === role) return { target, from: role, lowered: false };
    if ((target.role === "owner" || role === "owner") && !confirmed) throw conflict(ROLE_CHANGED_MESSAGE);
    if (target.role === "owner" && ownersIn(members) === 1) throw conflict(LAST_OWNER_MESSAGE);
    await setMemberRole(tx, organization.id, targetId, role);
    if (target.role === "owner") await refuseWithoutBreakGlass(tx, organization.id);
    await recordMembershipChange(tx, {
      actor: { id: actorId, role: actorRole },
      organization,
      action: "MEMBER_ROLE_CHANGED",
      details: { member: target.email, from: target.role, to: role },
    });
    return { target, from: target.role, lowered: !roleAtLeast(role, target.role) };
  });
  if (change.lowered) await closeMemberSockets(ctx, organization.id, targetId);
  return { message: `${nameOf(change.target)} is now ${ROLE_LABELS[role]}.` };
}

/** Removes a member (admin+; an owner only by an owner). Their next request is refused, sockets included. */
export async function removeMember(
  ctx: AppContext,
  actorId: string,
  organization: CurrentOrganization,
  targetId: string,
  confirmOwnerChange: ConfirmOwnerChange,
) {
  const confirmed = targetId !== actorId && organization.role === "owner" && (await memberRoleOf(ctx, organization.id, targetId)) === "owner";
  if (confirmed) await confirmOwnerChange();
  const target = await ctx.db.transaction(async (tx) => {
    const { members, actorRole } = await lockAsActor(tx, organization.id, actorId, "admin", "removing a member");
    if (targetId === actorId) throw badRequest("To leave the organization yourself, use Leave team.");
    const member = targetIn(members, targetId);
    if (member.role === "owner" && actorRole !== "owner") throw forbidden("Only an owner can remove an owner.");
    if (member.role === "owner" && !confirmed) throw conflict(ROLE_CHANGED_MESSAGE);
    await deleteMembership(tx, organization.id, targetId);
    if (member.role === "owner") await refuseWithoutBreakGlass(tx, organization.id);
    await recordMembershipChange(tx, {
      actor: { id: actorId, role: actorRole },
      organization,
      action: "MEMBER_REMOVED",
      details: { member: member.email, role: member.role },
    });
    return member;
  });
  await closeMemberSockets(ctx, organization.id, targetId);
  return { message: `${nameOf(target)} was removed from ${organization.name}. They lose access at once.` };
}

/** The caller leaves the organization; the last owner cannot (409), nor can anyone leave their personal one. */
export async function leaveOrganization(ctx: AppContext, actorId: string, organization: CurrentOrganization) {
  if (organization.personal) throw conflict("Your personal organization is part of your account: it cannot be left.");
  await ctx.db.transaction(async (tx) => {
    const { members, actorRole } = await lockAsActor(tx, organization.id, actorId, null);
    if (actorRole === "owner" && ownersIn(members) === 1) throw conflict(LAST_OWNER_MESSAGE);
    await deleteMembership(tx, organization.id, actorId);
    if (actorRole === "owner") await refuseWithoutBreakGlass(tx, organization.id);
    await recordMembershipChange(tx, { actor: { id: actorId, role: actorRole }, organization, action: "MEMBER_LEFT" });
  });
  await closeMemberSockets(ctx, organization.id, actorId);
  return { message: `You left ${organization.name}.` };
}

/** An owner makes another member owner and becomes an admin. */
export async function transferOwnership(
  ctx: AppContext,
  actorId: string,
  organization: CurrentOrganization,
  targetId: string,
  confirmOwnerChange: ConfirmOwnerChange,
) {
  if (organization.personal) throw conflict("Your personal organization stays yours. Create a team to share ownership.");
  requireRole(organization, "owner", "transferring ownership");
  await confirmOwnerChange();
  const target = await ctx.db.transaction(async (tx) => {
    const { members, actorRole } = await lockAsActor(tx, organization.id, actorId, "owner", "transferring ownership");
    if (targetId === actorId) throw badRequest("Choose another member to transfer ownership to.");
    const member = targetIn(members, targetId);
    await setMemberRole(tx, organization.id, targetId, "owner");
    await setMemberRole(tx, organization.id, actorId, "admin");
    await refuseWithoutBreakGlass(tx, organization.id);
    await recordMembershipChange(tx, {
      actor: { id: actorId, role: actorRole },
      organization,
      action: "OWNERSHIP_TRANSFERRED",
      details: { to: member.email, previousRole: member.role },
    });
    return member;
  });
  await closeMemberSockets(ctx, organization.id, actorId);
  return { message: `${nameOf(target)} now owns ${organization.name}; you are an admin.` };
}
