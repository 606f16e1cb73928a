// A restore's private copy of the backup while it is verified: the whole file is authenticated
// before the database is touched, then restored from this copy. A 0600 file in a fresh 0700
// directory named after the agent's process, so a copy left by a process that was killed (SIGKILL,
// a power cut: no `finally` ran) can be told from one in use and removed later; it can be as
// large as the backup.
import { createReadStream, createWriteStream } from "node:fs";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Writable } from "node:stream";
import { isProcessAlive } from "../../../protocol/process-alive.ts";
import { DumpError } from "./errors.ts";
import type { ByteSource } from "./types.ts";

const COPY_PREFIX = "dbvault-restore-";
/** `dbvault-restore-<pid>-<mkdtemp's six characters>`; older agents' copies carry no pid and are left alone. */
const COPY_NAME = /^dbvault-restore-(\d+)-[A-Za-z0-9]{6}$/;

export interface PrivateCopy {
  directory: string;
  stream: Writable;
  read(): ByteSource;
  remove(): Promise<void>;
}

/** Creates the copy in `tempDir` (the system's temporary directory by default), first removing abandoned ones there. */
export async function createPrivateCopy(tempDir: string | undefined): Promise<PrivateCopy> {
  const directory = await createPrivateDirectory(tempDir);
  const path = join(directory, "backup.enc.dbvault");
  const stream = createWriteStream(path, { mode: 0o600, flags: "wx" });
  stream.on("error", () => undefined); // reported through the pipeline that writes it
  return {
    directory,
    stream,
    read: () => createReadStream(path, { highWaterMark: 1024 * 1024 }),
    remove: async () => {
      stream.destroy();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/**
 * A fresh 0700 directory for a restore's private copies in `tempDir` (the system's temporary
 * directory by default), named so that it is removed later if this process dies holding it;
 * first removes abandoned ones there.
 */
export async function createPrivateDirectory(tempDir: string | undefined): Promise<string> {
  const parent = tempDir ?? tmpdir();
  await removeAbandonedCopies(parent);
  return mkdtemp(join(parent, `${COPY_PREFIX}${process.pid}-`));
}

/** The clear error for a copy that could not be written (a full disk, a file-size limit). */
export function copyFailed(copy: PrivateCopy, cause: Error): DumpError {
  const reason = (cause as NodeJS.ErrnoException).code === "ENOSPC" ? "the disk is full" : cause.message;
  return new DumpError("copy-failed", `could not keep the backup's private copy in ${copy.directory} while verifying it: ${reason}`, {
    hint: "free some space there, or point TMPDIR at a disk with room for the whole backup file",
    cause,
  });
}

/**
 * Removes the copies in `parent` whose process is gone; answers their names. A copy whose pid is
 * alive (a restore running now, or a pid reused since: kept to be safe) or that is not ours to
 * remove (another user's, in a shared /tmp) stays.
 */
export async function removeAbandonedCopies(parent: string = tmpdir()): Promise<string[]> {
  const names = await readdir(parent).catch(() => [] as string[]);
  const removed: string[] = [];
  for (const name of names) {
    const pid = Number(COPY_NAME.exec(name)?.[1] ?? Number.NaN);
    if (!Number.isSafeInteger(pid) || pid === process.pid || isProcessAlive(pid)) continue;
    await rm(join(parent, name), { recursive: true, force: true }).then(
      () => removed.push(name),
      () => undefined,
    );
  }
  return removed;
}
