import { and, desc, eq, inArray, type SQL, sql } from "drizzle-orm";
import type { DbOrTx, Tx } from "@db/client";
import { type AgentRow, type AuditAction, agents, databases, type RestoreKind, type RestorePointInTime, restores } from "@db/schema";
import type { DrillReport, PointInTimeCommand, Progress, RestoreStats } from "@protocol/agent-protocol";
import type { AppContext } from "../../context";
import { AppError, badRequest, conflict } from "../../lib/errors";
import { lockUntilCommit } from "../../lib/transaction-lock";
import { type AuditActor, recordAudit } from "../audit/service";
import { announceWork, enqueueJob, followSubject } from "../agent-jobs/service";
import { lockBackupForReading } from "../backups/deletion";
import { findOwnBackup } from "../backups/service";
import { toRestoreView } from "./views";
import { notifyDrillFinished, notifyRestoreFinished } from "../notifications/service";
import { restoreFacts } from "../webhooks/events";
import { publishToOrganization } from "../../lib/browser-events";
import { chooseReader } from "../agents/readers";

type RestoreRow = typeof restores.$inferSelect;

/**
 * Inserts a pending restore record unless one matching `busy` is pending or running. The check
 * and the insert are one step: two requests at the same instant both passed a check made apart.
 */
export async function insertRestoreUnlessBusy(
  ctx: AppContext,
  tx: Tx,
  input: { lockKey: string; busy: SQL; busyMessage: string; values: Omit<typeof restores.$inferInsert, "status" | "lastActivityAt"> & { backupId: string } },
): Promise<RestoreRow> {
  await lockUntilCommit(tx, input.lockKey);
  await lockBackupForReading(tx, input.values.backupId);
  const running = await tx
    .select({ id: restores.id })
    .from(restores)
    .where(and(input.busy, inArray(restores.status, ["pending", "in-progress"])));
  if (running.length > 0) throw conflict(input.busyMessage);
  const [row] = await tx
    .insert(restores)
    .values({ ...input.values, status: "pending", lastActivityAt: ctx.now() })
    .returning();
  return row!;
}

export async function listRestores(ctx: AppContext, organizationId: string) {
  const rows = await ctx.db
    .select()
    .from(restores)
    .where(eq(restores.organizationId, organizationId))
    .orderBy(desc(restores.createdAt), desc(restores.id))
    .limit(500);
  return rows.map(toRestoreView);
}

export interface RestoreRequest {
  /** The confirmation: the name of the database that will be replaced, typed by the user. */
  databaseName: string;
  /** Restore into this database instead of the backup's own; default: the backup's. */
  targetDatabase?: string;
  /** Only these collections of the backup; default: all. */
  collections?: string[];
  /**
   * The identity that opens a write-only agent's backup, pasted in the restore wizard and sealed
   * there to the restoring agent's identityRecipient: forwarded in the restore command only.
   */
  sealedIdentity?: string;
  /** An identity in plaintext: refused (the server must never receive one). */
  identity?: unknown;
}

/**
 * The restore command of a restore record. Over another database of the user's (`overDatabase`),
 * its agent replaces that database itself; a new name is created on the backup's connection.
 */
export function restoreCommand(restore: RestoreRow, size: number, overDatabase: boolean) {
  return {
    type: "restore" as const,
    restoreId: restore.id,
    backupId: restore.backupId!,
    databaseName: overDatabase ? (restore.targetDatabase ?? restore.databaseName) : restore.databaseName,
    size,
    ...(overDatabase || restore.targetDatabase === null ? {} : { targetDatabase: restore.targetDatabase }),
    // A point-in-time restore's agent reads them with its plan (pitr/agent-plan.ts): the command
    // crosses the cluster bus, whose NOTIFY refuses 8,000 bytes, and 1,000 names do not fit.
    ...(restore.collections && !restore.pointInTime ? { collections: restore.collections } : {}),
  };
}

/**
 * Who restores: the target's agent when given an identity (it must be online: the identity is
 * kept nowhere to send later) or when it can read the backup; else a restore agent that can
 * (agents/readers.ts), or the reason the restore waits for one. A point-in-time restore
 * does not wait (its slices are chosen for now). 409 when no agent at all can read the backup.
 */
async function chooseRestoringAgent(
  ctx: AppContext,
  backup: Parameters<typeof chooseReader>[1],
  usual: AgentRow | undefined,
  options: { identity: boolean; pointInTime: boolean },
): Promise<{ agent?: AgentRow; waitingFor: string | null }> {
  if (options.identity) return { agent: usual && usual.status !== "offline" ? usual : undefined, waitingFor: null };
  const reader = await chooseReader(ctx, backup, usual ?? null);
  if ("agent" in reader) return { agent: reader.agent && reader.agent.status !== "offline" ? reader.agent : undefined, waitingFor: null };
  if (!reader.anyReader) throw noReaderAtAll(backup.keyId!);
  if (options.pointInTime) throw new AppError(409, "AGENT_OFFLINE", reader.waiting.replace(/ and it begins at once\.$/, ", then try again."));
  return { waitingFor: reader.waiting };
}

/** 400 for an identity sent in plaintext: the server must never receive one, so it is not used. */
const plaintextIdentity = () =>
  badRequest(
    "The server takes no identity in plaintext, so nothing was changed: paste it in the restore wizard, which seals it to the restoring agent (sealedIdentity), or keep it on a restore agent (dbvault-agent setup --role restore --identity FILE).",
  );

/** 409 for a restore or drill of a backup no agent can read: a write-only agent's, with no restore agent set up. */
export const noReaderAtAll = (keyId: string) =>
  new AppError(
    409,
    "CONFLICT",
    `No agent can read this backup: none of this organization's agents holds the key ${keyId}, so nothing was changed. ` +
      "If a write-only agent sealed it, set up a restore agent where its identity is kept (dbvault-agent setup --role restore --identity FILE), or restore with the identity pasted in the restore wizard. " +
      "If it was made with a master key since replaced, import that key on the agent: dbvault-agent key import (from what dbvault-agent key export saved).",
  );

/**
 * Asks an agent to restore a completed backup: over its own database, over another database of
 * the user's (that database's agent does it), or as a copy under a new name on the backup's
 * connection. The typed confirmation must be the target's name; one restore per target at a time.
 */
export async function requestRestore(
  ctx: AppContext,
  organizationId: string,
  backupId: string,
  input: RestoreRequest,
  /** A point-in-time restore: what the row records and what the command adds. */
  pointInTime?: { record: RestorePointInTime; command: PointInTimeCommand },
  actor?: AuditActor,
) {
  if (input.identity !== undefined) throw plaintextIdentity();
  const backup = await findOwnBackup(ctx, organizationId, backupId);
  if (backup.status !== "completed") throw conflict(`This backup is ${backup.status}; only completed backups can be restored.`);
  const target = input.targetDatabase ?? backup.databaseName;
  if (input.databaseName !== target) throw badRequest(`Please type '${target}' to confirm`);
  // A database of the user's is restored by its own agent over its own connection; a new name is
  // created on the backup's database's connection.
  const [existing] = await ctx.db
    .select()
    .from(databases)
    .where(and(eq(databases.organizationId, organizationId), eq(databases.name, target)));
  const [source] = existing
    ? []
    : await ctx.db
        .select()
        .from(databases)
        .where(and(eq(databases.organizationId, organizationId), eq(databases.name, backup.databaseName)));
  const database = existing ?? source;
  const [usual] = database?.agentId ? await ctx.db.select().from(agents).where(eq(agents.id, database.agentId)) : [];
  const { agent, waitingFor } = await chooseRestoringAgent(ctx, backup, usual, {
    identity: input.sealedIdentity !== undefined,
    pointInTime: Boolean(pointInTime),
  });
  if (agent && input.sealedIdentity !== undefined && agent.identityRecipient === null) {
    throw new AppError(
      409,
      "CONFLICT",
      `The agent "${agent.name}" is too old to take a pasted identity, so nothing was changed. Update it (dbvault-agent update), or set up a restore agent where the identity is kept (dbvault-agent setup --role restore --identity FILE).`,
    );
  }
  if (!agent && !waitingFor) {
    throw new AppError(409, "AGENT_OFFLINE", `No agent is online for "${database?.name ?? target}". Start it with dbvault-agent run, then try again.`);
  }
  const targetDatabase = target === backup.databaseName ? null : target;
  const collections = input.collections ?? null;
  const restore = await ctx.db.transaction(async (tx) => {
    const row = await insertRestoreUnlessBusy(ctx, tx, {
      lockKey: `restore:${organizationId}:${target}`,
      busy: and(eq(restores.organizationId, organizationId), sql`coalesce(${restores.targetDatabase}, ${restores.databaseName}) = ${target}`)!,
      busyMessage: `A restore of "${target}" is already running.`,
      values: {
        organizationId,
        backupId,
        databaseName: backup.databaseName,
        targetDatabase,
        collections,
        agentId: agent?.id ?? null,
        pointInTime: pointInTime?.record ?? null,
        waitingFor,
      },
    });
    // The command goes into the ledger with its row: sent to the agent now, or to the reader that
    // claims it (waiting-work.ts); never on the bus, whatever its size or secrets.
    await enqueueJob(ctx, tx, {
      organizationId,
      agentId: agent?.id ?? null,
      keyId: backup.keyId,
      kind: "restore",
      subjectId: row.id,
      command: {
        ...restoreCommand(row, backup.size, Boolean(existing)),
        ...(pointInTime ? { pointInTime: pointInTime.command } : {}),
        // Sealed in the restore wizard to this agent: the server forwards what it cannot open.
        ...(input.sealedIdentity !== undefined ? { sealedIdentity: input.sealedIdentity } : {}),
      },
    });
    await recordAudit(
      tx,
      organizationId,
      "RESTORE_REQUESTED",
      {
        ...restoreDetails(row),
        ...(pointInTime ? { pointInTime: { at: pointInTime.record.at, ts: pointInTime.record.ts, slices: pointInTime.record.sliceIds.length } } : {}),
        ...(targetDatabase ? { targetDatabase } : {}),
        ...(collections ? { collections } : {}),
        // Whether an identity went with it (never the identity itself).
        ...(input.sealedIdentity !== undefined ? { withIdentity: true } : {}),
      },
      actor,
    );
    return row;
  });
  if (agent) await announceWork(ctx, agent.id);
  await announceRestore(ctx, restore);
  ctx.log.info("restore requested", {
    restoreId: restore.id,
    backupId,
    agentId: agent?.id ?? null,
    ...(waitingFor ? { waiting: true } : {}),
    ...(input.sealedIdentity !== undefined ? { withIdentity: true } : {}),
  });
  if (waitingFor) return { message: `Restore requested. ${waitingFor}`, restore: toRestoreView(restore) };
  return { message: "Restore requested. Follow its progress in Restore History.", restore: toRestoreView(restore) };
}

/** Publishes a restore's (or drill's) state to its user's browsers. */
export function announceRestore(ctx: AppContext, restore: RestoreRow) {
  return publishToOrganization(ctx, restore.organizationId, {
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
  options: { agentId?: string; audit?: (restore: RestoreRow) => { action: AuditAction; details: Record<string, unknown> } | null } = {},
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
    // Its job in the ledger follows it: taken once started, settled once finished.
    if (restore && values.status) await followSubject(ctx, db, ["restore", "drill"], restoreId, values.status);
    const entry = restore && options.audit?.(restore);
    if (entry) await recordAudit(db, restore!.organizationId, entry.action, entry.details);
    return restore ?? null;
  };
  return options.audit ? ctx.db.transaction(update) : update(ctx.db);
}

export const restoreDetails = (restore: RestoreRow) => ({ restoreId: restore.id, backupId: restore.backupId, databaseName: restore.databaseName });

/** The audit actions of each step, by kind: a drill is not a restore (metrics count restores from the audit log). */
const AUDIT_ACTIONS = {
  restore: { started: "RESTORE_INITIATED", completed: "RESTORE_COMPLETED", failed: "RESTORE_FAILED" },
  drill: { started: null, completed: "DRILL_COMPLETED", failed: "DRILL_FAILED" },
} as const satisfies Record<RestoreKind, Record<string, AuditAction | null>>;

export async function recordRestoreStarted(ctx: AppContext, agentId: string, restoreId: string) {
  const restore = await updateRunning(
    ctx,
    restoreId,
    { status: "in-progress" },
    {
      agentId,
      audit: (r) => {
        const action = AUDIT_ACTIONS[r.kind].started;
        return action && { action, details: restoreDetails(r) };
      },
    },
  );
  if (restore) await announceRestore(ctx, restore);
}

export async function recordRestoreProgress(ctx: AppContext, agentId: string, restoreId: string, progress: Progress) {
  const restore = await updateRunning(ctx, restoreId, { status: "in-progress", progress }, { agentId });
  if (restore) await announceRestore(ctx, restore);
}

export async function recordRestoreCompleted(ctx: AppContext, agentId: string, restoreId: string, stats: RestoreStats, drill?: DrillReport) {
  const totals = Object.values(stats).reduce((t, s) => ({ restored: t.restored + s.restored, failed: t.failed + s.failed }), { restored: 0, failed: 0 });
  const restore = await updateRunning(
    ctx,
    restoreId,
    { status: "completed", stats, completedAt: ctx.now(), ...(drill ? { drill } : {}) },
    {
      agentId,
      audit: (r) => ({
        action: AUDIT_ACTIONS[r.kind].completed,
        details: { ...restoreDetails(r), ...totals, ...(drill ? { durationMs: drill.durationMs } : {}) },
      }),
    },
  );
  if (restore) await announceFinished(ctx, restore);
}

/** Fails a running restore with the agent's (or the sweeper's) reason. */
export async function failRestore(
  ctx: AppContext,
  restoreId: string,
  error: string,
  options: { agentId?: string; stats?: RestoreStats; drill?: DrillReport } = {},
) {
  const values = {
    status: "failed" as const,
    error,
    completedAt: ctx.now(),
    ...(options.stats ? { stats: options.stats } : {}),
    ...(options.drill ? { drill: options.drill } : {}),
  };
  const restore = await updateRunning(ctx, restoreId, values, {
    agentId: options.agentId,
    audit: (r) => ({ action: AUDIT_ACTIONS[r.kind].failed, details: { ...restoreDetails(r), reason: error } }),
  });
  if (restore) await announceFinished(ctx, restore);
}

async function announceFinished(ctx: AppContext, restore: RestoreRow) {
  await announceRestore(ctx, restore);
  if (restore.kind === "restore") return notifyRestoreFinished(ctx, restore);
  const subject = {
    organizationId: restore.organizationId,
    databaseName: restore.databaseName,
    backupId: restore.backupId,
    restoreId: restore.id,
    agentId: restore.agentId,
  };
  const status = restore.status === "completed" ? "completed" : "failed";
  const detail = status === "completed" ? describeDrill(restore) : (restore.error ?? "unknown");
  await notifyDrillFinished(ctx, subject, { status, detail }, { ...restoreFacts(restore), drill: restore.drill });
}

/** One sentence on a completed drill: what it restored and checked, and how long it took. */
export function describeDrill(restore: Pick<RestoreRow, "drill" | "stats" | "targetDatabase">): string {
  const collections = Object.keys(restore.stats ?? {}).length;
  const report = restore.drill;
  if (!report) return `Restored ${collections} collection(s) into ${restore.targetDatabase}.`;
  const seconds = Math.max(1, Math.round(report.durationMs / 1000));
  return (
    `Restored ${report.documents.restored.toLocaleString("en-US")} of ${report.documents.expected.toLocaleString("en-US")} documents in ${collections} collection(s) ` +
    `with ${report.indexes.found} of ${report.indexes.expected} indexes into ${restore.targetDatabase} in ${seconds} s; ` +
    (report.scratchDropped ? "the scratch database was dropped." : "the scratch database could not be dropped: drop it by hand.")
  );
}
