import type { AgentRole } from "@protocol/agent-protocol";
import type { AppContext } from "../../context";
import { jobKindsOf, takeJobsToSend } from "../agent-jobs/service";
import { recordQueuedJobs } from "../agents/queued-jobs";

/**
 * The agent's jobs to send, on its socket or over HTTP (GET agentApi.jobs), less those in
 * `except`. The subjects of those not acknowledged yet stay pending as the agent's heartbeat keeps
 * them: sent again, the agent has the whole time to take one that it had the first time. One
 * acknowledged is the heartbeat's to keep: its subject's row may be locked by the agent's own
 * report (an upload part being stored), and waiting for it would hold back every other job.
 */
export async function jobsToDeliver(ctx: AppContext, agentId: string, role: AgentRole | undefined, except?: ReadonlySet<string>) {
  const jobs = await takeJobsToSend(ctx, agentId, { ...jobKindsOf(role), ...(except ? { except } : {}) });
  const ids = (kinds: string[]) => jobs.filter((job) => !job.acknowledged && kinds.includes(job.kind)).map((job) => job.subjectId);
  if (jobs.some((job) => !job.acknowledged)) await recordQueuedJobs(ctx, agentId, { backupIds: ids(["backup"]), restoreIds: ids(["restore", "drill"]) });
  return jobs.map((job) => job.command);
}
