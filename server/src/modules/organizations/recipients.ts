import { and, eq, inArray } from "drizzle-orm";
import type { DbOrTx } from "@db/client";
import { memberships, users } from "@db/schema";

/**
 * Who hears of an organization's events by e-mail (alerts, agents set up with its key): its owners
 * and admins, the roles that can act on them. A personal organization's only owner is its founder,
 * so a one-person account is told as before.
 */
export async function alertRecipients(db: DbOrTx, organizationId: string): Promise<{ id: string; email: string }[]> {
  return db
    .select({ id: users.id, email: users.email })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.organizationId, organizationId), inArray(memberships.role, ["owner", "admin"])))
    .orderBy(users.email);
}
