import { and, count, desc, eq, inArray, isNotNull, isNull, lte, ne, sql } from "drizzle-orm";
import type { Tx } from "@db/client";
import { agents, backupParts, backups, databases } from "@db/schema";
import { recordMissedBackup } from "../databases/schedule";
import type { Progress } from "@protocol/agent-protocol";
import type { AppContext } from "../../context";
import { AppError, conflict, notFound } from "../../lib/errors";
import { lockUntilCommit } from "../../lib/transaction-lock";
import { type AuditActor, recordAudit } from "../audit/service";
import { announceWork, enqueueJob, followSubject } from "../agent-jobs/service";
import { notifyBackupAnomaly, notifyBackupCompleted, notifyBackupFailed } from "../notifications/service";
import { backupFacts } from "../webhooks/events";
import { planOfUser } from "../plans/service";
import { releaseStorage } from "../organizations/storage-quota";
import { publishToOrganization } from "../../lib/browser-events";
import { backupCommand } from "./command";
import { copiesOfBackups } from "../copies/service";
import { backupStorage } from "../stored-files/keys";
import { backupViewColumns, toBackupView } from "./views";
import { type BackupListFilters, backupListWhere } from "./list-filters";

type BackupRow = typeof backups.$inferSelect;
type DatabaseRow = typeof databases.$inferSelect;

export const BACKUP_PAGE_SIZE = 100;
export const MAX_BACKUP_PAGE_SIZE = 500;

/**
 * A page of the user's backups, newest first (100 by default: a user with years of hourly
 * backups has tens of thousands, far too many for one answer), optionally filtered (list-filters.ts).
 * Totals come from summarizeBackups: counting on every page would cost more than the page.
 */
export async function listBackups(ctx: AppContext, organizationId: string, options: { limit?: number; page?: number } & BackupListFilters = {}) {
  const limit = options.limit ?? BACKUP_PAGE_SIZE;
  const where = backupListWhere(organizationId, options);
  const rows = await ctx.db
    .select(backupViewColumns)
    .from(backups)
    .where(where)
    .orderBy(desc(backups.createdAt), desc(backups.id))
    .limit(limit)
    .offset(((options.page ?? 1) - 1) * limit);
  const copies = await copiesOfBackups(
    ctx,
    rows.map((row) => row.id),
  );
  return rows.map((row) => toBackupView(row, copies.get(row.id)));
}

/** Counts behind the dashboard's summary cards, over all of the user's backups. */
export async function summarizeBackups(ctx: AppContext, organizationId: string) {
  const [row] = await ctx.db
    .select({
      totalCount: count(),
      completedCount: sql<number>`count(*) filter (where ${backups.status} = 'completed')`.mapWith(Number),
      failedCount: sql<number>`count(*) filter (where ${backups.status} = 'failed')`.mapWith(Number),
      lastBackupAt: sql<string | null>`max(${backups.createdAt})`,
    })
    .from(backups)
    .where(eq(backups.organizationId, organizationId));
  const totalCount = row?.totalCount ?? 0;
  const completedCount = row?.completedCount ?? 0;
  const failedCount = row?.failedCount ?? 0;
  // Of the finished backups only: a running one is neither a success nor a failure yet.
  const finishedCount = completedCount + failedCount;
  return {
    totalCount,
    completedCount,
    failedCount,
    successRate: finishedCount === 0 ? 0 : Math.round((completedCount / finishedCount) * 1000) / 10,
    lastBackupAt: row?.lastBackupAt ? new Date(row.lastBackupAt).toISOString() : null,
  };
}

/** One of the user's backups; 404 for anyone else's. */
export async function findOwnBackup(ctx: AppContext, organizationId: string, backupId: string): Promise<BackupRow> {
  const [backup] = await ctx.db
    .select()
    .from(backups)
    .where(and(eq(backups.id, backupId), eq(backups.organizationId, organizationId)));
  if (!backup) throw notFound("Backup");
  return backup;
}

/**
 * Creates a pending backup of a database and asks its agent to run it. With no agent online the
 * backup is recorded as failed at once, so a missed scheduled backup is visible and notified.
 */
export async function startBackup(
  ctx: AppContext,
  database: DatabaseRow,
  type: "manual" | "auto",
  options: { guard?: (tx: Tx) => Promise<void>; actor?: AuditActor; auditDetails?: Record<string, unknown> } = {},
) {
  const [agent] = database.agentId ? await ctx.db.select().from(agents).where(eq(agents.id, database.agentId)) : [];
  const backup = await ctx.db.transaction(async (tx) => {
    // The guard's checks (a manual backup's rate limit, none already running) and the insert are
    // one step: two requests at the same instant both passed them before.
    if (options.guard) {
      await lockUntilCommit(tx, `backup:${database.id}`);
      await options.guard(tx);
    }
    const [row] = await tx
      .insert(backups)
      .values({
        organizationId: database.organizationId,
        databaseId: database.id,
        databaseName: database.name,
        agentId: agent?.id ?? null,
        type,
        status: "pending",
        excludedCollections: database.excludedCollections,
        lastActivityAt: ctx.now(),
      })
      .returning();
    await recordAudit(
      tx,
      database.organizationId,
      "BACKUP_CREATED",
      { backupId: row!.id, databaseName: database.name, type, ...options.auditDetails },
      options.actor,
    );
    // Its command, in the ledger with it (agent-jobs/service.ts): a socket swap does not lose it.
    if (agent && agent.status !== "offline") {
      await enqueueJob(ctx, tx, {
        organizationId: database.organizationId,
        agentId: agent.id,
        kind: "backup",
        subjectId: row!.id,
        command: backupCommand(row!),
      });
    }
    return row;
  });
  if (!agent || agent.status === "offline") {
    return failBackup(ctx, backup!.id, "No agent is online for this database. Start it with `dbvault-agent run` on its server.");
  }
  await announceWork(ctx, agent.id);
  await publishToOrganization(ctx, database.organizationId, { type: "backupProgress", backupId: backup!.id, status: "pending", progress: null });
  return backup!;
}

/**
 * A manual backup, a user's or an agent's (`dbvault-agent backup now`, named in `auditDetails`):
 * active databases only, no sooner than the plan's frequency limit allows.
 */
export async function triggerBackup(
  ctx: AppContext,
  organization: { id: string; planId: string | null },
  databaseName: string,
  actor?: AuditActor,
  auditDetails?: Record<string, unknown>,
) {
  const [database] = await ctx.db
    .select()
    .from(databases)
    .where(and(eq(databases.organizationId, organization.id), eq(databases.name, databaseName)));
  if (!database) throw notFound(`Database "${databaseName}"`);
  if (!database.isActive) {
    throw new AppError(
      403,
      "PLAN_LIMIT",
      `The database "${databaseName}" is disabled: your plan's database limit is reached. Enable it in Settings → Databases or upgrade your plan.`,
    );
  }
  const plan = await planOfUser(ctx.db, organization.planId);
  const [agent] = database.agentId ? await ctx.db.select({ status: agents.status }).from(agents).where(eq(agents.id, database.agentId)) : [];
  const guard = (tx: Tx) => checkManualBackupAllowed(tx, ctx, database, plan, agent?.status ?? null);
  return toBackupView(await startBackup(ctx, database, "manual", { guard, actor, auditDetails }));
}

/**
 * What refuses a manual backup, in the order the user meets it: the plan's one per period, one
 * already running, no agent online. Run by startBackup under its lock, with the insert.
 */
async function checkManualBackupAllowed(
  tx: Tx,
  ctx: AppContext,
  database: DatabaseRow,
  plan: { name: string; frequencyLimit: number },
  agentStatus: string | null,
) {
  const [last] = await tx
    .select({ createdAt: backups.createdAt })
    .from(backups)
    .where(and(eq(backups.databaseId, database.id), eq(backups.type, "manual"), ne(backups.status, "failed")))
    .orderBy(desc(backups.createdAt))
    .limit(1);
  if (last) {
    const next = new Date(last.createdAt.getTime() + plan.frequencyLimit * 3_600_000);
    if (next > ctx.now()) {
      const every = plan.frequencyLimit === 1 ? "hour" : `${plan.frequencyLimit} hours`;
      throw new AppError(429, "RATE_LIMITED", `Your ${plan.name} plan allows one manual backup every ${every}.`, {
        nextBackupAvailable: next.toISOString(),
      });
    }
  }
  await refuseIfBackupRunning(tx, database);
  if (agentStatus === null || agentStatus === "offline") {
    throw new AppError(409, "AGENT_OFFLINE", `No agent is online for "${database.name}". Start it with dbvault-agent run on its server, then try again.`);
  }
}

/** 409 when a backup of the database is pending or running: one at a time. Run under startBackup's lock. */
export async function refuseIfBackupRunning(tx: Tx, database: DatabaseRow) {
  const running = await tx
    .select({ id: backups.id })
    .from(backups)
    .where(and(eq(backups.databaseId, database.id), inArray(backups.status, ["pending", "in-progress"])));
  if (running.length > 0) throw conflict(`A backup of "${database.name}" is already running.`);
}

/** Progress reported by the backup's own agent. */
export async function recordBackupProgress(ctx: AppContext, agentId: string, backupId: string, progress: Progress) {
  const [backup] = await ctx.db
    .update(backups)
    .set({ status: "in-progress", progress, lastActivityAt: ctx.now(), startedAt: sql`coalesce(${backups.startedAt}, now())` })
    .where(and(eq(backups.id, backupId), eq(backups.agentId, agentId), inArray(backups.status, ["pending", "in-progress"])))
    .returning();
  // Started: its job is taken, not sent again (for an agent too old to acknowledge it).
  if (backup) await followSubject(ctx, ctx.db, "backup", backupId, "in-progress");
  if (backup) await publishToOrganization(ctx, backup.organizationId, { type: "backupProgress", backupId, status: "in-progress", progress });
}

/**
 * Fails a pending or running backup with a reason: its stored parts are deleted and their bytes
 * released, BACKUP_FAILED is written and the user notified. Does nothing to a finished backup.
 */
export async function failBackup(ctx: AppContext, backupId: string, reason: string, options: { storageLimit?: boolean } = {}) {
  const released = await ctx.db.transaction(async (tx) => {
    const [backup] = await tx
      .update(backups)
      .set({ status: "failed", error: reason, completedAt: ctx.now(), progress: null })
      .where(and(eq(backups.id, backupId), inArray(backups.status, ["pending", "in-progress"])))
      .returning();
    if (!backup) return null;
    await followSubject(ctx, tx, "backup", backupId, "failed");
    const parts = await tx.delete(backupParts).where(eq(backupParts.backupId, backupId)).returning({ size: backupParts.size });
    const bytes = parts.reduce((sum, part) => sum + part.size, 0);
    await releaseStorage(tx, backup.organizationId, bytes);
    if (options.storageLimit) await recordAudit(tx, backup.organizationId, "STORAGE_LIMIT_EXCEEDED", { backupId, databaseName: backup.databaseName });
    await recordAudit(tx, backup.organizationId, "BACKUP_FAILED", { backupId, databaseName: backup.databaseName, type: backup.type, reason });
    return backup;
  });
  ctx.runningHashes.drop(backupId);
  if (!released) {
    const [current] = await ctx.db.select().from(backups).where(eq(backups.id, backupId));
    return current!;
  }
  if (!(await deleteFailedBackupData(ctx, released))) {
    // Storage down (the likely reason the backup failed): the scheduler deletes it later.
    await ctx.db.update(backups).set({ dataReleasePending: true }).where(eq(backups.id, backupId));
  }
  ctx.log.warn("backup failed", { backupId, reason });
  // A scheduled backup the plan's storage refused says so where its database's next run is shown.
  if (options.storageLimit && released.type === "auto" && released.databaseId) {
    await recordMissedBackup(ctx, released.databaseId, `Limit reached: ${reason}`);
  }
  await publishToOrganization(ctx, released.organizationId, { type: "backupProgress", backupId, status: "failed", progress: null });
  await notifyBackupFailed(ctx, released, reason);
  return released;
}

/** Deletes what a failed backup stored (its staged parts, anything published); false when storage refused. */
async function deleteFailedBackupData(ctx: AppContext, backup: { id: string; organizationId: string }): Promise<boolean> {
  try {
    await Promise.all([ctx.storage.abortUpload(backup.id), ctx.storage.deletePrefix(backupStorage.prefix(backup.organizationId, backup.id))]);
    return true;
  } catch (error) {
    ctx.log.error("could not delete the data of a failed backup", { backupId: backup.id, error });
    return false;
  }
}

/**
 * Deletes the data of failed backups that storage refused to delete when they failed (a storage
 * outage fails backups and keeps their parts at once); answers how many were cleaned up.
 */
export async function releasePendingBackupData(ctx: AppContext, batch = 20): Promise<number> {
  const pending = await ctx.db
    .select({ id: backups.id, organizationId: backups.organizationId })
    .from(backups)
    .where(and(eq(backups.dataReleasePending, true), eq(backups.status, "failed")))
    .limit(batch);
  let released = 0;
  for (const backup of pending) {
    if (!(await deleteFailedBackupData(ctx, backup))) break; // still down: the next pass tries again
    await ctx.db.update(backups).set({ dataReleasePending: false }).where(eq(backups.id, backup.id));
    released++;
  }
  return released;
}

/** Marks a fully uploaded backup completed: audit entry, notification, live event; and its anomaly's alert when it has one. */
export async function announceBackupCompleted(ctx: AppContext, backup: BackupRow) {
  await recordAudit(ctx.db, backup.organizationId, "BACKUP_COMPLETED", {
    backupId: backup.id,
    databaseName: backup.databaseName,
    type: backup.type,
    size: backup.size,
  });
  await publishToOrganization(ctx, backup.organizationId, {
    type: "backupProgress",
    backupId: backup.id,
    status: "completed",
    progress: backup.progress,
    size: backup.size,
  });
  await notifyBackupCompleted(ctx, backup);
  if (backup.anomaly) {
    ctx.log.warn("anomalous backup", { backupId: backup.id, kind: backup.anomaly.kind });
    await recordAudit(ctx.db, backup.organizationId, "BACKUP_ANOMALY", { backupId: backup.id, databaseName: backup.databaseName, ...backup.anomaly });
    await notifyBackupAnomaly(ctx, alertSubjectOf(backup), backup.anomaly, { ...backupFacts(backup), anomaly: backup.anomaly });
  }
}

/** Who an alert about a backup concerns. */
export const alertSubjectOf = (backup: Pick<BackupRow, "id" | "organizationId" | "databaseName" | "agentId">) => ({
  organizationId: backup.organizationId,
  databaseName: backup.databaseName,
  backupId: backup.id,
  agentId: backup.agentId,
});

/** Marks a backup's anomaly as expected (the data really shrank): retention stops holding the last good backup for it. */
export async function resolveAnomaly(ctx: AppContext, backup: BackupRow, actor?: AuditActor) {
  if (!backup.anomaly) throw conflict("This backup has no anomaly to resolve.");
  // The earlier unresolved anomalies of the database go with it: the user has looked at the drop.
  await ctx.db.transaction(async (tx) => {
    const resolved = await tx
      .update(backups)
      .set({ anomalyResolvedAt: ctx.now() })
      .where(
        and(
          eq(backups.organizationId, backup.organizationId),
          eq(backups.databaseName, backup.databaseName),
          isNotNull(backups.anomaly),
          isNull(backups.anomalyResolvedAt),
          lte(backups.createdAt, backup.createdAt),
        ),
      )
      .returning({ id: backups.id });
    if (resolved.length > 0) {
      await recordAudit(
        tx,
        backup.organizationId,
        "ANOMALY_RESOLVED",
        {
          backupId: backup.id,
          databaseName: backup.databaseName,
          kind: backup.anomaly!.kind,
          backups: resolved.length,
        },
        actor,
      );
    }
  });
  return { message: "Marked as expected. Retention applies normally to this database again." };
}
