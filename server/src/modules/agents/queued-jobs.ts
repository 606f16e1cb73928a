import { and, eq, gt, inArray } from "drizzle-orm";
import { restores } from "@db/schema";
import type { QueuedJobs } from "@protocol/agent-protocol";
import type { AppContext } from "../../context";
import { QUEUED_LIMIT_MS } from "../agent-jobs/lease-rules";
import { keepQueuedBackupsPending } from "../backups/records";

/**
 * Keeps the backups and restores an agent says it holds in its queue pending: an agent runs one
 * job at a time, so a restore asked for during a long backup waits its turn in silence. Without
 * this the stalled-operation sweeper failed it as never started after PENDING_TIMEOUT_MS, and
 * the agent then ran it anyway: the history said failed while the database was replaced.
 * Only pending rows of this agent are touched; a started job must report its own progress. A
 * job waits at most QUEUED_LIMIT_MS: an agent whose running job hangs would otherwise keep every
 * later backup pending, unfailed and unannounced, for ever.
 */
export async function recordQueuedJobs(ctx: AppContext, agentId: string, queued: QueuedJobs) {
  const now = ctx.now();
  const since = new Date(now.getTime() - QUEUED_LIMIT_MS);
  if (queued.restoreIds.length > 0) {
    await ctx.db
      .update(restores)
      .set({ lastActivityAt: now })
      .where(and(eq(restores.agentId, agentId), eq(restores.status, "pending"), gt(restores.createdAt, since), inArray(restores.id, queued.restoreIds)));
  }
  await keepQueuedBackupsPending(ctx, agentId, queued.backupIds, since);
}
