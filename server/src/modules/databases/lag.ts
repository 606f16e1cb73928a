// The shipping lag agents report with each heartbeat (issue 25 §2): stored on the database, used
// by /metrics and the dashboard while fresh, and alerted (pitr.lag) once when it passes
// PITR_LAG_ALERT_SECONDS, or once the agent has not reached the database itself for
// PITR_UNREACHABLE_ALERT_SECONDS (the lag then grows with the clock: the alert need not wait for
// it to reach 5 minutes), then again only after it came back under.
import { and, eq, inArray } from "drizzle-orm";
import { databases } from "@db/schema";
import type { AppContext } from "../../context";
import { notifyPitrLag } from "../notifications/service";
import { PITR_LAG_ALERT_SECONDS, PITR_UNREACHABLE_ALERT_SECONDS } from "./lag-figure";

type LagEntry = { database: string; seconds: number; unreachableSeconds?: number };

/** Records an agent's report for the databases it runs with point-in-time recovery on; other names are ignored. */
export async function recordPitrLag(ctx: AppContext, agentId: string, report: LagEntry[]): Promise<void> {
  if (report.length === 0) return;
  const rows = await ctx.db
    .select({ id: databases.id, organizationId: databases.organizationId, name: databases.name, unreachableSince: databases.pitrUnreachableSince })
    .from(databases)
    .where(
      and(
        eq(databases.agentId, agentId),
        eq(databases.pitrEnabled, true),
        inArray(
          databases.name,
          report.map((entry) => entry.database),
        ),
      ),
    );
  const now = ctx.now();
  for (const row of rows) {
    const { seconds, unreachableSeconds } = report.find((entry) => entry.database === row.name)!;
    // Kept from the first report of an outage, so it does not drift with each heartbeat's rounding.
    const unreachableSince = unreachableSeconds === undefined ? null : (row.unreachableSince ?? new Date(now.getTime() - unreachableSeconds * 1000));
    const cutOff = unreachableSince !== null && now.getTime() - unreachableSince.getTime() >= PITR_UNREACHABLE_ALERT_SECONDS * 1000;
    const behind = seconds > PITR_LAG_ALERT_SECONDS || cutOff;
    await ctx.db
      .update(databases)
      .set({ pitrLagSeconds: seconds, pitrLagReportedAt: now, pitrUnreachableSince: unreachableSince })
      .where(eq(databases.id, row.id));
    // The flag flips in one conditional update, so two heartbeats at once raise the alert once.
    const flipped = await ctx.db
      .update(databases)
      .set({ pitrLagAlerted: behind })
      .where(and(eq(databases.id, row.id), eq(databases.pitrLagAlerted, !behind)))
      .returning({ id: databases.id });
    if (behind && flipped.length > 0) {
      ctx.log.warn("point-in-time recovery shipping is behind", { databaseId: row.id, seconds, unreachableSince });
      const facts = { databaseId: row.id, databaseName: row.name, seconds, ...(unreachableSince ? { unreachableSince: unreachableSince.toISOString() } : {}) };
      await notifyPitrLag(ctx, row.organizationId, facts).catch((error) => ctx.log.error("could not announce a shipping lag", { databaseId: row.id, error }));
    }
  }
}
