// The shipping lag agents report with each heartbeat (issue 25 §2): stored on the database, used
// by /metrics and the dashboard while fresh, and alerted (pitr.lag) once when it passes
// PITR_LAG_ALERT_SECONDS, then again only after it came back under.
import { and, eq, inArray } from "drizzle-orm";
import { databases } from "@db/schema";
import type { AppContext } from "../../context";
import { notifyPitrLag } from "../notifications/service";
import { PITR_LAG_ALERT_SECONDS } from "./lag-figure";

/** Records an agent's report for the databases it runs with point-in-time recovery on; other names are ignored. */
export async function recordPitrLag(ctx: AppContext, agentId: string, report: { database: string; seconds: number }[]): Promise<void> {
  if (report.length === 0) return;
  const rows = await ctx.db
    .select({ id: databases.id, organizationId: databases.organizationId, name: databases.name })
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
    const seconds = report.find((entry) => entry.database === row.name)!.seconds;
    const behind = seconds > PITR_LAG_ALERT_SECONDS;
    await ctx.db.update(databases).set({ pitrLagSeconds: seconds, pitrLagReportedAt: now }).where(eq(databases.id, row.id));
    // The flag flips in one conditional update, so two heartbeats at once raise the alert once.
    const flipped = await ctx.db
      .update(databases)
      .set({ pitrLagAlerted: behind })
      .where(and(eq(databases.id, row.id), eq(databases.pitrLagAlerted, !behind)))
      .returning({ id: databases.id });
    if (behind && flipped.length > 0) {
      ctx.log.warn("point-in-time recovery shipping is behind", { databaseId: row.id, seconds });
      await notifyPitrLag(ctx, row.organizationId, { databaseId: row.id, databaseName: row.name, seconds }).catch((error) =>
        ctx.log.error("could not announce a shipping lag", { databaseId: row.id, error }),
      );
    }
  }
}
