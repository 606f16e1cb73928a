// Writes a backup file, once DBVault holds it, to each of the customer's own buckets and reports
// each copy (key, size, SHA-256, or why it failed) to the server. It runs beside the agent's
// other work: a copy that fails or is slow never fails or holds back the DBVault backup.
import type { BackupCopied } from "../../../protocol/agent-protocol";
import { openCopy } from "./copy-client.ts";
import { putLockedCopy } from "./copy-object-lock.ts";
import { type CopyEntry, copyObjectKey, parseCopyUrl } from "./copy-destination.ts";

export interface CopyJob {
  backupId: string;
  databaseName: string;
  /** The backup file's name (the server's download name). */
  fileName: string;
  /** The encrypted file, exactly as uploaded to DBVault. */
  path: string;
  size: number;
  sha256: string;
}

export interface CopyWriterOptions {
  /** Tries per destination before it is reported failed. */
  attempts?: number;
  /** The wait before the second try; doubled before each next one. */
  firstDelayMs?: number;
  deliver(message: BackupCopied): void;
  log(message: string, fields?: Record<string, unknown>): void;
}

const ATTEMPTS = 4;
const FIRST_DELAY_MS = 1_000;

/** Copies the file to every destination at once; resolves when each is stored or given up on. Never throws. */
export async function writeBackupCopies(entries: CopyEntry[], job: CopyJob, options: CopyWriterOptions): Promise<void> {
  await Promise.all(entries.map((entry) => writeOneCopy(entry, job, options)));
}

async function writeOneCopy(entry: CopyEntry, job: CopyJob, options: CopyWriterOptions): Promise<void> {
  const attempts = options.attempts ?? ATTEMPTS;
  const base = { type: "backup.copied" as const, backupId: job.backupId, destination: entry.url };
  let key = job.fileName;
  let lastError = "";
  try {
    key = copyObjectKey(parseCopyUrl("copies", entry.url), job.databaseName, job.fileName);
    const { client } = openCopy(entry);
    for (let attempt = 1; attempt <= attempts; attempt++) {
      try {
        // A destination added with --object-lock gets each copy with its retention in the write.
        const lockedUntil = entry.objectLock
          ? await putLockedCopy(entry, key, job.path, entry.objectLock)
          : await client.write(key, Bun.file(job.path)).then(() => null);
        // Read back its size: a write the service acknowledged but stored short is not a copy. Its
        // ETag is what the daily check's HEAD compares (copy-check.ts).
        const stored = await client.stat(key);
        if (stored.size !== job.size) throw new Error(`the stored object has ${stored.size} bytes instead of ${job.size}`);
        options.log("backup copied", {
          backupId: job.backupId,
          destination: entry.url,
          key,
          ...(lockedUntil ? { lockedUntil: lockedUntil.toISOString() } : {}),
        });
        const etag = stored.etag ? { etag: stored.etag.slice(0, 200) } : {};
        const locked = lockedUntil ? { lockedUntil: lockedUntil.toISOString() } : {};
        options.deliver({ ...base, key, status: "stored", size: job.size, sha256: job.sha256, ...etag, ...locked });
        return;
      } catch (error) {
        lastError = describeCopyFailure(error);
        options.log("could not write a backup copy", { backupId: job.backupId, destination: entry.url, attempt, error: lastError });
        if (attempt < attempts) await Bun.sleep((options.firstDelayMs ?? FIRST_DELAY_MS) * 2 ** (attempt - 1));
      }
    }
  } catch (error) {
    lastError = describeCopyFailure(error);
  }
  options.deliver({ ...base, key, status: "failed", error: `could not write the copy after ${attempts} tries: ${lastError}`.slice(0, 1900) });
}

/** S3's code or the connection's failure, never a credential (Bun's S3 errors carry none). */
function describeCopyFailure(error: unknown): string {
  const { code, message } = error as { code?: string; message?: string };
  return code ? `${code}${message ? `: ${message}` : ""}` : message || String(error);
}
