// When each database's next scheduled backup is due: claimed slot by slot by the scheduler, moved
// when its schedule or the account's frequency changes. The scheduler starts the backups; the
// slots, and why a slot did not run, are kept here.
import { and, asc, desc, eq, isNotNull, lte, sql } from "drizzle-orm";
import { agents, backups, databases, settings } from "@db/schema";
import { DEFAULT_FREQUENCY_HOURS, normaliseFrequencyHours } from "@protocol/schedule";
import type { AppContext } from "../../context";
import { type DatabaseSchedule, isAnchored, nextSlot, windowStillOpen } from "./slots";

type DatabaseRow = typeof databases.$inferSelect;

/** A database's schedule: its own choices, else the account's frequency (hours, as stored). */
export function scheduleOf(database: DatabaseRow, accountFrequency: number | null | undefined): DatabaseSchedule {
  const window =
    database.scheduleWindowStart !== null && database.scheduleWindowEnd !== null
      ? { start: database.scheduleWindowStart, end: database.scheduleWindowEnd }
      : null;
  return {
    everyHours: normaliseFrequencyHours(database.scheduleFrequencyHours ?? accountFrequency ?? DEFAULT_FREQUENCY_HOURS),
    timeOfDay: database.scheduleTimeOfDay,
    window,
  };
}

/**
 * Claims up to `limit` databases whose scheduled backup is due and moves each one's next time on,
 * in one transaction: each is taken with `FOR UPDATE SKIP LOCKED`, so with several instances a
 * slot is claimed once, and after downtime a missed slot is claimed once, not many times. Only
 * databases whose agent connected at least once are due; the caller skips those whose agent is
 * offline (answered with its status). A slot claimed after its window closed (the server was
 * down through it) is not run: `windowOpen` is false and the caller records it as missed.
 */
export async function claimDueBackups(ctx: AppContext, limit: number) {
  const now = ctx.now();
  return ctx.db.transaction(async (tx) => {
    const due = await tx
      .select({ database: databases, frequency: settings.frequency, agent: { status: agents.status } })
      .from(databases)
      .innerJoin(agents, eq(agents.id, databases.agentId))
      .leftJoin(settings, eq(settings.organizationId, databases.organizationId))
      .where(
        and(
          eq(databases.isActive, true),
          isNotNull(databases.nextBackupAt),
          lte(databases.nextBackupAt, now),
          isNotNull(agents.firstConnectedAt),
          // An agent whose socket closed within the grace period (a server restart) is likely back
          // in seconds: its slot waits for it rather than be skipped with a notice.
          sql`not (${agents.status} = 'offline' and ${agents.disconnectedAt} is not null)`,
        ),
      )
      .orderBy(asc(databases.nextBackupAt))
      .limit(limit)
      .for("update", { of: databases, skipLocked: true });
    const claimed = [];
    for (const { database, frequency, agent } of due) {
      const schedule = scheduleOf(database, frequency);
      // Keep the slot's rhythm (or the clock's, when anchored), never scheduling into the past.
      const next = nextSlot(schedule, now.getTime(), database.nextBackupAt!.getTime());
      await tx
        .update(databases)
        .set({ nextBackupAt: new Date(next) })
        .where(eq(databases.id, database.id));
      claimed.push({ database, agent, windowOpen: windowStillOpen(schedule, now.getTime()) });
    }
    return claimed;
  });
}

/** Records why a scheduled backup of a database did not run; shown in Settings → Databases and the API. */
export async function recordMissedBackup(ctx: AppContext, databaseId: string, reason: string) {
  await ctx.db.update(databases).set({ missedBackupAt: ctx.now(), missedBackupReason: reason }).where(eq(databases.id, databaseId));
}

/** A scheduled backup started: the last missed one is history. */
export async function clearMissedBackup(ctx: AppContext, databaseId: string) {
  await ctx.db.update(databases).set({ missedBackupAt: null, missedBackupReason: null }).where(eq(databases.id, databaseId));
}

/**
 * The next slot of one database after its schedule changed: anchored schedules fall on the clock;
 * the others one period after its last scheduled backup (or now), never in the past.
 */
export async function rescheduleDatabase(ctx: AppContext, database: DatabaseRow, accountFrequency: number | null | undefined) {
  if (!database.isActive) return;
  const schedule = scheduleOf(database, accountFrequency);
  const now = ctx.now().getTime();
  let next: number;
  if (isAnchored(schedule)) next = nextSlot(schedule, now, null);
  else {
    const [last] = await ctx.db
      .select({ createdAt: backups.createdAt })
      .from(backups)
      .where(and(eq(backups.databaseId, database.id), eq(backups.type, "auto")))
      .orderBy(desc(backups.createdAt))
      .limit(1);
    next = Math.max((last?.createdAt.getTime() ?? now) + schedule.everyHours * 3_600_000, now);
  }
  await ctx.db
    .update(databases)
    .set({ nextBackupAt: new Date(next) })
    .where(eq(databases.id, database.id));
}

/** Moves the next scheduled backups when the account's frequency changes (databases with their own frequency keep theirs). */
export async function rescheduleUser(ctx: AppContext, organizationId: string, frequencyHours: number) {
  const rows = await ctx.db
    .select()
    .from(databases)
    .where(and(eq(databases.organizationId, organizationId), eq(databases.isActive, true)));
  for (const database of rows) {
    if (database.scheduleFrequencyHours !== null) continue;
    await rescheduleDatabase(ctx, database, frequencyHours);
  }
}
