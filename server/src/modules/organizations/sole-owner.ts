import { and, eq, sql } from "drizzle-orm";
import { memberships, organizations } from "@db/schema";
import type { AppContext } from "../../context";
import { conflict } from "../../lib/errors";

/**
 * Refuses (409, naming them) to delete an account while it is the only owner of a team
 * organization: the team would be left with nobody able to hold its plan or hand it on. Its
 * personal organization goes with the account.
 */
export async function refuseIfOnlyOwner(ctx: AppContext, userId: string) {
  const owners = sql<number>`(select count(*) from ${memberships} as others where others.organization_id = ${organizations.id} and others.role = 'owner')`;
  const held = await ctx.db
    .select({ name: organizations.name })
    .from(memberships)
    .innerJoin(organizations, eq(organizations.id, memberships.organizationId))
    .where(and(eq(memberships.userId, userId), eq(memberships.role, "owner"), eq(organizations.personal, false), sql`${owners} = 1`))
    .orderBy(organizations.name);
  if (held.length === 0) return;
  const names = held.map((row) => `"${row.name}"`).join(", ");
  throw conflict(`This account is the only owner of ${names}. Make another member an owner there (or delete the organization) before deleting the account.`);
}
