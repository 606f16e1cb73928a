import { sql } from "drizzle-orm";
import type { AppContext } from "../../context";

/** Whether this instance can serve backups: its database and its storage answer. */
export async function checkServiceHealth(ctx: AppContext) {
  const checks = { database: false, storage: false };
  try {
    await ctx.db.execute(sql`select 1`);
    checks.database = true;
  } catch (error) {
    ctx.log.error("health check: database unreachable", { error });
  }
  try {
    await ctx.storage.check();
    checks.storage = true;
  } catch (error) {
    ctx.log.error("health check: storage unavailable", { error });
  }
  const ok = checks.database && checks.storage;
  return { ok, status: ok ? "ok" : "degraded", checks, time: ctx.now().toISOString() };
}
