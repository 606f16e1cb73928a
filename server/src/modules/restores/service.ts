import { and, desc, eq, inArray } from "drizzle-orm";
import type { DbOrTx } from "@db/client";
import { type AuditAction, agents, databases, restores } from "@db/schema";
import type { Progress, RestoreStats } from "@protocol/agent-protocol";
import type { AppContext } from "../../context";
import { AppError, badRequest, conflict } from "../../lib/errors";
import { recordAudit } from "../audit/service";
import { sendToAgent } from "../agents/service";
import { findOwnBackup } from "../backups/service";
import { toRestoreView } from "../backups/views";
import { publishToUser } from "../realtime/service";

type RestoreRow = typeof restores.$inferSelect;

export async function listRestores(ctx: AppContext, userId: string) {
  const rows = await ctx.db
    .select()
    .from(restores)
    .where(eq(restores.userId, userId))
    .orderBy(desc(restores.createdAt), desc(restores.id))
    .limit(500);
  return rows.map(toRestoreView);
}

/**
 * Asks the database's agent to restore a completed backup over it. The typed database name must
 * be the backup's (the wizard's confirmation); one restore per database at a time.
 */
export async function requestRestore(ctx: AppContext, userId: string, backupId: string, databaseName: string) {
  const backup = await findOwnBackup(ctx, userId, backupId);
  if (backup.status !== "completed") throw conflict(`This backup is ${backup.status}; only completed backups can be restored.`);
  if (databaseName !== backup.databaseName) throw badRequest(`Please type '${backup.databaseName}' to confirm`);
  const [database] = await ctx.db
    .select()
    .from(databases)
    .where(and(eq(databases.userId, userId), eq(databases.name, backup.databaseName)));
  const [agent] = database?.agentId ? await ctx.db.select().from(agents).where(eq(agents.id, database.agentId)) : [];
  if (!agent || agent.status === "offline") {
    throw new AppError(409, "AGENT_OFFLINE", `No agent is online for "${backup.databaseName}". Start it with dbvault-agent run, then try again.`);
  }
  const running = await ctx.db
    .select({ id: restores.id })
    .from(restores)
    .where(and(eq(restores.userId, userId), eq(restores.databaseName, backup.databaseName), inArray(restores.status, ["pending", "in-progress"])));
  if (running.length > 0) throw conflict(`A restore of "${backup.databaseName}" is already running.`);

  const restore = await ctx.db.transaction(async (tx) => {
    const [row] = await tx
      .insert(restores)
      .values({ userId, backupId, databaseName: backup.databaseName, agentId: agent.id, status: "pending", lastActivityAt: ctx.now() })
      .returning();
    await recordAudit(tx, userId, "RESTORE_REQUESTED", restoreDetails(row!));
    return row;
  });
  await sendToAgent(ctx, agent.id, {
    type: "restore",
    restoreId: restore!.id,
    backupId,
    databaseName: backup.databaseName,
    size: backup.size,
  });
  await announce(ctx, restore!);
  return { message: "Restore requested. Follow its progress in Restore History.", restore: toRestoreView(restore!) };
}

function announce(ctx: AppContext, restore: RestoreRow) {
  return publishToUser(ctx, restore.userId, {
    type: "restoreProgress",
    restoreId: restore.id,
    status: restore.status,
    progress: restore.progress ?? null,
    error: restore.error,
  });
}

/**
 * Applies an update to a running restore (of this agent, when one is given) and writes its audit
 * entry in the same transaction, so the history and the audit log never disagree; returns null
 * when the restore is not running.
 */
async function updateRunning(
  ctx: AppContext,
  restoreId: string,
  values: Partial<RestoreRow>,
  options: { agentId?: string; audit?: (restore: RestoreRow) => { action: AuditAction; details: Record<string, unknown> } } = {},
) {
  const update = async (db: DbOrTx) => {
    const [restore] = await db
      .update(restores)
      .set({ ...values, lastActivityAt: ctx.now() })
      .where(
        and(
          eq(restores.id, restoreId),
          inArray(restores.status, ["pending", "in-progress"]),
          ...(options.agentId ? [eq(restores.agentId, options.agentId)] : []),
        ),
      )
      .returning();
    if (restore && options.audit) {
      const { action, details } = options.audit(restore);
      await recordAudit(db, restore.userId, action, details);
    }
    return restore ?? null;
  };
  return options.audit ? ctx.db.transaction(update) : update(ctx.db);
}

const restoreDetails = (restore: RestoreRow) => ({ restoreId: restore.id, backupId: restore.backupId, databaseName: restore.databaseName });

export async function recordRestoreStarted(ctx: AppContext, agentId: string, restoreId: string) {
  const restore = await updateRunning(ctx, restoreId, { status: "in-progress" }, {
    agentId,
    audit: (r) => ({ action: "RESTORE_INITIATED", details: restoreDetails(r) }),
  });
  if (restore) await announce(ctx, restore);
}

export async function recordRestoreProgress(ctx: AppContext, agentId: string, restoreId: string, progress: Progress) {
  const restore = await updateRunning(ctx, restoreId, { status: "in-progress", progress }, { agentId });
  if (restore) await announce(ctx, restore);
}

export async function recordRestoreCompleted(ctx: AppContext, agentId: string, restoreId: string, stats: RestoreStats) {
  const totals = Object.values(stats).reduce((t, s) => ({ restored: t.restored + s.restored, failed: t.failed + s.failed }), { restored: 0, failed: 0 });
  const restore = await updateRunning(ctx, restoreId, { status: "completed", stats, completedAt: ctx.now() }, {
    agentId,
    audit: (r) => ({ action: "RESTORE_COMPLETED", details: { ...restoreDetails(r), ...totals } }),
  });
  if (restore) await announce(ctx, restore);
}

/** Fails a running restore with the agent's (or the sweeper's) reason. */
export async function failRestore(ctx: AppContext, restoreId: string, error: string, options: { agentId?: string; stats?: RestoreStats } = {}) {
  const restore = await updateRunning(ctx, restoreId, { status: "failed", error, completedAt: ctx.now(), ...(options.stats ? { stats: options.stats } : {}) }, {
    agentId: options.agentId,
    audit: (r) => ({ action: "RESTORE_FAILED", details: { ...restoreDetails(r), reason: error } }),
  });
  if (restore) await announce(ctx, restore);
}
