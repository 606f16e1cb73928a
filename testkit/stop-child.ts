// Stopping a test peer started with node:child_process (FerretDB, SeaweedFS): SIGTERM so it shuts
// down cleanly, SIGKILL when it has not gone within the grace period.
import type { ChildProcess } from "node:child_process";

/** Stops `child` (whose exit `exited` resolves on) with SIGTERM, SIGKILL after `graceMs`. */
export async function stopChild(child: ChildProcess, exited: Promise<unknown>, graceMs = 10_000): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
  const stopped = await Promise.race([exited.then(() => true), new Promise<false>((resolve) => setTimeout(() => resolve(false), graceMs))]);
  if (!stopped) {
    child.kill("SIGKILL");
    await exited;
  }
}
