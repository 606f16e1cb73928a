import type { RestoreStats, ServerMessage } from "../../../../protocol/agent-protocol";
import type { IdentityTransport } from "../identity-transport.ts";
import { describeError, type JobContext } from "../job-context.ts";
import { throttleProgress } from "../progress-throttle.ts";
import { openResumableDownload } from "../resumable-download.ts";
import { type DownloadedSlices, downloadSlices, fetchPointInTimePlan } from "./point-in-time-slices.ts";

/**
 * One restore the server asked for: the backup downloaded (resuming after drops), verified and
 * restored by the runtime (dump/: verify, stage, swap); the outcome, with what was replaced when
 * it failed part-way, is delivered to the server even across a lost connection. A point-in-time
 * restore first fetches its plan and downloads its slices; the restore replays them after the
 * backup's own oplog.
 */
export async function runRestoreJob(
  job: JobContext,
  command: Extract<ServerMessage, { type: "restore" }>,
  /** Opens an identity the web sealed to this run of the agent; absent: none can be opened. */
  identityTransport?: Pick<IdentityTransport, "open">,
): Promise<void> {
  const { runtime, signal } = job;
  const { restoreId, backupId, databaseName, size, targetDatabase, pointInTime, sealedIdentity } = command;
  let collections = command.collections;
  runtime.log("restore started", { restoreId, backupId, databaseName, ...(targetDatabase ? { targetDatabase } : {}), ...(collections ? { collections } : {}) });
  job.deliver({ type: "restore.started", restoreId });
  const report = throttleProgress((progress) => job.send({ type: "restore.progress", restoreId, progress }));
  let slices: DownloadedSlices | undefined;
  try {
    // The whole chain is here before the backup is read: its check needs every slice.
    // Pasted in the web and sealed there to this agent: opened here, in memory, for this restore only.
    const identity = sealedIdentity === undefined ? undefined : await openSentIdentity(identityTransport, sealedIdentity);
    if (pointInTime) {
      const plan = await fetchPointInTimePlan(runtime.client(), restoreId, pointInTime, signal);
      collections = plan.collections ?? undefined;
      slices = await downloadSlices(runtime.client(), plan, signal);
    }
    const download = openResumableDownload(runtime.client(), backupId, { signal });
    const stats = await runtime.restore(databaseName, download, {
      onProgress: report,
      signal,
      inputBytes: size,
      ...(targetDatabase ? { targetDatabase } : {}),
      ...(collections ? { collections } : {}),
      ...(pointInTime && slices ? { pointInTime: { until: pointInTime.until, files: slices.files } } : {}),
      ...(identity !== undefined ? { identity } : {}),
    });
    runtime.log("restore completed", { restoreId, databaseName });
    job.deliver({ type: "restore.completed", restoreId, stats });
  } catch (error) {
    runtime.log("restore failed", { restoreId, databaseName, error: describeError(error) });
    const stats = (error as { stats?: RestoreStats }).stats;
    job.deliver({ type: "restore.failed", restoreId, error: describeError(error), ...(stats ? { stats } : {}) });
  } finally {
    await slices?.remove();
  }
}

function openSentIdentity(transport: Pick<IdentityTransport, "open"> | undefined, sealed: string): Promise<string> {
  if (!transport) throw new Error("this agent cannot open an identity sent with a restore: open the restore wizard again and paste it");
  return transport.open(sealed);
}
