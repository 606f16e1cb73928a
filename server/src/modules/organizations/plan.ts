import { eq } from "drizzle-orm";
import type { DbOrTx } from "@db/client";
import { organizations } from "@db/schema";

/** Moves the organization to another plan; the caller brings its settings and databases within the plan's limits. */
export async function setOrganizationPlan(db: DbOrTx, organizationId: string, planId: string): Promise<void> {
  await db.update(organizations).set({ planId }).where(eq(organizations.id, organizationId));
}
