// The organizations a user belongs to (the navbar's switcher), creating a team, renaming and
// deleting one.
import { and, asc, count, desc, eq } from "drizzle-orm";
import { memberships, organizations } from "@db/schema";
import type { AppContext } from "../../context";
import { conflict } from "../../lib/errors";
import { type CurrentOrganization, membershipsOf } from "../organizations/current-organization";
import { lockAsActor } from "./members";
import { closeMemberSockets, recordMembershipChange } from "./membership-effects";
import { AGENT_REMOVED_CLOSE_CODE } from "@protocol/agent-protocol";
import { recordRemovedAgentsOf } from "../agents/removed-agents";
import { disconnectUserAgents } from "../agents/service";
import { refuseIfProtected } from "../backup-protection/check";
import { insertTeamOrganization } from "../organizations/create-team";
import { deleteOrganizationRow, renameOrganizationRow } from "../organizations/rows";
import { requireRole } from "../organizations/roles";
import { refuseMultiLine } from "../../lib/single-line";

export const TEAM_DELETED_MESSAGE = "This agent's DBVault organization was deleted.";

/** A user founds at most this many teams: each is a place invitation mail is sent from. */
export const MAX_OWNED_TEAMS = 20;

/** The user's organizations with their role in each: the personal one first, then teams by name. */
/** The user's organizations for the switcher; a session from single sign-on sees its organization only (`scope`). */
export async function listMyOrganizations(ctx: AppContext, userId: string, scope?: string | null): Promise<CurrentOrganization[]> {
  return membershipsOf(ctx.db)
    .where(and(eq(memberships.userId, userId), scope ? eq(memberships.organizationId, scope) : undefined))
    .orderBy(desc(organizations.personal), asc(organizations.name), asc(organizations.id));
}

/** Creates a team with the user as its owner. */
export async function createTeam(ctx: AppContext, userId: string, name: string): Promise<CurrentOrganization> {
  refuseMultiLine(name, "name");
  const teamName = name.trim();
  return ctx.db.transaction(async (tx) => {
    const [owned] = await tx
      .select({ total: count() })
      .from(memberships)
      .innerJoin(organizations, eq(organizations.id, memberships.organizationId))
      .where(and(eq(memberships.userId, userId), eq(memberships.role, "owner"), eq(organizations.personal, false)));
    if ((owned?.total ?? 0) >= MAX_OWNED_TEAMS) {
      throw conflict(`You already own ${MAX_OWNED_TEAMS} teams, the most one account may. Delete one you no longer use first.`);
    }
    const { organization: team } = await insertTeamOrganization(ctx, tx, { name: teamName, ownerId: userId });
    await recordMembershipChange(tx, { actor: { id: userId, role: "owner" }, organization: team, action: "ORGANIZATION_CREATED" });
    return { id: team.id, name: team.name, personal: false, role: "owner" as const, planId: team.planId, storageUsed: team.storageUsed };
  });
}

/** Renames the current organization (admin+). */
export async function renameOrganization(ctx: AppContext, actorId: string, organization: CurrentOrganization, name: string) {
  requireRole(organization, "admin", "renaming the organization");
  refuseMultiLine(name, "name");
  const newName = name.trim();
  await ctx.db.transaction(async (tx) => {
    await renameOrganizationRow(tx, organization.id, newName);
    await recordMembershipChange(tx, {
      actor: { id: actorId, role: organization.role },
      organization: { id: organization.id, name: newName },
      action: "ORGANIZATION_RENAMED",
      details: { from: organization.name },
    });
  });
  return { ...organization, name: newName };
}

/**
 * Deletes a team (owner only) with everything it owns (through the foreign keys; its stored backup
 * files and agents follow, as for a deleted account), refused while Protect backups is on. Every
 * member loses it at once. A personal organization goes only with its account.
 */
export async function deleteTeam(ctx: AppContext, actorId: string, organization: CurrentOrganization) {
  requireRole(organization, "owner", "deleting the organization");
  if (organization.personal) {
    throw conflict("Your personal organization goes only with your account. To delete a team, switch to it first.");
  }
  await refuseIfProtected(ctx, organization.id, { kind: "delete-organization" });
  // Handlers (storage clean-up) run before the rows that point at the files are gone.
  await ctx.events.emit({ type: "organizationDeleted", organizationId: organization.id });
  const members = await ctx.db.transaction(async (tx) => {
    const { members: locked } = await lockAsActor(tx, organization.id, actorId, "owner", "deleting the organization");
    // The audit entry is the actor's: the organization's own rows go with it.
    await recordMembershipChange(tx, {
      actor: { id: actorId, role: organization.role },
      organization,
      action: "ORGANIZATION_DELETED",
      details: { members: locked.length },
    });
    await recordRemovedAgentsOf(tx, organization.id);
    await deleteOrganizationRow(tx, organization.id);
    return locked;
  });
  for (const member of members) await closeMemberSockets(ctx, organization.id, member.userId);
  await disconnectUserAgents(ctx, organization.id, TEAM_DELETED_MESSAGE, { closeCode: AGENT_REMOVED_CLOSE_CODE });
  return { message: `${organization.name} was deleted.` };
}
