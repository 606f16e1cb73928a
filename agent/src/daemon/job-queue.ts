import type { QueuedJobs } from "../../../protocol/agent-protocol";
import { describeQueuedJobs, type QueuedJob } from "./queued-jobs.ts";

/**
 * How many backup, restore (drill) and other job ids the queue remembers having taken. The server
 * sends a job again on each hello while its lease runs (server modules/agent-jobs/), which
 * repeats one whose first send did arrive; a repeat comes within minutes of the first,
 * so the last thousand jobs cover it many times over, and a daemon running for years does not
 * grow a set of every id it ever ran.
 */
const REMEMBERED_JOBS = 1_000;

const keyOf = (holds: QueuedJob) =>
  "backupId" in holds ? `backup:${holds.backupId}` : "restoreId" in holds ? `restore:${holds.restoreId}` : `job:${holds.jobId}`;

/**
 * Runs the daemon's jobs one at a time, in the order asked. Each queued job may name the backup
 * or restore it is, so heartbeats can tell the server which ones wait their turn here (it would
 * otherwise fail them as never started), and so one asked for again is not run twice.
 * `onIdle` runs whenever the queue runs dry.
 */
export function createJobQueue(options: { onIdle(): void }) {
  const jobs: { run: () => Promise<void>; holds?: QueuedJob }[] = [];
  // `running` is set before the job starts: a job that queues another synchronously must not
  // start it beside itself.
  let running = false;
  let current: Promise<void> | null = null;
  let currentKey: string | null = null;
  let currentHolds: QueuedJob | undefined;
  // The backups and restores queued, running or run by this process, oldest first (a Set keeps
  // insertion order), at most REMEMBERED_JOBS of them.
  const taken = new Set<string>();

  const runNext = async () => {
    if (running) return;
    const job = jobs.shift();
    if (!job) {
      options.onIdle();
      return;
    }
    running = true;
    currentKey = job.holds ? keyOf(job.holds) : null;
    currentHolds = job.holds;
    try {
      current = job.run();
      await current;
    } finally {
      running = false;
      current = null;
      currentKey = null;
      currentHolds = undefined;
      void runNext();
    }
  };

  const remember = (key: string) => {
    taken.add(key);
    for (const oldest of taken) {
      if (taken.size <= REMEMBERED_JOBS) break;
      taken.delete(oldest);
    }
  };

  return {
    /**
     * Queues a job; it starts at once when nothing runs. One naming a backup or restore this
     * queue already holds, runs or has run is a repeat of the server's command and is ignored:
     * returns false then.
     */
    enqueue(run: () => Promise<void>, holds?: QueuedJob) {
      if (holds) {
        const key = keyOf(holds);
        // The running and waiting ones too: with over REMEMBERED_JOBS queued after them, they may have left `taken`.
        if (taken.has(key) || currentKey === key || jobs.some((job) => job.holds && keyOf(job.holds) === key)) return false;
        remember(key);
      }
      jobs.push({ run, ...(holds ? { holds } : {}) });
      void runNext();
      return true;
    },
    /** Whether the queue holds, runs or has run this job: one taken again is a repeat. */
    holds: (holds: QueuedJob) => {
      const key = keyOf(holds);
      return taken.has(key) || currentKey === key || jobs.some((job) => job.holds && keyOf(job.holds) === key);
    },
    /** Whether a job runs or waits. */
    isBusy: () => running || jobs.length > 0,
    /** The heartbeat's list of the backups and restores waiting (not the running one), and of the ledger's other jobs held. */
    describeQueued: () =>
      describeQueuedJobs(
        jobs.flatMap((job) => (job.holds ? [job.holds] : [])),
        currentHolds,
      ),
    /**
     * The hello's list of the backups and restores this process took, newest last (the protocol's
     * limit of each): the server fails one in progress that it does not name, lost with an earlier run.
     */
    describeTaken: (): QueuedJobs => {
      // The running and waiting ones last, whether or not they are still in `taken`.
      const held = [...(currentKey ? [currentKey] : []), ...jobs.flatMap((job) => (job.holds ? [keyOf(job.holds)] : []))];
      const keys = [...[...taken].filter((key) => !held.includes(key)), ...held];
      const ids = (prefix: string) => keys.filter((key) => key.startsWith(prefix)).map((key) => key.slice(prefix.length));
      return { backupIds: ids("backup:").slice(-100), restoreIds: ids("restore:").slice(-100) };
    },
    /** The running job, if any. */
    running: () => current,
    /** Forgets every waiting job (the running one goes on); those never ran, so may be taken again. */
    clear() {
      for (const job of jobs) if (job.holds) taken.delete(keyOf(job.holds));
      jobs.length = 0;
    },
  };
}

export type JobQueue = ReturnType<typeof createJobQueue>;
