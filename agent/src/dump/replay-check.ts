// Verification of a backup with an oplog window: reading the file back proves it is intact, not
// that it restores. Its documents were read while the application wrote, so they can hold a unique
// key twice until the window is replayed (a key moved during the dump). The proof is the restore
// itself, into a scratch database: the collections the window writes to staged, the window
// replayed, their unique indexes built after it as mongorestore builds them
// (builtin/deferred-indexes.ts), then dropped. A collection the window never names is exactly
// what the read-back proved, so it is not copied: the cost grows with what the window touched.
import { DRILL_DATABASE_SUFFIX } from "../../../protocol/verification.ts";
import { connectClient, listDatabaseNames, wrapDatabaseError } from "./builtin/client.ts";
import { type RestoreEncryptedOptions, restoreFromEncrypted, verifyEncryptedBackup } from "./encrypted.ts";
import { type ArchiveSummary, OPLOG_NAMESPACE } from "./mongodump-archive/index.ts";
import type { ByteSource } from "./types.ts";
import { WindowCollections } from "./window-collections.ts";

/** The namespaces a restore replays as the backup's oplog: its own window, or a dump's local oplog (as mongorestore picks it). */
const OPLOG_NAMESPACES = new Set([OPLOG_NAMESPACE, "local.oplog.rs"]);

/** True when the backup holds oplog entries a restore replays. */
export function hasOplogWindow(summary: ArchiveSummary): boolean {
  return summary.namespaces.some((entry) => OPLOG_NAMESPACES.has(entry.namespace) && entry.documentCount > 0);
}

export interface ReplayCheck {
  /** What the whole-file check found (namespaces and their counts). */
  summary: ArchiveSummary;
  /** Whether the backup has an oplog window (false: nothing to replay, nothing was written). */
  hasWindow: boolean;
  /** The collections restored into scratch to replay the window (those it writes to). */
  collections: string[];
  /** Why the window was not replayed although the backup has one (the database user may not create the scratch database). */
  notReplayed?: string;
}

export interface ReplayCheckOptions extends Omit<RestoreEncryptedOptions, "input" | "reopen" | "collections" | "collectionsOfWindow"> {
  /** The scratch database (a drill's name), dropped after. */
  database: string;
  /** The backup's bytes, read back whole first. */
  input: ByteSource;
  /** Opens the same bytes again from the start (a second download): read only when the backup has a window. */
  reopen: () => ByteSource;
}

/**
 * Reads a whole `.enc.dbvault` backup as it streams (no copy is kept), noting the collections its
 * oplog window writes to, and, when it has a window, reads it again (`reopen`: verified whole into
 * a private copy, then restored from it) to restore those collections into `options.database`
 * (a scratch database named as a drill's, dropped after) exactly as a restore would. Throws what
 * the restore throws: a DumpError with `backupAtFault` when the backup's keys do not hold once its
 * window is replayed; the archive library's errors for a damaged file.
 */
export async function replayIntoScratch(options: ReplayCheckOptions): Promise<ReplayCheck> {
  const scratch = options.database;
  // Whatever the caller asks, this only ever writes and drops a database named as a drill's.
  if (!scratch.endsWith(DRILL_DATABASE_SUFFIX))
    throw new Error(`refusing to replay into ${scratch}: a scratch database's name ends with ${DRILL_DATABASE_SUFFIX}`);
  const { input, reopen, ...rest } = options;
  // The collections the window writes to are found as the backup streams back (no second read):
  // the scanner hands over the oplog's documents only.
  const window = new WindowCollections();
  const summary = await verifyEncryptedBackup(input, options.masterKey, options.signal, options.identities ?? [], {
    documentsOf: OPLOG_NAMESPACES,
    onDocument: (_namespace, bytes) => window.add(bytes),
  });
  if (!hasOplogWindow(summary)) return { summary, hasWindow: false, collections: [] };
  const source = options.sourceDatabase ?? sourceDatabaseOf(summary, window);
  // A daemon's backup is of one database; an archive of several names none to replay into one scratch.
  if (source === undefined)
    return { summary, hasWindow: true, collections: [], notReplayed: "the backup holds several databases, and one scratch database replays one" };
  const collections = window.namesIn(source);
  // A window of no-ops writes nothing: there is nothing to restore.
  if (collections.length === 0) return { summary, hasWindow: true, collections };
  try {
    // A scratch database a killed check left is not dropped first: the restore replaces each
    // collection it restores, and the check reads nothing else of it.
    await restoreFromEncrypted({ ...rest, input: reopen(), collections, collectionsOfWindow: true, tools: { mode: "builtin" } });
    return { summary, hasWindow: true, collections };
  } catch (error) {
    // A replay that could not start for want of rights says nothing against the backup.
    if (isUnauthorized(error))
      return {
        summary,
        hasWindow: true,
        collections,
        notReplayed: `the database user may not write the scratch database ${scratch}: ${(error as Error).message}`,
      };
    throw error;
  } finally {
    const client = await connectClient(options.uri).catch(() => undefined);
    if (client) await dropScratch(client, scratch, options.uri).catch(() => undefined);
    await client?.close().catch(() => undefined);
  }
}

/** The one database the backup holds collections of or its window writes to (a daemon's backup is of one). */
function sourceDatabaseOf(summary: ArchiveSummary, window: WindowCollections): string | undefined {
  const named = [...summary.collections.map((entry) => entry.db), ...window.databases];
  const databases = new Set(named.filter((db) => db !== "" && db !== "admin" && db !== "local" && db !== "config"));
  return databases.size === 1 ? [...databases][0] : undefined;
}

/** True when MongoDB refused an operation for want of rights (code 13, Unauthorized), however wrapped. */
function isUnauthorized(error: unknown): boolean {
  for (let current = error; current instanceof Error; current = current.cause) {
    const { code, codeName } = current as Error & { code?: unknown; codeName?: unknown };
    if (code === 13 || codeName === "Unauthorized") return true;
  }
  return false;
}

async function dropScratch(client: Awaited<ReturnType<typeof connectClient>>, scratch: string, uri: string): Promise<void> {
  try {
    if ((await listDatabaseNames(client)).includes(scratch)) await client.db(scratch).dropDatabase();
  } catch (cause) {
    throw wrapDatabaseError(cause, `dropping the scratch database ${scratch}`, uri);
  }
}
