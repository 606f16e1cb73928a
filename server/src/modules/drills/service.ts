// Restore drills: a test restore of a database's latest backup into a scratch database on its
// agent's server (`<name>_dbvault_drill`), checked (documents, indexes) and dropped by the agent.
// Drills are restore records of kind "drill", so Restore History lists them; the schedule (off,
// weekly, monthly) is a user setting, claimed by one server instance at a time.
import { and, asc, desc, eq, isNotNull, lte, ne } from "drizzle-orm";
import { backups, databases, type DrillFrequency, restores, settings } from "@db/schema";
import { drillDatabaseName } from "@protocol/verification";
import type { AppContext } from "../../context";
import { conflict, notFound } from "../../lib/errors";
import { announceWork, enqueueJob } from "../agent-jobs/service";
import { type AuditActor, recordAudit } from "../audit/service";
import { agentOffline, chooseReader } from "../agents/readers";
import { toRestoreView } from "../restores/views";
import { announceRestore, insertRestoreUnlessBusy, noReaderAtAll, restoreDetails } from "../restores/service";

const HOUR = 3_600_000;
/** Time between two scheduled drills of a user's databases. */
export const DRILL_INTERVAL_HOURS: Record<Exclude<DrillFrequency, "off">, number> = { weekly: 168, monthly: 720 };

/** When the next scheduled drill runs after `from`, for a frequency (null: drills are off). */
export function nextDrillTime(frequency: DrillFrequency, from: Date): Date | null {
  return frequency === "off" ? null : new Date(from.getTime() + DRILL_INTERVAL_HOURS[frequency] * HOUR);
}

/**
 * Starts a drill of the latest completed backup of one of the user's databases: a restore record
 * of kind "drill" into the scratch database, and the command to the database's agent (a restore
 * agent for a write-only agent's backup, or the record says it waits for one). 404 for an unknown
 * database, 409 when it has no completed backup, a drill of it is running, its agent is offline
 * or no agent can read the backup.
 */
export async function startDrill(ctx: AppContext, organizationId: string, databaseName: string, trigger: "manual" | "scheduled", actor?: AuditActor) {
  const [database] = await ctx.db
    .select({ id: databases.id })
    .from(databases)
    .where(and(eq(databases.organizationId, organizationId), eq(databases.name, databaseName)));
  if (!database) throw notFound(`Database "${databaseName}"`);
  const [backup] = await ctx.db
    .select()
    .from(backups)
    .where(and(eq(backups.organizationId, organizationId), eq(backups.databaseName, databaseName), eq(backups.status, "completed")))
    .orderBy(desc(backups.createdAt))
    .limit(1);
  if (!backup) throw conflict(`"${databaseName}" has no completed backup to drill yet. Back it up first.`);
  // A write-only agent's backup is drilled by a restore agent that can read it, or waits for one.
  const reader = await chooseReader(ctx, backup);
  if ("waiting" in reader && !reader.anyReader) throw noReaderAtAll(backup.keyId!);
  const agent = "agent" in reader ? reader.agent : undefined;
  const waitingFor = "waiting" in reader ? reader.waiting : null;
  if (!waitingFor && (!agent || agent.status === "offline")) throw agentOffline(databaseName);
  const scratchDatabase = drillDatabaseName(databaseName);
  const drill = await ctx.db.transaction(async (tx) => {
    // The check and the insert are one step, as for a restore (restores/service.ts).
    const row = await insertRestoreUnlessBusy(ctx, tx, {
      lockKey: `drill:${organizationId}:${databaseName}`,
      busy: and(eq(restores.organizationId, organizationId), eq(restores.kind, "drill"), eq(restores.databaseName, databaseName))!,
      busyMessage: `A drill of "${databaseName}" is already running.`,
      values: { organizationId, backupId: backup.id, databaseName, targetDatabase: scratchDatabase, kind: "drill", agentId: agent?.id ?? null, waitingFor },
    });
    await recordAudit(tx, organizationId, "DRILL_REQUESTED", { ...restoreDetails(row), scratchDatabase, trigger }, actor);
    // Into the ledger with its row (agent-jobs/service.ts), for this agent or the reader that claims it.
    await enqueueJob(ctx, tx, {
      organizationId,
      agentId: agent?.id ?? null,
      keyId: backup.keyId,
      kind: "drill",
      subjectId: row.id,
      command: drillCommand(row, backup.size),
    });
    return row;
  });
  if (agent) await announceWork(ctx, agent.id);
  await announceRestore(ctx, drill);
  ctx.log.info("restore drill requested", { restoreId: drill.id, backupId: backup.id, trigger, ...(waitingFor ? { waiting: true } : {}) });
  if (waitingFor) return { message: `Drill requested. ${waitingFor}`, restore: toRestoreView(drill) };
  return {
    message: `Drill started: the latest backup of "${databaseName}" is restored into ${scratchDatabase}, checked and dropped. Follow it in Restore History.`,
    restore: toRestoreView(drill),
  };
}

/** The drill command of a drill record. */
export const drillCommand = (drill: typeof restores.$inferSelect, size: number) => ({
  type: "drill" as const,
  restoreId: drill.id,
  backupId: drill.backupId!,
  databaseName: drill.databaseName,
  size,
  scratchDatabase: drill.targetDatabase!,
});

/**
 * Starts the scheduled drills that are due. Each due user's settings row is claimed with
 * `FOR UPDATE SKIP LOCKED` and its next time moved on in the same transaction, so with several
 * instances each user's drills start once. Every active database with a completed backup and an
 * online agent is drilled; the others are skipped until the next time (and logged).
 */
export async function runDueDrills(ctx: AppContext, options: { limit?: number } = {}) {
  const now = ctx.now();
  const claimed = await ctx.db.transaction(async (tx) => {
    const due = await tx
      .select({ organizationId: settings.organizationId, frequency: settings.drillFrequency })
      .from(settings)
      .where(and(ne(settings.drillFrequency, "off"), isNotNull(settings.nextDrillAt), lte(settings.nextDrillAt, now)))
      .orderBy(asc(settings.nextDrillAt))
      .limit(options.limit ?? 50)
      .for("update", { skipLocked: true });
    for (const { organizationId, frequency } of due) {
      await tx
        .update(settings)
        .set({ nextDrillAt: nextDrillTime(frequency, now) })
        .where(eq(settings.organizationId, organizationId));
    }
    return due;
  });
  let started = 0;
  for (const { organizationId } of claimed) {
    const active = await ctx.db
      .select({ name: databases.name })
      .from(databases)
      .where(and(eq(databases.organizationId, organizationId), eq(databases.isActive, true)))
      .orderBy(asc(databases.createdAt));
    for (const { name } of active) {
      try {
        await startDrill(ctx, organizationId, name, "scheduled");
        started++;
      } catch (error) {
        ctx.log.info("scheduled drill skipped", { organizationId, databaseName: name, reason: (error as Error).message });
      }
    }
  }
  return started;
}

/** Moves a user's next drill when the drill frequency changes (null when drills are switched off). */
export async function rescheduleDrills(ctx: AppContext, organizationId: string, frequency: DrillFrequency) {
  await ctx.db
    .update(settings)
    .set({ nextDrillAt: nextDrillTime(frequency, ctx.now()) })
    .where(eq(settings.organizationId, organizationId));
}
