// The user's databases as Settings → Databases shows them, and the choices made there: which
// databases run (within the plan's dbLimit) and which of the agents holding one runs it.
import { and, asc, count, eq, inArray } from "drizzle-orm";
import type { DbOrTx } from "@db/client";
import { agentDatabases, agents, databases, settings } from "@db/schema";
import type { AppContext } from "../../context";
import { AppError, notFound } from "../../lib/errors";
import type { CurrentOrganization } from "../organizations/current-organization";
import { planOfUser } from "../plans/service";
import { scheduleOf } from "./schedule";
import { formatTimeOfDay } from "./slots";

type DeclaringAgent = { id: string; name: string; status: string };

function toDatabaseView(row: typeof databases.$inferSelect, declaring: DeclaringAgent[], accountFrequency: number | null | undefined) {
  const schedule = scheduleOf(row, accountFrequency);
  const hhmm = (minutes: number | null) => (minutes === null ? null : formatTimeOfDay(minutes));
  return {
    _id: row.id,
    id: row.id,
    name: row.name,
    isActive: row.isActive,
    pitrEnabled: row.pitrEnabled,
    excludedCollections: row.excludedCollections,
    agentId: row.agentId,
    agents: declaring,
    schedule: {
      frequencyHours: row.scheduleFrequencyHours,
      everyHours: schedule.everyHours,
      timeOfDay: hhmm(row.scheduleTimeOfDay),
      windowStart: hhmm(row.scheduleWindowStart),
      windowEnd: hhmm(row.scheduleWindowEnd),
    },
    // An inactive database is not scheduled: it shows no next run.
    nextBackupAt: row.isActive ? (row.nextBackupAt?.toISOString() ?? null) : null,
    missedBackup: row.missedBackupAt && row.missedBackupReason ? { at: row.missedBackupAt.toISOString(), reason: row.missedBackupReason } : null,
    createdAt: row.createdAt.toISOString(),
  };
}

/** The user's databases, each with the agents holding it in their config (agentId is the one running it). */
export async function listDatabases(ctx: AppContext, organizationId: string) {
  const rows = await ctx.db.select().from(databases).where(eq(databases.organizationId, organizationId)).orderBy(asc(databases.createdAt), asc(databases.id));
  const declarations =
    rows.length === 0
      ? []
      : await ctx.db
          .select({ databaseId: agentDatabases.databaseId, id: agents.id, name: agents.name, status: agents.status })
          .from(agentDatabases)
          .innerJoin(agents, eq(agents.id, agentDatabases.agentId))
          .where(
            inArray(
              agentDatabases.databaseId,
              rows.map((row) => row.id),
            ),
          )
          .orderBy(asc(agents.createdAt), asc(agents.id));
  const [account] = await ctx.db.select({ frequency: settings.frequency }).from(settings).where(eq(settings.organizationId, organizationId));
  return rows.map((row) =>
    toDatabaseView(
      row,
      declarations.filter((declaration) => declaration.databaseId === row.id).map(({ id, name, status }) => ({ id, name, status })),
      account?.frequency,
    ),
  );
}

/** One of the organization's databases, or 404: what every per-database setting starts from. */
export async function findOrganizationDatabase(ctx: AppContext, organizationId: string, databaseId: string) {
  const [database] = await ctx.db
    .select()
    .from(databases)
    .where(and(eq(databases.id, databaseId), eq(databases.organizationId, organizationId)));
  if (!database) throw notFound("Database");
  return database;
}

/** The user's choice of which agent runs a database that several agents hold (Settings → Databases). */
export async function chooseDatabaseAgent(ctx: AppContext, organizationId: string, databaseId: string, agentId: string) {
  const database = await findOrganizationDatabase(ctx, organizationId, databaseId);
  const [declared] = await ctx.db
    .select({ agentId: agentDatabases.agentId })
    .from(agentDatabases)
    .innerJoin(agents, eq(agents.id, agentDatabases.agentId))
    .where(and(eq(agentDatabases.databaseId, database.id), eq(agentDatabases.agentId, agentId), eq(agents.organizationId, organizationId)));
  if (!declared) {
    throw new AppError(409, "CONFLICT", `That agent does not have "${database.name}" in its configuration. Add it there first: dbvault-agent db add.`);
  }
  await ctx.db.update(databases).set({ agentId }).where(eq(databases.id, database.id));
  return listDatabases(ctx, organizationId);
}

/** Enables or disables one of the user's databases; no more than the plan's dbLimit may be active. */
export async function setDatabaseActive(ctx: AppContext, organization: CurrentOrganization, databaseId: string, isActive: boolean) {
  const database = await findOrganizationDatabase(ctx, organization.id, databaseId);
  if (isActive && !database.isActive) {
    const plan = await planOfUser(ctx.db, organization.planId);
    const [row] = await ctx.db
      .select({ total: count() })
      .from(databases)
      .where(and(eq(databases.organizationId, organization.id), eq(databases.isActive, true)));
    if ((row?.total ?? 0) >= plan.dbLimit) {
      throw new AppError(
        403,
        "PLAN_LIMIT",
        `Your ${plan.name} plan allows ${plan.dbLimit} active database${plan.dbLimit === 1 ? "" : "s"}. Disable another database or upgrade your plan.`,
      );
    }
  }
  // A database switched on gets its first scheduled backup at the next scheduler run.
  const nextBackupAt = isActive && !database.isActive ? (database.nextBackupAt ?? ctx.now()) : database.nextBackupAt;
  await ctx.db.update(databases).set({ isActive, nextBackupAt }).where(eq(databases.id, database.id));
  return listDatabases(ctx, organization.id);
}

/**
 * Keeps only the oldest `dbLimit` active databases of an organization active, e.g. after a
 * downgrade; the others stop being backed up until the user picks which to run.
 */
export async function deactivateBeyondLimit(db: DbOrTx, organizationId: string, dbLimit: number): Promise<void> {
  const active = await db
    .select({ id: databases.id })
    .from(databases)
    .where(and(eq(databases.organizationId, organizationId), eq(databases.isActive, true)))
    .orderBy(asc(databases.createdAt), asc(databases.id));
  const beyondLimit = active.slice(Math.max(0, dbLimit)).map((row) => row.id);
  if (beyondLimit.length > 0) await db.update(databases).set({ isActive: false }).where(inArray(databases.id, beyondLimit));
}
