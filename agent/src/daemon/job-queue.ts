import { describeQueuedJobs, type QueuedJob } from "./queued-jobs.ts";

/**
 * Runs the daemon's jobs one at a time, in the order asked. Each queued job may name the backup
 * or restore it is, so heartbeats can tell the server which ones wait their turn here (it would
 * otherwise fail them as never started). `onIdle` runs whenever the queue runs dry.
 */
export function createJobQueue(options: { onIdle(): void }) {
  const jobs: { run: () => Promise<void>; holds?: QueuedJob }[] = [];
  // `running` is set before the job starts: a job that queues another synchronously must not
  // start it beside itself.
  let running = false;
  let current: Promise<void> | null = null;

  const runNext = async () => {
    if (running) return;
    const job = jobs.shift();
    if (!job) {
      options.onIdle();
      return;
    }
    running = true;
    try {
      current = job.run();
      await current;
    } finally {
      running = false;
      current = null;
      void runNext();
    }
  };

  return {
    /** Queues a job; it starts at once when nothing runs. */
    enqueue(run: () => Promise<void>, holds?: QueuedJob) {
      jobs.push({ run, ...(holds ? { holds } : {}) });
      void runNext();
    },
    /** Whether a job runs or waits. */
    isBusy: () => running || jobs.length > 0,
    /** The heartbeat's list of the backups and restores waiting (not the running one). */
    describeQueued: () => describeQueuedJobs(jobs.flatMap((job) => (job.holds ? [job.holds] : []))),
    /** The running job, if any. */
    running: () => current,
    /** Forgets every waiting job (the running one goes on). */
    clear() {
      jobs.length = 0;
    },
  };
}

export type JobQueue = ReturnType<typeof createJobQueue>;
