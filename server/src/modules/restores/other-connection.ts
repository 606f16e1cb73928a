// A restore into another connection an agent knows (issue 44): any database the agent was given
// with `dbvault-agent db add` (or at setup), on whatever server its connection string names. The
// server knows each connection by its name only (the agent's hello and `db add` declare names,
// never connection strings); the agent resolves the name to its local connection string and
// restores there with the same staged swap as every restore, so a failure replaces nothing.
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import { type AgentRow, agentDatabases, agents, databases, restores } from "@db/schema";
import type { AppContext } from "../../context";
import { AppError, badRequest, conflict, notFound } from "../../lib/errors";
import { type AuditActor, recordAudit } from "../audit/service";
import { announceWork, enqueueJob } from "../agent-jobs/service";
import { findOwnBackup } from "../backups/service";
import { canRead } from "../agents/readers";
import { toRestoreView } from "./views";
import { announceRestore, insertRestoreUnlessBusy, noReaderAtAll, type RestoreRequest, restoreDetails } from "./service";

/** Which agent and which of its connections (by the name it was added under) a restore writes to. */
export interface ConnectionTarget {
  agentId: string;
  name: string;
}

/** The connection names an agent declared, by name. */
async function connectionNamesOf(ctx: AppContext, agentId: string): Promise<string[]> {
  const rows = await ctx.db
    .select({ name: databases.name })
    .from(agentDatabases)
    .innerJoin(databases, eq(databases.id, agentDatabases.databaseId))
    .where(eq(agentDatabases.agentId, agentId))
    .orderBy(asc(databases.name));
  return rows.map((row) => row.name);
}

/**
 * The wizard's "another connection" choices for a backup: each online agent of the organization
 * that can open the backup's key, with the names of its connections (names only: the server never
 * holds a connection string) other than the backup's own database's.
 */
export async function listRestoreConnections(ctx: AppContext, organizationId: string, backupId: string) {
  const backup = await findOwnBackup(ctx, organizationId, backupId);
  const online = await ctx.db
    .select()
    .from(agents)
    .where(and(eq(agents.organizationId, organizationId), sql`${agents.status} <> 'offline'`))
    .orderBy(asc(agents.name), asc(agents.createdAt));
  const readers = online.filter((agent) => canRead(agent, backup.keyId));
  const links = readers.length
    ? await ctx.db
        .select({ agentId: agentDatabases.agentId, name: databases.name })
        .from(agentDatabases)
        .innerJoin(databases, eq(databases.id, agentDatabases.databaseId))
        .where(
          inArray(
            agentDatabases.agentId,
            readers.map((agent) => agent.id),
          ),
        )
        .orderBy(asc(databases.name))
    : [];
  return {
    agents: readers
      .map((agent) => ({
        id: agent.id,
        name: agent.name,
        role: agent.role,
        // The backup's own database is restored over or copied beside by the wizard's other choices.
        connections: links.filter((link) => link.agentId === agent.id && link.name !== backup.databaseName).map((link) => link.name),
      }))
      .filter((agent) => agent.connections.length > 0),
  };
}

/**
 * The agent that restores into `target`: the organization's (404 otherwise, as for any id of
 * another organization), online, holding a connection by that name, and able to open the backup
 * (its hello names the key) unless an identity sealed to it comes with the restore.
 */
async function checkTargetAgent(ctx: AppContext, organizationId: string, target: ConnectionTarget, keyId: string | null, withIdentity: boolean) {
  const [agent] = await ctx.db
    .select()
    .from(agents)
    .where(and(eq(agents.id, target.agentId), eq(agents.organizationId, organizationId)));
  if (!agent) throw notFound("Agent");
  const names = await connectionNamesOf(ctx, agent.id);
  if (!names.includes(target.name)) {
    throw badRequest(
      `The agent "${agent.name}" has no connection named "${target.name}", so nothing was changed. ` +
        `Its connections: ${names.length ? names.map((name) => `"${name}"`).join(", ") : "none"}. ` +
        `Add one on its machine with dbvault-agent db add, then try again.`,
    );
  }
  if (agent.status === "offline") {
    throw new AppError(
      409,
      "AGENT_OFFLINE",
      `The agent "${agent.name}" is offline, so nothing was changed. Start it with dbvault-agent run on its machine, then try again.`,
    );
  }
  if (withIdentity && agent.identityRecipient === null) {
    throw conflict(
      `The agent "${agent.name}" is too old to take a pasted identity, so nothing was changed. Update it (dbvault-agent update), or choose an agent that holds the key.`,
    );
  }
  if (!withIdentity && !canRead(agent, keyId)) {
    throw conflict(
      `The agent "${agent.name}" cannot open this backup: it does not hold the key ${keyId}, so nothing was changed. ` +
        "Choose an agent that holds it, import the key there (dbvault-agent key import), or paste the identity in the restore wizard.",
    );
  }
  return agent;
}

/**
 * Asks an agent to restore a completed backup into a database (`targetDatabase`, default the
 * backup's) on one of its connections. The typed confirmation is always the target's name: the
 * server cannot tell whether that database exists on a connection it never sees.
 */
export async function requestRestoreToConnection(
  ctx: AppContext,
  organizationId: string,
  backupId: string,
  input: RestoreRequest & { connection: ConnectionTarget },
  actor?: AuditActor,
) {
  const backup = await findOwnBackup(ctx, organizationId, backupId);
  if (backup.status !== "completed") throw conflict(`This backup is ${backup.status}; only completed backups can be restored.`);
  const target = input.targetDatabase ?? backup.databaseName;
  if (input.databaseName !== target) throw badRequest(`Please type '${target}' to confirm`);
  const withIdentity = input.sealedIdentity !== undefined;
  if (backup.keyId && !withIdentity) await refuseUnreadable(ctx, organizationId, backup.keyId);
  const agent = await checkTargetAgent(ctx, organizationId, input.connection, backup.keyId, withIdentity);
  const connection = input.connection.name;
  const collections = input.collections ?? null;
  const restore = await ctx.db.transaction(async (tx) => {
    const row = await insertRestoreUnlessBusy(ctx, tx, {
      // The same lock as a restore over the backup's own server (service.ts): that agent's own
      // connection may be the one chosen here, and the two checks must not pass side by side.
      lockKey: `restore:${organizationId}:${target}`,
      busy: and(eq(restores.agentId, agent.id), eq(restores.kind, "restore"), sql`coalesce(${restores.targetDatabase}, ${restores.databaseName}) = ${target}`)!,
      busyMessage: `A restore into "${target}" on "${agent.name}" is already running.`,
      values: { organizationId, backupId, databaseName: backup.databaseName, targetDatabase: target, collections, agentId: agent.id, waitingFor: null },
    });
    await enqueueJob(ctx, tx, {
      organizationId,
      agentId: agent.id,
      keyId: backup.keyId,
      kind: "restore",
      subjectId: row.id,
      command: {
        type: "restore" as const,
        restoreId: row.id,
        backupId,
        // The agent's connection by name: it alone holds the connection string.
        databaseName: connection,
        size: backup.size,
        targetDatabase: target,
        ...(collections ? { collections } : {}),
        ...(withIdentity ? { sealedIdentity: input.sealedIdentity } : {}),
      },
    });
    await recordAudit(
      tx,
      organizationId,
      "RESTORE_REQUESTED",
      {
        ...restoreDetails(row),
        targetDatabase: target,
        agentName: agent.name,
        connection,
        ...(collections ? { collections } : {}),
        ...(withIdentity ? { withIdentity: true } : {}),
      },
      actor,
    );
    return row;
  });
  await announceWork(ctx, agent.id);
  await announceRestore(ctx, restore);
  ctx.log.info("restore requested", { restoreId: restore.id, backupId, agentId: agent.id, connection, ...(withIdentity ? { withIdentity: true } : {}) });
  return {
    message: `Restore requested into "${target}" on ${agent.name}'s connection "${connection}". Follow its progress in Restore History.`,
    restore: toRestoreView(restore),
  };
}

/** 409 as for every restore when no agent of the organization at all can open the backup. */
async function refuseUnreadable(ctx: AppContext, organizationId: string, keyId: string) {
  const all: Pick<AgentRow, "keyIds">[] = await ctx.db.select({ keyIds: agents.keyIds }).from(agents).where(eq(agents.organizationId, organizationId));
  if (!all.some((agent) => canRead(agent, keyId))) throw noReaderAtAll(keyId);
}
