// The admin console's organizations: each with its members and roles, plan and storage, and the
// plan change (the plan belongs to the organization; a user's plan in Users is their personal one's).
import { asc, eq } from "drizzle-orm";
import { memberships, organizations, plans, users } from "@db/schema";
import type { AppContext } from "../../context";
import { notFound } from "../../lib/errors";
import { findPlan, toPlanView } from "../plans/service";
import { switchPlan } from "../users/service";

const ROLE_ORDER = { owner: 0, admin: 1, operator: 2, viewer: 3 } as const;

export async function listOrganizations(ctx: AppContext) {
  const [rows, people] = await Promise.all([
    ctx.db
      .select({ organization: organizations, plan: plans })
      .from(organizations)
      .leftJoin(plans, eq(plans.id, organizations.planId))
      .orderBy(asc(organizations.createdAt), asc(organizations.id)),
    ctx.db
      .select({ organizationId: memberships.organizationId, id: users.id, name: users.name, email: users.email, role: memberships.role })
      .from(memberships)
      .innerJoin(users, eq(users.id, memberships.userId))
      .orderBy(asc(users.email)),
  ]);
  const membersOf = new Map<string, typeof people>();
  for (const member of people) membersOf.set(member.organizationId, [...(membersOf.get(member.organizationId) ?? []), member]);
  return rows.map(({ organization, plan }) => ({
    id: organization.id,
    name: organization.name,
    personal: organization.personal,
    plan: plan ? toPlanView(plan) : null,
    storageUsed: organization.storageUsed,
    members: (membersOf.get(organization.id) ?? [])
      .map(({ id, name, email, role }) => ({ id, name, email, role }))
      .sort((a, b) => ROLE_ORDER[a.role] - ROLE_ORDER[b.role]),
    createdAt: organization.createdAt.toISOString(),
  }));
}

/** An admin moves an organization to another plan (paid ones too); its settings follow the plan's limits. */
export async function changeOrganizationPlan(ctx: AppContext, organizationId: string, planId: string) {
  const [organization] = await ctx.db.select().from(organizations).where(eq(organizations.id, organizationId));
  if (!organization) throw notFound("Organization");
  const plan = await findPlan(ctx.db, planId);
  if (plan.id !== organization.planId) await switchPlan(ctx, organization.id, plan, "admin");
  const changed = (await listOrganizations(ctx)).find((row) => row.id === organization.id);
  if (!changed) throw notFound("Organization");
  return changed;
}
