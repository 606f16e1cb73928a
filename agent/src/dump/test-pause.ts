// A hook for the kill-matrix test (agent/test/restore-kill-matrix.integration.test.ts): with
// DBVAULT_TEST_PAUSE_AT=<point> (or <point>#<n> for its n-th passage) the agent stops itself with
// SIGSTOP when a restore reaches that named point, after writing "dbvault-test-paused-at <point>"
// to stderr. The test then kills the agent or the MongoDB server at exactly that step and, for a
// server kill, resumes the agent with SIGCONT. Timing (sleeping, counting bytes) could not name
// the step a kill lands on. The consistent-dump test (agent/test/consistent-dump.integration.test.ts)
// stops a dump the same way to write while it is paused. Read here rather than in config.ts: it is a test seam, not a setting,
// and unset it does nothing.
import { writeSync } from "node:fs";

/** The named points of a restore, in the order a restore passes them, and of a dump. */
export type PausePoint =
  /** A built-in dump has read one collection whole (writes then land between T0 and T1 on a replica set). */
  | "dump-collection-done"
  | "verified"
  | "staging-created"
  | "staging-inserted"
  | "staged"
  | "renamed"
  | "copy-recorded"
  | "copy-target-created"
  | "copy-batch"
  | "copy-done"
  | "copy-cleared"
  // key rewrap (commands/key-rotate.ts): after the server replaced one backup's header.
  | "header-rewrapped";

const requested = parseRequest(process.env.DBVAULT_TEST_PAUSE_AT);
let passages = 0;

/** Stops this process at `point` when DBVAULT_TEST_PAUSE_AT asks for it; otherwise does nothing. */
export async function pauseForTest(point: PausePoint): Promise<void> {
  if (requested?.point !== point || ++passages !== requested.passage) return;
  // Synchronous, so the line is out before the process stops.
  writeSync(2, `dbvault-test-paused-at ${point}\n`);
  process.kill(process.pid, "SIGSTOP");
}

function parseRequest(value: string | undefined): { point: string; passage: number } | undefined {
  if (!value) return undefined;
  const [point, passage] = value.split("#");
  return { point: point!, passage: passage ? Number(passage) : 1 };
}
