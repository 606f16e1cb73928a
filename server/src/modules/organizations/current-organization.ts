import { and, asc, desc, eq } from "drizzle-orm";
import { type MemberRole, memberships, organizations } from "@db/schema";
import type { DbOrTx } from "@db/client";
import { forbidden } from "../../lib/errors";

/** The organization a request acts in, with the caller's role there, its plan and the storage it uses. */
export type CurrentOrganization = { id: string; name: string; personal: boolean; role: MemberRole; planId: string | null; storageUsed: number };

/** The header the web app sends with the organization chosen in its switcher. */
export const ORGANIZATION_HEADER = "x-organization-id";

export const NOT_A_MEMBER_MESSAGE = "You are not a member of this organization. Choose another one in the organization switcher.";

/** The user's memberships as CurrentOrganization rows, to narrow with a where clause. */
export const membershipsOf = (db: DbOrTx) =>
  db
    .select({
      id: organizations.id,
      name: organizations.name,
      personal: organizations.personal,
      role: memberships.role,
      planId: organizations.planId,
      storageUsed: organizations.storageUsed,
    })
    .from(memberships)
    .innerJoin(organizations, eq(organizations.id, memberships.organizationId));

/**
 * The organization a user's request acts in: the one it names (`X-Organization-Id`), checked
 * against the memberships on every request so a removed member loses it at once, or else the
 * user's personal organization (or, for an account that has none, its oldest membership). The
 * client only chooses among the user's memberships; it never grants one.
 */
export async function currentOrganization(db: DbOrTx, userId: string, requested: string | undefined): Promise<CurrentOrganization> {
  const mine = membershipsOf(db);
  if (requested) {
    const [named] = await mine.where(and(eq(memberships.userId, userId), eq(memberships.organizationId, requested)));
    if (!named) throw forbidden(NOT_A_MEMBER_MESSAGE);
    return named;
  }
  const [fallback] = await mine.where(eq(memberships.userId, userId)).orderBy(desc(organizations.personal), asc(memberships.createdAt)).limit(1);
  if (!fallback) throw forbidden("Your account belongs to no organization. Ask an organization's owner to invite you.");
  return fallback;
}
