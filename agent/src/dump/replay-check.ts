// Verification of a backup with an oplog window: reading the file back proves it is intact, not
// that it restores. Its documents were read while the application wrote, so they can hold a unique
// key twice until the window is replayed (a key moved during the dump). The proof is the restore
// itself, into a scratch database: the documents staged, the window replayed, the unique indexes
// built after it as mongorestore builds them (builtin/deferred-indexes.ts), then dropped.
import { DRILL_DATABASE_SUFFIX } from "../../../protocol/verification.ts";
import { connectClient, listDatabaseNames, wrapDatabaseError } from "./builtin/client.ts";
import { type RestoreEncryptedOptions, restoreFromEncrypted } from "./encrypted.ts";
import { type ArchiveSummary, OPLOG_NAMESPACE } from "./mongodump-archive/index.ts";

/** The namespaces a restore replays as the backup's oplog: its own window, or a dump's local oplog (as mongorestore picks it). */
const OPLOG_NAMESPACES = new Set([OPLOG_NAMESPACE, "local.oplog.rs"]);

/** True when the backup holds oplog entries a restore replays. */
export function hasOplogWindow(summary: ArchiveSummary): boolean {
  return summary.namespaces.some((entry) => OPLOG_NAMESPACES.has(entry.namespace) && entry.documentCount > 0);
}

/** Thrown from onVerified to stop before the database is touched: a backup with no window is proven by its read-back. */
class NothingToReplay extends Error {}

export interface ReplayCheck {
  /** What the whole-file check found (namespaces and their counts). */
  summary: ArchiveSummary;
  /** Whether the window was replayed (false: the backup has none, nothing was written). */
  replayed: boolean;
}

/**
 * Reads a whole `.enc.dbvault` backup and, when it has an oplog window, restores it into
 * `options.database` (a scratch database named as a drill's, dropped after) exactly as a
 * restore would. Throws what the restore throws: a DumpError with `backupAtFault` when the backup's
 * keys do not hold once its window is replayed; the archive library's errors for a damaged file.
 */
export async function replayIntoScratch(options: RestoreEncryptedOptions & { database: string }): Promise<ReplayCheck> {
  const scratch = options.database;
  // Whatever the caller asks, this only ever writes and drops a database named as a drill's.
  if (!scratch.endsWith(DRILL_DATABASE_SUFFIX))
    throw new Error(`refusing to replay into ${scratch}: a scratch database's name ends with ${DRILL_DATABASE_SUFFIX}`);
  let summary: ArchiveSummary | undefined;
  try {
    // A scratch database a killed check left is not dropped first: the restore replaces each
    // collection it restores, and the check reads nothing else of it.
    await restoreFromEncrypted({
      ...options,
      onVerified: (found) => {
        summary = found;
        if (!hasOplogWindow(found)) throw new NothingToReplay();
      },
    });
    return { summary: summary!, replayed: true };
  } catch (error) {
    if (error instanceof NothingToReplay) return { summary: summary!, replayed: false };
    throw error;
  } finally {
    if (summary && hasOplogWindow(summary)) {
      const client = await connectClient(options.uri).catch(() => undefined);
      if (client) await dropScratch(client, scratch, options.uri).catch(() => undefined);
      await client?.close().catch(() => undefined);
    }
  }
}

async function dropScratch(client: Awaited<ReturnType<typeof connectClient>>, scratch: string, uri: string): Promise<void> {
  try {
    if ((await listDatabaseNames(client)).includes(scratch)) await client.db(scratch).dropDatabase();
  } catch (cause) {
    throw wrapDatabaseError(cause, `dropping the scratch database ${scratch}`, uri);
  }
}
