import { collectGarbageNow } from "../../archive/index.ts";
import type { Consistency, DumpResult } from "../../dump/index.ts";
import type { GoSignals } from "../../transport/go-signals.ts";
import { uploadBackup } from "../../transport/uploader.ts";
import { type CopySpool, openCopySpool } from "../../copies/copy-spool.ts";
import { writeBackupCopies } from "../../copies/copy-writer.ts";
import { describeError, type JobContext } from "../job-context.ts";
import { throttleProgress } from "../progress-throttle.ts";
import { noteKeyId } from "./backup-key-id.ts";
import type { TrustJobs } from "./trust-jobs.ts";

const STOPPED_REASON = "the agent was stopped during the backup (dbvault-agent run received a stop signal)";

/**
 * One backup the server asked for: dump, compress, encrypt and upload as it goes, then read the
 * stored file back (a backup is not done until it is proven readable). A failure is reported to
 * the server over the socket and over HTTP, so either path records it.
 */
export async function runBackupJob(
  job: JobContext & { goSignals: GoSignals; trust: TrustJobs },
  backupId: string,
  databaseName: string,
  fileName = `backup-${databaseName}-${backupId}.enc.dbvault`,
  excludeCollections: string[] = [],
): Promise<void> {
  const { runtime, signal } = job;
  runtime.log("backup started", { backupId, databaseName });
  const report = throttleProgress((progress) => job.send({ type: "backup.progress", backupId, progress }));
  /** The uploaded file's SHA-256, once the server accepted it: the read-back compares with it. */
  let uploaded: string | undefined;
  let dumped: Record<string, number> | undefined;
  let keyId: string | undefined;
  let consistency: Consistency | undefined;
  let spool: CopySpool | undefined;
  try {
    const copies = await runtime.copies();
    spool = copies.length > 0 ? await openCopySpool() : undefined;
    const onDumped = (result: DumpResult) => {
      dumped = result.collections;
      consistency = result.consistency;
    };
    const encrypted = noteKeyId(runtime.backup(databaseName, { onProgress: report, signal, onDumped, excludeCollections }), (id) => (keyId = id));
    const source = spool ? spool.tee(encrypted) : encrypted;
    const result = await uploadBackup(runtime.client(), backupId, source, {
      goSignals: job.goSignals,
      collections: () => dumped,
      keyId: () => keyId,
      consistency: () => consistency,
      ownsChunks: true,
    });
    runtime.log("backup completed and uploaded", { backupId, databaseName, bytes: result.size });
    uploaded = result.sha256;
    if (spool) {
      // Not awaited: the copies go on beside the verification and the next jobs.
      const held = spool;
      spool = undefined;
      const copy = { backupId, databaseName, fileName, path: held.path, size: result.size, sha256: result.sha256 };
      void writeBackupCopies(copies, copy, { deliver: job.deliver, log: runtime.log }).finally(() => held.discard());
    }
  } catch (error) {
    const reason = signal.aborted ? STOPPED_REASON : describeError(error);
    runtime.log("backup failed", { backupId, databaseName, error: reason });
    job.deliver({ type: "backup.failed", backupId, error: reason });
    await runtime
      .client()
      .fail(backupId, reason)
      .catch(() => {});
  }
  await spool?.discard();
  // The stored file is read back at once, starting from a clean heap (the backup's last buffers
  // would otherwise add to the verification's: 159-166 MB at that moment on a 2 GB backup,
  // bench/dump-memory.ts).
  collectGarbageNow();
  if (!uploaded) return;
  // A write-only agent holds no key that opens what it sealed: the server has a restore agent
  // read it back (and says so on the backup while none is online).
  if (job.runtime.canReadOwnBackups()) await job.trust.verifyBackup(backupId, databaseName, dumped, uploaded);
  else job.runtime.log("this agent is write-only: a restore agent verifies the stored backup", { backupId });
}
