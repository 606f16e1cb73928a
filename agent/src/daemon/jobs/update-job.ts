import type { UpdateReport } from "../../update/update-agent.ts";
import { describeError, type JobContext } from "../job-context.ts";
import type { JobQueue } from "../job-queue.ts";

/**
 * Check for Updates as a job like the others, so it never runs during a backup or restore. Once
 * a version is installed, `restartWhenIdle` is called each time the queue runs dry: the daemon
 * then resolves its restartRequested.
 */
export function createUpdateJob(job: JobContext, queue: JobQueue) {
  const { runtime } = job;
  let updating = false;
  let installedVersion: string | null = null;

  const report: UpdateReport = (status, message, version) => {
    runtime.log(`update: ${message}`, { status, ...(version ? { version } : {}) });
    job.deliver({ type: "update.status", status, message: message.slice(0, 2000), ...(version ? { version } : {}) });
  };

  return {
    /** The version an update installed, waiting for the queue to be idle to restart into it. */
    installedVersion: () => installedVersion,
    /**
     * Queues an update check (one at a time); says so when it must wait for the running job. One
     * of the server's ledger (`jobId`) already taken is a repeat and is ignored: returns false then.
     */
    request(jobId?: string): boolean {
      if (jobId && queue.holds({ jobId })) return false;
      if (installedVersion) {
        report("restarting", `dbvault-agent ${installedVersion} is installed and starts once the running job ends`, installedVersion);
        return true;
      }
      if (updating) {
        report("checking", "an update check is already under way");
        return true;
      }
      updating = true;
      if (queue.isBusy()) report("waiting", "the update waits for the running backup or restore to finish");
      return queue.enqueue(
        async () => {
          try {
            const version = await runtime.update(report);
            if (version) {
              installedVersion = version;
              report("restarting", `dbvault-agent ${version} is installed; restarting into it`, version);
            }
          } catch (error) {
            report("failed", `${describeError(error)} (dbvault-agent ${runtime.hello.version} keeps running)`);
          } finally {
            updating = false;
          }
        },
        jobId ? { jobId } : undefined,
      );
    },
  };
}
