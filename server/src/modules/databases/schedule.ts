// When each database's next scheduled backup is due: claimed slot by slot by the scheduler, moved
// when the user's frequency changes. The scheduler starts the backups; the slots are kept here.
import { and, asc, desc, eq, isNotNull, lte, sql } from "drizzle-orm";
import { agents, backups, databases, settings } from "@db/schema";
import { normaliseFrequencyHours } from "@protocol/schedule";
import type { AppContext } from "../../context";

const HOUR = 3_600_000;

/**
 * Claims up to `limit` databases whose scheduled backup is due and moves each one's next time on,
 * in one transaction: each is taken with `FOR UPDATE SKIP LOCKED`, so with several instances a
 * slot is claimed once, and after downtime a missed slot is claimed once, not many times. Only
 * databases whose agent connected at least once are due; the caller skips those whose agent is
 * offline (answered with its status).
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
    for (const { database, frequency } of due) {
      const every = normaliseFrequencyHours(frequency ?? 24) * HOUR;
      // Keep the slot's rhythm, but never schedule into the past after a long outage.
      let next = database.nextBackupAt!.getTime() + every;
      if (next <= now.getTime()) next = now.getTime() + every;
      await tx
        .update(databases)
        .set({ nextBackupAt: new Date(next) })
        .where(eq(databases.id, database.id));
    }
    return due;
  });
}

/** Moves a database's next scheduled backup when its user's frequency changes. */
export async function rescheduleUser(ctx: AppContext, organizationId: string, frequencyHours: number) {
  const [last] = await ctx.db
    .select({ createdAt: backups.createdAt })
    .from(backups)
    .where(and(eq(backups.organizationId, organizationId), eq(backups.type, "auto")))
    .orderBy(desc(backups.createdAt))
    .limit(1);
  const base = last?.createdAt.getTime() ?? ctx.now().getTime();
  const next = new Date(Math.max(base + frequencyHours * HOUR, ctx.now().getTime()));
  await ctx.db
    .update(databases)
    .set({ nextBackupAt: next })
    .where(and(eq(databases.organizationId, organizationId), eq(databases.isActive, true)));
}
