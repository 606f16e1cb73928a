import type { QueuedJobs } from "../../../protocol/agent-protocol";

/** The server-tracked operation a queued job is: a backup, or a restore (a drill is one too). */
export type QueuedJob = { backupId: string } | { restoreId: string };

/** The heartbeat's list of jobs waiting in the queue (the protocol's limit of each), or undefined when none wait. */
export function describeQueuedJobs(held: QueuedJob[]): QueuedJobs | undefined {
  if (held.length === 0) return undefined;
  const backupIds = held.flatMap((job) => ("backupId" in job ? [job.backupId] : [])).slice(0, 100);
  const restoreIds = held.flatMap((job) => ("restoreId" in job ? [job.restoreId] : [])).slice(0, 100);
  return { backupIds, restoreIds };
}
