// A backup or restore whose agent was killed (SIGKILL, a crash, the machine restarting) stayed
// in progress until the stalled-operation sweep, 10 minutes after its last report, even though
// the agent was back within seconds: "Back up now" answered 409 "already running" and the
// backup's uploaded parts stayed counted in the quota. An agent's hello names the jobs its
// process took (`jobs`): one the server has in progress on it that is not named was lost with
// an earlier run, and fails at once, its parts released as any failed backup's.
import { and, eq, lt } from "drizzle-orm";
import { backups, restores } from "@db/schema";
import type { QueuedJobs } from "@protocol/agent-protocol";
import type { AppContext } from "../../context";
import { failBackup } from "../backups/service";
import { failRestore } from "../restores/service";

export const RESTARTED_BACKUP_MESSAGE =
  "The agent restarted during the backup (its process was stopped or killed, or its machine restarted); what it had uploaded was deleted. Back up again.";
export const RESTARTED_RESTORE_MESSAGE =
  "The agent restarted during the restore (its process was stopped or killed, or its machine restarted). Collections it had swapped in hold the backup's data and the others their data from before (one being copied in place, as time-series collections before MongoDB 8.0 are, may be partly filled). Restore again to be sure every collection holds the backup's.";
export const RESTARTED_DRILL_MESSAGE = "The agent restarted during the restore drill (its process was stopped or killed, or its machine restarted).";

/**
 * Fails the agent's backups and restores in progress that its hello does not name. Only those
 * last heard of before this socket opened: one active since was reported on it (or uploaded to
 * over HTTP) by the process saying hello, so it runs.
 */
export async function failLostJobs(ctx: AppContext, agentId: string, held: QueuedJobs, socketOpenedAt: Date) {
  const backupIds = new Set(held.backupIds);
  const running = await ctx.db
    .select({ id: backups.id })
    .from(backups)
    .where(and(eq(backups.agentId, agentId), eq(backups.status, "in-progress"), lt(backups.lastActivityAt, socketOpenedAt)));
  for (const { id } of running) {
    if (backupIds.has(id)) continue;
    await failBackup(ctx, id, RESTARTED_BACKUP_MESSAGE);
    ctx.log.warn("failed a backup its agent no longer runs (the agent restarted)", { backupId: id, agentId });
  }
  const restoreIds = new Set(held.restoreIds);
  const restoring = await ctx.db
    .select({ id: restores.id, kind: restores.kind })
    .from(restores)
    .where(and(eq(restores.agentId, agentId), eq(restores.status, "in-progress"), lt(restores.lastActivityAt, socketOpenedAt)));
  for (const { id, kind } of restoring) {
    if (restoreIds.has(id)) continue;
    await failRestore(ctx, id, kind === "restore" ? RESTARTED_RESTORE_MESSAGE : RESTARTED_DRILL_MESSAGE, { agentId });
    ctx.log.warn("failed a restore its agent no longer runs (the agent restarted)", { restoreId: id, agentId, kind });
  }
}
