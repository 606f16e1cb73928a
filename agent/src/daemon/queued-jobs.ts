import type { QueuedJobs } from "../../../protocol/agent-protocol";

/**
 * The server-tracked operation a queued job is: a backup, or a restore (a drill is one too), or a
 * job of the server's ledger with no operation of its own (a verification, an update), by its id.
 */
export type QueuedJob = { backupId: string } | { restoreId: string } | { jobId: string };

/**
 * The heartbeat's list of jobs waiting in the queue (the protocol's limit of each), or undefined
 * when none wait. `running`, the job running, is named only by its job id: a backup or restore
 * running reports its own progress, a verification or an update does not.
 */
export function describeQueuedJobs(held: QueuedJob[], running?: QueuedJob): QueuedJobs | undefined {
  const jobIds = [...(running ? [running] : []), ...held].flatMap((job) => ("jobId" in job ? [job.jobId] : [])).slice(0, 100);
  if (held.length === 0 && jobIds.length === 0) return undefined;
  const backupIds = held.flatMap((job) => ("backupId" in job ? [job.backupId] : [])).slice(0, 100);
  const restoreIds = held.flatMap((job) => ("restoreId" in job ? [job.restoreId] : [])).slice(0, 100);
  return { backupIds, restoreIds, ...(jobIds.length > 0 ? { jobIds } : {}) };
}
