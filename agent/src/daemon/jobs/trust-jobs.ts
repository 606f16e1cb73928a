// The daemon's proofs that backups restore: reading a stored backup back through the server
// (after each upload, and when the server asks again) and restore drills into a scratch database.
import { createHash } from "node:crypto";
import type { RestoreStats, ServerMessage, Verification } from "../../../../protocol/agent-protocol";
import { verificationOf } from "../../../../protocol/verification";
import { ArchiveError } from "../../archive/index.ts";
import { DrillError, DumpError, isDumpError } from "../../dump/index.ts";
import { MongodumpArchiveError } from "../../dump/mongodump-archive/index.ts";
import { ServerRefusedError, ServerUnreachableError } from "../../transport/errors";
import { describeError, type JobContext } from "../job-context.ts";
import { throttleProgress } from "../progress-throttle";
import { openResumableDownload } from "../resumable-download";

/**
 * True when the failure is the backup file's own: it does not decrypt or parse (damaged, cut,
 * foreign, another key), or the server says its file is gone from storage (410).
 */
function isUnreadableFile(error: unknown): boolean {
  return (
    error instanceof ArchiveError ||
    error instanceof MongodumpArchiveError ||
    (error instanceof ServerRefusedError && error.status === 410) ||
    (error instanceof DrillError && isUnreadableFile(error.cause))
  );
}

/** True when the failure happened reading the file back, before any replay: the file, the download, the key. */
function isReadBackFailure(error: unknown): boolean {
  return isUnreadableFile(error) || !isDumpError(error);
}

/** True when a drill found the backup itself cannot be restored (see DumpError.backupAtFault). */
function isUnrestorableBackup(error: unknown): boolean {
  return error instanceof DrillError && error.cause instanceof DumpError && error.cause.backupAtFault;
}

export function createTrustJobs({ runtime, deliver, send, signal }: JobContext) {
  const report = (backupId: string, verification: Verification) => deliver({ type: "backup.verified", backupId, verification });

  /**
   * Downloads a stored backup, decrypts and parses all of it, and reports what it holds compared
   * with `expected` (the counts dumped) and, when the server sends it, `sha256` (the file's
   * checksum recorded at upload: a restore agent checks what a write-only agent stored). A backup
   * with an oplog window is verified only once that window replayed into a scratch database of
   * `databaseName` as a restore replays it (dump/replay-check.ts): one whose keys do not hold
   * after it, or that could not be replayed, fails. Not reported: a stop of the agent, or a server
   * or database that could not be reached (the backup stays unverified rather than falsely failed).
   */
  async function verifyBackup(backupId: string, databaseName: string, expected: Record<string, number> | undefined, sha256?: string) {
    runtime.log("verifying the stored backup", { backupId });
    let verification: Verification;
    try {
      const hash = createHash("sha256");
      const download = openResumableDownload(runtime.client(), backupId, { signal }).pipeThrough(
        new TransformStream<Uint8Array, Uint8Array>({
          transform(chunk, controller) {
            hash.update(chunk);
            controller.enqueue(chunk);
          },
        }),
      );
      const { namespaces, unreplayable } = await runtime.verify(download, { signal, databaseName });
      verification = verificationOf(namespaces, expected);
      const read = hash.digest("hex");
      if (sha256 && read !== sha256 && verification.status === "ok") {
        verification = { status: "failed", namespaces, error: `the stored file's SHA-256 ${read} is not the one recorded at upload (${sha256})` };
      } else if (unreplayable && verification.status === "ok") {
        verification = {
          status: "failed",
          namespaces,
          error: `the backup read back whole, but its oplog window could not be replayed to prove it restores: ${unreplayable}`,
        };
      }
    } catch (error) {
      if (isDumpError(error) && error.backupAtFault) {
        verification = { status: "failed", namespaces: {}, error: `the backup does not restore: ${describeError(error)}`.slice(0, 1900) };
        return finish(backupId, verification);
      }
      if (signal.aborted || error instanceof ServerUnreachableError || isDumpError(error, "connect-failed")) {
        runtime.log("could not verify the backup now; it stays unverified", { backupId, error: describeError(error) });
        return;
      }
      verification = isReadBackFailure(error)
        ? { status: "failed", namespaces: {}, error: `the stored backup could not be read back: ${describeError(error)}`.slice(0, 1900) }
        : {
            status: "failed",
            namespaces: {},
            error: `the backup read back whole, but its oplog window could not be replayed to prove it restores: ${describeError(error)}`.slice(0, 1900),
          };
    }
    finish(backupId, verification);
  }

  function finish(backupId: string, verification: Verification) {
    runtime.log(verification.status === "ok" ? "backup verified" : "backup verification failed", {
      backupId,
      ...(verification.error ? { error: verification.error } : {}),
    });
    report(backupId, verification);
  }

  /** Runs a drill: the backup restored into the scratch database, checked and dropped; reported like a restore, with the drill's report. */
  async function runDrill(command: Extract<ServerMessage, { type: "drill" }>) {
    const { restoreId, backupId, databaseName, size, scratchDatabase } = command;
    runtime.log("restore drill started", { restoreId, backupId, databaseName, scratchDatabase });
    deliver({ type: "restore.started", restoreId });
    const onProgress = throttleProgress((progress) => send({ type: "restore.progress", restoreId, progress }));
    try {
      const download = openResumableDownload(runtime.client(), backupId, { signal });
      const { stats, report: drill } = await runtime.drill(databaseName, download, { scratchDatabase, onProgress, signal, inputBytes: size });
      runtime.log("restore drill passed", { restoreId, databaseName, durationMs: drill.durationMs });
      deliver({ type: "restore.completed", restoreId, stats, drill });
    } catch (error) {
      const message = `drill failed: ${describeError(error)}`;
      runtime.log("restore drill failed", { restoreId, databaseName, error: message });
      const stats: RestoreStats | undefined = error instanceof DrillError ? error.stats : undefined;
      const drill = error instanceof DrillError ? error.report : undefined;
      deliver({ type: "restore.failed", restoreId, error: message.slice(0, 1900), ...(stats ? { stats } : {}), ...(drill ? { drill } : {}) });
      // The file itself did not read back, or does not restore: the backup's verification says so
      // too, so it is never shown Verified nor taken as a point-in-time base.
      if (isUnreadableFile(error))
        report(backupId, {
          status: "failed",
          namespaces: {},
          error: `a restore drill could not read the stored backup: ${describeError(error)}`.slice(0, 1900),
        });
      else if (isUnrestorableBackup(error))
        report(backupId, {
          status: "failed",
          namespaces: {},
          error: `a restore drill found the backup does not restore: ${describeError(error)}`.slice(0, 1900),
        });
    }
  }

  return { verifyBackup, runDrill };
}

export type TrustJobs = ReturnType<typeof createTrustJobs>;
