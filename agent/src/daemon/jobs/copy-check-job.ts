// The daily check of the copies in the customer's buckets (copies/copy-check.ts), run by the
// daemon. The server keeps when each copy was last checked and says when a check is due, so a
// restarted agent neither checks again at once nor waits a new day: it asks at each connection
// and every hour, and queues the check as a job (a read-back downloads a whole backup).
import { checkAndReportCopies } from "../../copies/copy-check.ts";
import { describeError, type JobContext } from "../job-context.ts";
import type { JobQueue } from "../job-queue.ts";

const ASK_EVERY_MS = 3_600_000;

export function createCopyCheckSchedule(job: JobContext, queue: JobQueue) {
  const { runtime } = job;
  let queued = false;

  const run = async () => {
    try {
      const entries = await runtime.copies();
      const { results, answer } = await checkAndReportCopies(runtime.client(), entries, { sample: 1, signal: job.signal });
      const wrong = results.filter((result) => result.outcome !== "present");
      runtime.log(wrong.length > 0 ? "copy check found copies not as written" : "copy check done", {
        checked: results.length,
        readBack: results.filter((result) => result.readBack).length,
        ...Object.fromEntries(["missing", "changed", "unreachable"].map((outcome) => [outcome, wrong.filter((result) => result.outcome === outcome).length])),
        alerts: answer?.alerts ?? 0,
      });
    } catch (error) {
      // Still due on the server: the next hourly ask queues it again.
      runtime.log("copy check failed", { error: describeError(error) });
    } finally {
      queued = false;
    }
  };

  /** Queues a check when the agent has copy destinations and the server says one is due. Never throws. */
  const consider = async () => {
    if (queued || job.signal.aborted) return;
    try {
      if ((await runtime.copies()).length === 0) return;
      if (!(await runtime.client().copiesToCheck()).due) return;
    } catch (error) {
      runtime.log("could not ask whether a copy check is due", { error: describeError(error) });
      return;
    }
    queued = true;
    queue.enqueue(run);
  };

  const timer = setInterval(() => void consider(), ASK_EVERY_MS);
  timer.unref?.();
  return {
    /** At each connection: a check due since the agent last ran starts now. */
    connected: () => void consider(),
    stop: () => clearInterval(timer),
  };
}
