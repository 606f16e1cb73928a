// A database belongs to whichever of the user's agents declare it (hold it in their config, as
// each says on registering, connecting and `db add`); the database's agent_id is the one of them
// that runs it. Until now one agent "had" each database, so removing it, or setting a machine up
// again, left the database with no agent although another online agent held it.
import { and, asc, count, eq, inArray, notInArray, sql } from "drizzle-orm";
import { agentDatabases, agents, databases, type OrganizationRow, organizations } from "@db/schema";
import type { DbOrTx } from "@db/client";
import type { PitrAccess } from "@protocol/agent-protocol";
import type { AppContext } from "../../context";
import { planOfUser } from "../plans/service";

/** The user's databases as the agent protocol answers them (name and whether backups run). */
function listDatabaseStates(tx: DbOrTx, organizationId: string) {
  return tx
    .select({ name: databases.name, isActive: databases.isActive })
    .from(databases)
    .where(eq(databases.organizationId, organizationId))
    .orderBy(asc(databases.createdAt), asc(databases.id));
}

/**
 * Records that the agent holds these databases: names not known yet are created (active while the
 * plan's dbLimit allows), and the agent runs each one that no agent runs or whose runner is
 * offline. `exact`: the names are the agent's whole config (registration, connection), so what it
 * no longer declares is forgotten; otherwise (`db add`) they are added to what it declared.
 * Answers all the user's databases.
 */
export async function declareDatabasesIn(
  tx: DbOrTx,
  ctx: AppContext,
  organization: Pick<OrganizationRow, "id" | "planId">,
  agentId: string,
  names: string[],
  options: { exact: boolean; pitrAccess?: Map<string, PitrAccess> },
) {
  const plan = await planOfUser(tx, organization.planId);
  const unique = [...new Set(names)];
  const known =
    unique.length === 0
      ? []
      : await tx
          .select()
          .from(databases)
          .where(and(eq(databases.organizationId, organization.id), inArray(databases.name, unique)));
  const declaredIds = known.map((row) => row.id);
  const idOf = new Map(known.map((row) => [row.name, row.id]));
  for (const name of unique.filter((candidate) => !known.some((row) => row.name === candidate))) {
    const [active] = await tx
      .select({ total: count() })
      .from(databases)
      .where(and(eq(databases.organizationId, organization.id), eq(databases.isActive, true)));
    const isActive = (active?.total ?? 0) < plan.dbLimit;
    // A new active database gets its first scheduled backup straight away.
    const [created] = await tx
      .insert(databases)
      .values({ organizationId: organization.id, agentId, name, isActive, nextBackupAt: isActive ? ctx.now() : null })
      .returning({ id: databases.id });
    declaredIds.push(created!.id);
    idOf.set(name, created!.id);
  }
  if (options.exact) {
    const dropped = tx.delete(agentDatabases);
    await (declaredIds.length === 0
      ? dropped.where(eq(agentDatabases.agentId, agentId))
      : dropped.where(and(eq(agentDatabases.agentId, agentId), notInArray(agentDatabases.databaseId, declaredIds))));
    // Those it runs but no longer holds go to an agent that does, if any.
    await handOverDatabases(tx, agentId, { onlineOnly: false, except: declaredIds });
  }
  if (declaredIds.length > 0) {
    await tx
      .insert(agentDatabases)
      .values(declaredIds.map((databaseId) => ({ agentId, databaseId })))
      .onConflictDoNothing();
    // What this agent's check found: kept per agent, since each connects with its own user.
    for (const [name, pitrAccess] of options.pitrAccess ?? []) {
      const databaseId = idOf.get(name);
      if (databaseId)
        await tx
          .update(agentDatabases)
          .set({ pitrAccess })
          .where(and(eq(agentDatabases.agentId, agentId), eq(agentDatabases.databaseId, databaseId)));
    }
    // Those with no runner, or a runner that is offline (or gone), are this agent's to run.
    await tx
      .update(databases)
      .set({ agentId })
      .where(
        and(
          inArray(databases.id, declaredIds),
          sql`(${databases.agentId} is null or not exists (select 1 from ${agents} where ${agents.id} = ${databases.agentId} and ${agents.status} <> 'offline'))`,
        ),
      );
  }
  return listDatabaseStates(tx, organization.id);
}

/** declareDatabasesIn in a transaction of its own (`db add`). */
export async function declareDatabases(
  ctx: AppContext,
  organization: Pick<OrganizationRow, "id" | "planId">,
  agentId: string,
  names: string[],
  options: { exact: boolean; pitrAccess?: Map<string, PitrAccess> },
) {
  return ctx.db.transaction((tx) => declareDatabasesIn(tx, ctx, organization, agentId, names, options));
}

/** What a connecting agent's hello says it holds: its whole config, so `exact`. */
export async function declareDatabasesOnHello(ctx: AppContext, organizationId: string, agentId: string, names: string[]) {
  await ctx.db.transaction(async (tx) => {
    const [organization] = await tx
      .select({ id: organizations.id, planId: organizations.planId })
      .from(organizations)
      .where(eq(organizations.id, organizationId));
    if (organization) await declareDatabasesIn(tx, ctx, organization, agentId, names, { exact: true });
  });
}

/**
 * Passes the databases this agent runs to another agent that declares them: the one online (else,
 * unless `onlineOnly`, the one seen last). Called when the agent goes offline (onlineOnly), before
 * it is removed, and for those it no longer holds (all but `except`). Databases no other agent
 * declares keep their runner.
 */
export async function handOverDatabases(tx: DbOrTx, agentId: string, options: { onlineOnly: boolean; except?: string[] }) {
  const runs = eq(databases.agentId, agentId);
  const run = await tx
    .select({ id: databases.id })
    .from(databases)
    .where(options.except?.length ? and(runs, notInArray(databases.id, options.except)) : runs);
  for (const database of run) {
    const [next] = await tx
      .select({ id: agents.id })
      .from(agentDatabases)
      .innerJoin(agents, eq(agents.id, agentDatabases.agentId))
      .where(
        and(eq(agentDatabases.databaseId, database.id), sql`${agents.id} <> ${agentId}`, options.onlineOnly ? sql`${agents.status} <> 'offline'` : undefined),
      )
      .orderBy(sql`${agents.status} = 'active' desc`, sql`${agents.status} <> 'offline' desc`, sql`${agents.lastSeen} desc nulls last`)
      .limit(1);
    if (next) await tx.update(databases).set({ agentId: next.id }).where(eq(databases.id, database.id));
  }
}
