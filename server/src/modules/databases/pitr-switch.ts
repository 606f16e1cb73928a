// The per-database "Point-in-time recovery" switch of Settings → Databases: on only where the plan
// offers it and the database user holds the roles; the database's agent is told at once.
import { eq } from "drizzle-orm";
import { agentDatabases, agents, databases } from "@db/schema";
import type { AppContext } from "../../context";
import type { CurrentOrganization } from "../organizations/current-organization";
import { AppError, conflict } from "../../lib/errors";
import { refuseIfProtected } from "../backup-protection/check";
import { announceShippedDatabases } from "./shipped-databases";
import { planOfUser } from "../plans/service";
import { describeGrant, describeMissingRoles } from "@protocol/oplog-roles";
import { findOrganizationDatabase, listDatabases } from "./service";

/**
 * Switches point-in-time recovery of one of the user's databases and answers them all; 403
 * PLAN_LIMIT when the plan does not offer it; 409 BACKUPS_PROTECTED when turning it off under
 * "Protect backups" (no new slices would be kept: the window of restorable moments would close).
 */
export async function setPointInTimeRecovery(ctx: AppContext, organization: CurrentOrganization, databaseId: string, enabled: boolean) {
  const database = await findOrganizationDatabase(ctx, organization.id, databaseId);
  const plan = await planOfUser(ctx.db, organization.planId);
  if (enabled && plan.pitrWindowHours <= 0) {
    throw new AppError(403, "PLAN_LIMIT", `Your ${plan.name} plan does not include point-in-time recovery. Upgrade your plan to turn it on.`);
  }
  if (!enabled && database.pitrEnabled) await refuseIfProtected(ctx, organization.id, { kind: "turn-off-pitr" });
  if (enabled) await refuseWithoutOplogAccess(ctx, database);
  await ctx.db.update(databases).set({ pitrEnabled: enabled }).where(eq(databases.id, database.id));
  if (database.agentId) await announceShippedDatabases(ctx, database.agentId);
  return listDatabases(ctx, organization.id);
}

/**
 * 409 naming what is missing when an agent holding the database found (at setup or db add) that its
 * server keeps no oplog or its user lacks the roles: every agent may come to run it, so each must
 * be able to ship. An agent that never reported (older agents) is not refused.
 */
async function refuseWithoutOplogAccess(ctx: AppContext, database: { id: string; name: string }): Promise<void> {
  const holders = await ctx.db
    .select({ agentName: agents.name, access: agentDatabases.pitrAccess })
    .from(agentDatabases)
    .innerJoin(agents, eq(agents.id, agentDatabases.agentId))
    .where(eq(agentDatabases.databaseId, database.id))
    .orderBy(agents.name);
  const checkAgain = `then run \`dbvault-agent db add ${database.name}\` on that server again so the check is recorded, and turn it on.`;
  for (const { agentName, access } of holders) {
    if (access?.status === "standalone") {
      throw conflict(
        `Point-in-time recovery cannot be turned on for "${database.name}": agent "${agentName}" backs it up from a standalone MongoDB server, which keeps no oplog. Run it as a replica set (a single member is enough: mongod --replSet, then rs.initiate()), ${checkAgain}`,
      );
    }
    if (access?.status === "missing-roles") {
      throw conflict(
        `Point-in-time recovery cannot be turned on for "${database.name}": the database user of agent "${agentName}" lacks the ${describeMissingRoles(access.missingRoles)} role${access.missingRoles.length === 1 ? "" : "s"} (to read the oplog and apply its entries). Grant them in mongosh as an administrator: ${describeGrant(undefined, access.missingRoles)} (USER: the user of the agent's connection string, in its authentication database), ${checkAgain}`,
      );
    }
  }
}
