// The oplog side of a consistent built-in dump: where the window starts (T0, before any read), and
// the window's entries of the dumped database(s) up to the oplog's end once the reads are done (T1).
import { BSON, type MongoClient, type Timestamp } from "mongodb";
import { createOplogDatabaseFilter, findReplayBlocker } from "../../oplog/database-filter.ts";
import { createExcludedCollectionsFilter } from "../../oplog/excluded-collections.ts";
import { OplogRolledOverError, readNewestOplogTimestamp, readOplogRange, readOplogStart, toOplogTimestamp } from "../../oplog/read-oplog.ts";
import { DumpError } from "../errors.ts";
import type { ConsistentAt } from "../types.ts";
import { describeDriverError, wrapDatabaseError } from "./client.ts";

/**
 * A replica set's window start; a standalone server (no oplog); a server whose kind gives no point
 * in time (mongos); or a replica set whose oplog the database user may not read.
 */
export type OplogWindow =
  | { kind: "replica-set"; start: { from: Timestamp; inclusive: boolean } }
  | { kind: "standalone" }
  | { kind: "other" }
  | { kind: "unreadable"; notice: string };

// MongoDB's code for a command the user's roles do not allow.
const UNAUTHORIZED = 13;

/** Reads what the server is and, on a replica set, T0. Throws DumpError "database-error". */
export async function startOplogWindow(client: MongoClient, uri: string): Promise<OplogWindow> {
  try {
    const hello = await client.db("admin").command({ hello: 1 });
    if (hello.msg === "isdbgrid") return { kind: "other" };
    if (typeof hello.setName !== "string" || hello.setName === "") return { kind: "standalone" };
    try {
      return { kind: "replica-set", start: await readOplogStart(client) };
    } catch (cause) {
      // A user made for backups before they were consistent (readWrite on the database) still
      // gets its backup, said to be no single moment, rather than none.
      if ((cause as { code?: unknown }).code !== UNAUTHORIZED) throw cause;
      return {
        kind: "unreadable",
        notice: `the database user may not read the oplog (local.oplog.rs: ${describeDriverError(cause, uri)}), so this backup is not point-in-time consistent; give it the backup role to make backups consistent`,
      };
    }
  } catch (cause) {
    throw wrapDatabaseError(cause, "reading the oplog's position before the dump", uri);
  }
}

/**
 * Reads T1, then yields the window's entries (all of them for a dump of every database, else those
 * of `database`) in oplog order, a batch at a time, and returns T1. Throws DumpError
 * "database-error" (also when the oplog rolled over during the dump).
 */
export async function* readOplogWindow(
  client: MongoClient,
  window: Extract<OplogWindow, { kind: "replica-set" }>,
  database: string | undefined,
  uri: string,
  excludeCollections: readonly string[] = [],
): AsyncGenerator<Uint8Array[], ConsistentAt, undefined> {
  const filter = database === undefined ? undefined : createOplogDatabaseFilter(database);
  // The excluded collections' own writes: the archive has no such collection to replay them onto.
  const notExcluded = database === undefined ? undefined : createExcludedCollectionsFilter(database, excludeCollections);
  let end: Timestamp;
  try {
    end = await readNewestOplogTimestamp(client);
    for await (const batch of readOplogRange(client, window.start, end)) {
      const ofDatabase = filter === undefined ? batch : batch.flatMap((entry) => filter.push(entry));
      const kept = notExcluded === undefined ? ofDatabase : ofDatabase.filter(notExcluded);
      for (const entry of kept) assertReplayable(entry);
      if (kept.length > 0) yield kept;
    }
  } catch (cause) {
    if (cause instanceof DumpError) throw cause;
    if (cause instanceof OplogRolledOverError) {
      throw new DumpError("database-error", cause.message, {
        hint: "make the oplog larger (replSetResizeOplog) so it holds the writes of a whole dump, or back up when fewer writes run",
      });
    }
    throw wrapDatabaseError(cause, "reading the oplog written during the dump", uri);
  }
  const rest = (filter?.finish() ?? []).filter((entry) => notExcluded?.(entry) ?? true);
  for (const entry of rest) assertReplayable(entry);
  if (rest.length > 0) yield rest;
  yield [consistentPointMarker(end)];
  return describeOplogTime(end);
}

export const CONSISTENT_POINT_MESSAGE = "dbvault consistent point";

// The window ends with a no-op at T1 (mongorestore and the applier skip no-ops): the archive then
// tells its own consistent point, where a point-in-time restore's slices must take over, even
// when no entry of the database was written during the dump.
function consistentPointMarker(end: Timestamp): Uint8Array {
  return BSON.serialize({ op: "n", ns: "", ts: end, o: { msg: CONSISTENT_POINT_MESSAGE } });
}

/** An oplog timestamp as a backup's consistentAt: its seconds as a time, and itself. */
export function describeOplogTime(end: Timestamp): ConsistentAt {
  const ts = toOplogTimestamp(end);
  return { time: new Date(ts.t * 1000).toISOString(), ts };
}

// mongodump --oplog refuses these too: a collection renamed (or imported) while it was read is
// dumped under a name the replayed entry then collides with, so the archive would not restore.
function assertReplayable(entry: Uint8Array): void {
  const blocker = findReplayBlocker(entry);
  if (blocker === undefined) return;
  throw new DumpError("unsupported", `${blocker} ran on the database while it was dumped: a point-in-time backup cannot hold it`, {
    hint: "back up again: a rename between two backups is fine, only one during a backup stops it",
  });
}

/** Feeds the window's entries to `write` (readOplogWindow) and returns T1. */
export async function copyOplogWindow(
  client: MongoClient,
  window: Extract<OplogWindow, { kind: "replica-set" }>,
  database: string | undefined,
  uri: string,
  write: (entries: Uint8Array[]) => Promise<void>,
  excludeCollections: readonly string[] = [],
): Promise<ConsistentAt> {
  const entries = readOplogWindow(client, window, database, uri, excludeCollections);
  for (let step = await entries.next(); ; step = await entries.next()) {
    if (step.done) return step.value;
    await write(step.value);
  }
}
