import type { ServerMessage } from "../../../protocol/agent-protocol";
import { describeError } from "./job-context.ts";
import type { DaemonRuntime } from "./runtime.ts";

/** How long after a failed fetch of the jobs it is tried again (the server may be restarting). */
const RETRY_MS = 5_000;

/**
 * Fetches the agent's jobs from the server's ledger over HTTP, with its own credentials, when the
 * socket says there is work (on each hello, and when a job is queued): the socket carries a few
 * bytes, the jobs any size. One fetch at a time; work announced during one fetches again after it.
 * Each job is handed to `handle`, which queues it (or ignores one already taken) and acknowledges it.
 */
export function createJobFetcher(runtime: DaemonRuntime, handle: (command: ServerMessage) => Promise<void>) {
  let fetching: Promise<void> | null = null;
  let again = false;
  let stopped = false;
  let retry: ReturnType<typeof setTimeout> | undefined;

  const fetchOnce = async () => {
    const { jobs } = await runtime.client().jobs();
    for (const command of jobs) {
      await handle(command).catch((error) => runtime.log("command failed", { type: command.type, error: describeError(error) }));
    }
  };

  const run = async () => {
    do {
      again = false;
      try {
        await fetchOnce();
      } catch (error) {
        runtime.log("could not fetch this agent's jobs; trying again", { error: describeError(error), retryInMs: RETRY_MS });
        clearTimeout(retry);
        retry = setTimeout(() => void fetch(), RETRY_MS);
        retry.unref?.();
        return;
      }
    } while (again && !stopped);
  };

  function fetch(): Promise<void> {
    if (stopped) return Promise.resolve();
    if (fetching) {
      again = true;
      return fetching;
    }
    fetching = run().finally(() => (fetching = null));
    return fetching;
  }

  return {
    fetch,
    stop() {
      stopped = true;
      clearTimeout(retry);
    },
  };
}
