import { memberships, organizations, settings } from "@db/schema";
import type { DbOrTx } from "@db/client";
import type { AppContext } from "../../context";
import { findDefaultPlan } from "../plans/service";
import { newApiKeyColumns } from "./api-key";

/**
 * Creates a team organization with everything an organization owns from the start (its API key,
 * the default free plan, its settings row) and `ownerId` as its first owner. Answers the
 * organization and its API key in clear (shown once to its owner). A personal organization is
 * created with its account instead (auth/service.ts createUser).
 */
export function createTeamOrganization(ctx: AppContext, input: { name: string; ownerId: string }) {
  return ctx.db.transaction((tx) => insertTeamOrganization(ctx, tx, input));
}

/** As createTeamOrganization, inside the caller's transaction (with its own checks around it). */
export async function insertTeamOrganization(ctx: AppContext, tx: DbOrTx, input: { name: string; ownerId: string }) {
  const plan = await findDefaultPlan(tx);
  const { apiKey, columns } = newApiKeyColumns(ctx);
  const [organization] = await tx
    .insert(organizations)
    .values({ name: input.name.trim(), personal: false, planId: plan.id, ...columns })
    .returning();
  await tx.insert(memberships).values({ organizationId: organization!.id, userId: input.ownerId, role: "owner" });
  await tx.insert(settings).values({ organizationId: organization!.id });
  return { organization: organization!, apiKey };
}
