// The operator commands of the agent CLI (`dbvault-agent status`, `list`, `backup now`), on the
// agent's own credentials. An agent is the organization's, set up with the API key only an admin
// can see; it acts on the databases it serves and no others: another agent's databases answer as
// unknown, as do other organizations'. `backup now` is the dashboard's Trigger Backup (the plan's
// manual-backup limit, a disabled database, one backup at a time), with the same messages.
import { and, asc, desc, eq, inArray } from "drizzle-orm";
import { type AgentRow, agentJobs, backups, databases, type OrganizationRow, settings } from "@db/schema";
import { type AgentStatusAnswer, OPERATOR_LIST_DEFAULT, OPERATOR_LIST_MAX, type OperatorBackup, type OperatorBackupsQuery } from "@protocol/operator";
import { scheduleOf } from "../databases/schedule";
import type { AppContext } from "../../context";
import { AppError } from "../../lib/errors";
import { triggerBackup } from "../backups/service";
import { freshPitrLag } from "../databases/lag-figure";

const operatorColumns = {
  id: backups.id,
  databaseName: backups.databaseName,
  type: backups.type,
  status: backups.status,
  createdAt: backups.createdAt,
  completedAt: backups.completedAt,
  size: backups.size,
  verifiedAt: backups.verifiedAt,
  error: backups.error,
  progress: backups.progress,
};

type OperatorRow = { [K in keyof typeof operatorColumns]: (typeof backups.$inferSelect)[K] };

function toOperatorBackup(row: OperatorRow): OperatorBackup {
  return {
    id: row.id,
    databaseName: row.databaseName,
    type: row.type,
    status: row.status,
    createdAt: row.createdAt.toISOString(),
    completedAt: row.completedAt?.toISOString() ?? null,
    size: row.size ?? null,
    verifiedAt: row.verifiedAt?.toISOString() ?? null,
    error: row.error ?? null,
  };
}

/** The databases the agent serves now, by name. */
async function servedDatabases(ctx: AppContext, agent: AgentRow) {
  return ctx.db
    .select()
    .from(databases)
    .where(and(eq(databases.organizationId, agent.organizationId), eq(databases.agentId, agent.id)))
    .orderBy(asc(databases.name));
}

/** What `dbvault-agent status` prints: the agent, each database it serves, and the work queued for it. */
export async function describeAgentStatus(ctx: AppContext, organization: OrganizationRow, agent: AgentRow): Promise<AgentStatusAnswer> {
  const now = ctx.now();
  const served = await servedDatabases(ctx, agent);
  const [schedule] = await ctx.db.select({ frequency: settings.frequency }).from(settings).where(eq(settings.organizationId, agent.organizationId));
  const described = [];
  for (const database of served) {
    const [last] = await ctx.db.select(operatorColumns).from(backups).where(eq(backups.databaseId, database.id)).orderBy(desc(backups.createdAt)).limit(1);
    described.push({
      name: database.name,
      isActive: database.isActive,
      everyHours: scheduleOf(database, schedule?.frequency).everyHours,
      lastBackup: last ? toOperatorBackup(last) : null,
      nextBackupAt: database.isActive ? (database.nextBackupAt?.toISOString() ?? null) : null,
      pointInTime: database.pitrEnabled ? { lagSeconds: freshPitrLag(database, now) ?? null } : null,
    });
  }
  return {
    agent: { id: agent.id, name: agent.name, status: agent.status, lastSeen: agent.lastSeen?.toISOString() ?? null, version: agent.version ?? null },
    organization: organization.name,
    serverTime: now.toISOString(),
    databases: described,
    queue: await describeQueue(ctx, agent),
  };
}

/** The agent's jobs not settled, oldest first, with a running backup's percentage. */
async function describeQueue(ctx: AppContext, agent: AgentRow): Promise<AgentStatusAnswer["queue"]> {
  const jobs = await ctx.db
    .select({ kind: agentJobs.kind, subjectId: agentJobs.subjectId, state: agentJobs.state, createdAt: agentJobs.createdAt, command: agentJobs.command })
    .from(agentJobs)
    .where(and(eq(agentJobs.agentId, agent.id), inArray(agentJobs.state, ["queued", "leased", "running"])))
    .orderBy(asc(agentJobs.createdAt));
  const backupIds = jobs.filter((job) => job.kind === "backup").map((job) => job.subjectId);
  const progress = new Map<string, number | null>();
  if (backupIds.length > 0) {
    for (const row of await ctx.db.select({ id: backups.id, progress: backups.progress }).from(backups).where(inArray(backups.id, backupIds))) {
      const percent = row.progress?.percentage;
      progress.set(row.id, typeof percent === "number" ? percent : null);
    }
  }
  return jobs.map((job) => ({
    kind: job.kind,
    databaseName: typeof job.command.databaseName === "string" ? job.command.databaseName : null,
    state: job.state,
    since: job.createdAt.toISOString(),
    percent: progress.get(job.subjectId) ?? null,
  }));
}

/** The backups of the databases the agent serves, newest first (of one of them with `db`). */
export async function listAgentBackups(ctx: AppContext, agent: AgentRow, query: OperatorBackupsQuery): Promise<{ backups: OperatorBackup[] }> {
  const limit = Number(query.limit ?? OPERATOR_LIST_DEFAULT);
  if (limit > OPERATOR_LIST_MAX) throw new AppError(400, "BAD_REQUEST", `limit must be a whole number from 1 to ${OPERATOR_LIST_MAX}`);
  const served = await servedDatabases(ctx, agent);
  const chosen = query.db === undefined ? served : served.filter((database) => database.name === query.db);
  if (query.db !== undefined && chosen.length === 0) throw notServed(query.db);
  if (chosen.length === 0) return { backups: [] };
  const rows = await ctx.db
    .select(operatorColumns)
    .from(backups)
    .where(
      inArray(
        backups.databaseId,
        chosen.map((database) => database.id),
      ),
    )
    .orderBy(desc(backups.createdAt), desc(backups.id))
    .limit(limit);
  return { backups: rows.map(toOperatorBackup) };
}

/** Backs one of the agent's databases up now, as the dashboard's Trigger Backup does (429 before the plan allows). */
export async function backUpNow(ctx: AppContext, organization: OrganizationRow, agent: AgentRow, databaseName: string): Promise<OperatorBackup> {
  const served = await servedDatabases(ctx, agent);
  if (!served.some((database) => database.name === databaseName)) throw notServed(databaseName);
  const view = await triggerBackup(ctx, organization, databaseName, undefined, { agentName: agent.name });
  const [row] = await ctx.db.select(operatorColumns).from(backups).where(eq(backups.id, view.id));
  return toOperatorBackup(row!);
}

/** A database this agent does not serve: not found, whoever's it is. */
const notServed = (name: string) =>
  new AppError(404, "NOT_FOUND", `This agent does not back up a database named "${name}": dbvault-agent status lists the ones it does.`);
