// The writes of an organization's own rows and its memberships that other modules decide on
// (teams: rename, delete, members; admin: an account's deletion). Their rules (roles, the last
// owner, the lock) stay with the callers; this module owns the tables.
import { and, eq } from "drizzle-orm";
import type { DbOrTx } from "@db/client";
import { type MemberRole, memberships, organizations } from "@db/schema";

const membership = (organizationId: string, userId: string) => and(eq(memberships.organizationId, organizationId), eq(memberships.userId, userId));

export async function renameOrganizationRow(db: DbOrTx, organizationId: string, name: string): Promise<void> {
  await db.update(organizations).set({ name }).where(eq(organizations.id, organizationId));
}

/** Deletes the organization; what it owns goes through the foreign keys. */
export async function deleteOrganizationRow(db: DbOrTx, organizationId: string): Promise<void> {
  await db.delete(organizations).where(eq(organizations.id, organizationId));
}

/** Deletes an account's personal organization (its id is the account's), never a team. */
export async function deletePersonalOrganization(db: DbOrTx, userId: string): Promise<void> {
  await db.delete(organizations).where(and(eq(organizations.id, userId), eq(organizations.personal, true)));
}

export async function addMembership(db: DbOrTx, organizationId: string, userId: string, role: MemberRole): Promise<void> {
  await db.insert(memberships).values({ organizationId, userId, role });
}

export async function setMemberRole(db: DbOrTx, organizationId: string, userId: string, role: MemberRole): Promise<void> {
  await db.update(memberships).set({ role }).where(membership(organizationId, userId));
}

export async function deleteMembership(db: DbOrTx, organizationId: string, userId: string): Promise<void> {
  await db.delete(memberships).where(membership(organizationId, userId));
}
