// PGlite is PostgreSQL in single-user mode inside this process. A second process opening the same
// cluster (a second `npm start`, a service plus a manual start) is not refused: it runs beside
// the first with its own view of the files, both write, users registered on one are missing on
// the other, and the files end up overwritten or corrupt (electric-sql/pglite#1106). PGlite's own
// postmaster.pid holds a made-up process id (-42), so it keeps nobody out. This lock file holds
// the real one.
import { linkSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isProcessAlive } from "@protocol/process-alive";

/** Name of the lock file in the data directory, beside the `pglite` cluster it guards. */
export const EMBEDDED_DATABASE_LOCK_FILE = "pglite.lock";

/** Another live process holds the embedded database. */
export class EmbeddedDatabaseInUseError extends Error {
  constructor(
    readonly lockFile: string,
    readonly holderPid: number,
  ) {
    super(
      `the embedded database in ${join(lockFile, "..")} is in use by another DBVault server (process ${holderPid}). ` +
        `Stop that server first, or give this one its own DATA_DIR; to run several servers on one database, use PostgreSQL (DATABASE_URL).\n` +
        `hint: if no DBVault server runs as process ${holderPid}, delete ${lockFile} and start again.`,
    );
    this.name = "EmbeddedDatabaseInUseError";
  }
}

export type EmbeddedDatabaseLock = {
  /** The process id found in a lock left behind by a server that did not stop (killed, crashed); null if none. */
  takenOverFrom: number | null;
  /** Removes the lock file if it is still this process's. Safe to call more than once. */
  release(): void;
};

/** The process id a lock file names; null when it is unreadable or garbled. */
function readHolder(lockFile: string): number | null {
  try {
    const pid = Number(readFileSync(lockFile, "utf8").trim());
    return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/**
 * Creates `lockFile` holding `content` unless it exists (EEXIST). A hard link of the draft is
 * atomic and never seen half-written; on a filesystem without hard links, an exclusive create.
 */
function createExclusively(draft: string, lockFile: string, content: string) {
  try {
    linkSync(draft, lockFile);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "EOPNOTSUPP" && code !== "ENOSYS") throw error;
    writeFileSync(lockFile, content, { mode: 0o600, flag: "wx" });
  }
}

/**
 * Takes the embedded database's lock in `dataDir` for this process. Throws
 * EmbeddedDatabaseInUseError when another running process holds it. A lock whose process is gone
 * (a server killed with SIGKILL or crashed) is taken over: the database itself recovers from its
 * write-ahead log. A lock naming this very process id is one too: in a container the server often
 * gets the same id at every start.
 */
export function lockEmbeddedDatabase(dataDir: string): EmbeddedDatabaseLock {
  const lockFile = join(dataDir, EMBEDDED_DATABASE_LOCK_FILE);
  const mine = `${process.pid}\n`;
  // Written whole under a private name, then linked into place: link() creates the lock only if
  // none exists, atomically, so the lock file is never seen empty or half-written.
  const draft = join(dataDir, `.${EMBEDDED_DATABASE_LOCK_FILE}.${process.pid}`);
  writeFileSync(draft, mine, { mode: 0o600 });
  let takenOverFrom: number | null = null;
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        createExclusively(draft, lockFile, mine);
        break;
      } catch (error) {
        if ((error as { code?: string }).code !== "EEXIST" || attempt >= 5) throw error;
      }
      const holder = readHolder(lockFile);
      if (holder !== null && holder !== process.pid && isProcessAlive(holder)) throw new EmbeddedDatabaseInUseError(lockFile, holder);
      takenOverFrom = holder;
      rmSync(lockFile, { force: true });
    }
  } finally {
    rmSync(draft, { force: true });
  }

  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    process.off("exit", release);
    // Only our own: never remove a lock another server took after we lost ours (deleted by hand).
    if (readHolder(lockFile) === process.pid) rmSync(lockFile, { force: true });
  };
  // A server that exits without closing its database (a failed start, an uncaught error) frees it too.
  process.on("exit", release);
  return { takenOverFrom, release };
}
