import { and, desc, eq } from "drizzle-orm";
import { backups, databases } from "@db/schema";
import type { AppContext } from "../../context";

const HOUR = 3_600_000;

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
