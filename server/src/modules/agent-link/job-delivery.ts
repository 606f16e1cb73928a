import type { AgentRole } from "@protocol/agent-protocol";
import type { AppContext } from "../../context";
import { jobKindsOf, takeJobsToSend } from "../agent-jobs/service";
import { recordQueuedJobs } from "../agents/queued-jobs";

/**
 * The agent's jobs to send, on its socket or over HTTP (GET agentApi.jobs), less those in
 * `except`. Their subjects stay pending as the agent's heartbeat keeps them: sent again, the agent
 * has the whole time to take one that it had the first time.
 */
export async function jobsToDeliver(ctx: AppContext, agentId: string, role: AgentRole | undefined, except?: ReadonlySet<string>) {
  const jobs = await takeJobsToSend(ctx, agentId, { ...jobKindsOf(role), ...(except ? { except } : {}) });
  const ids = (kinds: string[]) => jobs.filter((job) => kinds.includes(job.kind)).map((job) => job.subjectId);
  if (jobs.length > 0) await recordQueuedJobs(ctx, agentId, { backupIds: ids(["backup"]), restoreIds: ids(["restore", "drill"]) });
  return jobs.map((job) => job.command);
}
