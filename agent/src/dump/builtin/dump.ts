// The built-in dumper: each collection is read as raw BSON batches (raw-batches.ts; the driver's
// cursor where a getMore could reach another server) and the mongodump archive encoder turns
// them into the same byte stream `mongodump --archive` writes. Like
// `mongodump -j`, several collections are read at once (their segments interleave in the
// archive, as mongodump's do), so the server prepares one reply while the agent encodes another.
// Cursor batches are taken whole (no await per document) and the archive is written into the
// sink in reused 1 MiB chunks that the sink copies (compression blocks), so a dump allocates
// little besides the driver's replies.
//
// On a replica set the dump is one point in time, as `mongodump --oplog` makes it: the oplog's
// position is taken before anything is read (T0), and once the collections are read the entries
// from T0 to the oplog's end then (T1) go into the archive's oplog namespace, so that replaying
// them (`mongorestore --oplogReplay`) brings every collection to its state at T1.
import type { ClientSession, MongoClient } from "mongodb";
import { AGENT_VERSION } from "../agent-version.ts";
import { DumpError, throwIfAborted, waitUnlessAborted } from "../errors.ts";
import { ArchiveEncoder, OPLOG_NAMESPACE } from "../mongodump-archive/index.ts";
import type { ProgressTracker } from "../progress-tracker.ts";
import { pauseForTest } from "../test-pause.ts";
import type { Consistency } from "../types.ts";
import { copyOplogWindow, startOplogWindow } from "./oplog-window.ts";
import { connectClient, listDatabaseNames, wrapDatabaseError } from "./client.ts";
import { type DumpPlanEntry, listDumpPlan } from "./list-collections.ts";
import { canReadRawBatches, readRawBatches } from "./raw-batches.ts";

// Documents asked per getMore; the server caps each reply at 16 MiB whatever this says.
const CURSOR_BATCH_SIZE = 1000;
/**
 * Collections read at once. Two keep the server busy while the agent encodes (the test server
 * and FerretDB answered no faster to four); each more costs ~6 MB of peak memory (cursor
 * batches and driver buffers), and the agent's budget is 150 MB. (One instead of two did not
 * lower the daemon's peak on a 2 GB backup and made it 20 % slower.)
 */
export const PARALLEL_COLLECTIONS = 2;
const ARCHIVE_CHUNK_BYTES = 1024 * 1024;
const SKIPPED_DATABASES = new Set(["local", "config"]);

/** Where the archive goes: takes bytes it copies before returning; a promise asks the writer to wait. */
export type ArchiveSink = (bytes: Uint8Array) => Promise<void> | undefined;

export interface BuiltinDumpRequest {
  uri: string;
  database: string | undefined;
  signal: AbortSignal | undefined;
  tracker: ProgressTracker;
  /** Filled in as the dump goes: documents per namespace. */
  counts: Record<string, number>;
  /** Whether a dump of every database or of admin includes its users, roles and version. */
  usersAndRoles: boolean;
  /** Collections of `database` neither read nor in the oplog window (the database's exclusions). */
  excludeCollections?: readonly string[];
  /** Told why the dump is not one point in time on a replica set (the oplog may not be read). */
  onNotice?: (message: string) => void;
}

/**
 * Writes the mongodump archive of one database (or of every database but local and config, with
 * admin's users and roles as mongodump includes them) into `sink`, with the oplog entries of the
 * dump's window on a replica set. Returns the moment the archive holds. Throws DumpError
 * ("connect-failed", "database-error", "unsupported", "aborted") or what the sink throws.
 */
export async function dumpWithDriver(request: BuiltinDumpRequest, sink: ArchiveSink): Promise<Consistency | undefined> {
  const { uri, tracker } = request;
  const client = await connectClient(uri);
  let session: ClientSession | undefined;
  try {
    // Before the collections are listed: one created after T0 is then in the window's entries.
    const window = await startOplogWindow(client, uri);
    if (window.kind === "unreadable") request.onNotice?.(window.notice);
    const { serverVersion, plan, raw } = await planDump(client, request, uri);
    // Not causally consistent: like the driver's own sessions, each read asks for nothing more.
    if (raw) session = client.startSession({ causalConsistency: false });
    tracker.total = plan.reduce((sum, entry) => sum + entry.estimatedCount, 0);
    const parallel = PARALLEL_COLLECTIONS;
    const prelude = {
      header: { concurrentCollections: parallel, serverVersion, toolVersion: `dbvault-agent ${AGENT_VERSION}` },
      collections: [...plan.map((entry) => entry.spec), ...(window.kind === "replica-set" ? [{ db: "", collection: "oplog" }] : [])],
    };
    let waiting: Promise<void> | undefined;
    const encoder = new ArchiveEncoder(
      prelude,
      { chunkBytes: ARCHIVE_CHUNK_BYTES },
      (chunk) => {
        const wait = sink(chunk);
        if (wait) waiting = wait;
      },
      true,
    );
    // Waits until the sink took everything; a cancel ends the wait (the sink may never drain).
    const drained = async () => {
      while (waiting) {
        const wait = waiting;
        await waitUnlessAborted(wait, request.signal);
        if (waiting === wait) waiting = undefined;
      }
    };
    const queue = [...plan];
    let failed = false;
    const reader = async () => {
      while (!failed && queue.length > 0) {
        const entry = queue.shift()!;
        try {
          await dumpCollection(client, session, entry, encoder, drained, request, () => failed);
        } catch (error) {
          failed = true;
          throw error;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(parallel, Math.max(1, plan.length)) }, reader));
    let consistency: Consistency | undefined = window.kind === "standalone" ? { kind: "standalone" } : undefined;
    if (window.kind === "replica-set") {
      throwIfAborted(request.signal);
      const at = await copyOplogWindow(
        client,
        window,
        request.database,
        uri,
        async (entries) => {
          encoder.writeDocuments(OPLOG_NAMESPACE, entries);
          await drained();
        },
        request.excludeCollections,
      );
      encoder.endNamespace(OPLOG_NAMESPACE);
      consistency = { kind: "point-in-time", at };
    }
    encoder.finish();
    await drained();
    return consistency;
  } finally {
    await session?.endSession().catch(() => undefined);
    await client.close().catch(() => undefined);
  }
}

// Reads one collection into the encoder: raw batches in `session` when given, else the driver's cursor.
async function dumpCollection(
  client: MongoClient,
  session: ClientSession | undefined,
  entry: DumpPlanEntry,
  encoder: ArchiveEncoder,
  drained: () => Promise<void>,
  request: BuiltinDumpRequest,
  stopped: () => boolean,
): Promise<void> {
  const { signal, tracker, counts } = request;
  throwIfAborted(signal);
  const namespace = entry.dataNamespace;
  const shown = `${entry.spec.db}.${entry.spec.collection}`;
  let written = 0;
  counts[shown] = 0;
  tracker.enter(shown);
  const wrote = (documents: number) => {
    written += documents;
    counts[shown] = written;
    tracker.add(documents, shown);
  };
  // A failed read names the collection.
  const read = async <T>(next: () => Promise<T>): Promise<T> => {
    try {
      return await next();
    } catch (cause) {
      throw wrapDatabaseError(cause, `reading ${shown}`, request.uri);
    }
  };
  if (entry.sourceCollection !== undefined && session !== undefined) {
    const batches = readRawBatches(client.db(entry.spec.db), entry.sourceCollection, session, CURSOR_BATCH_SIZE);
    const fetchNext = () => read(() => batches.next());
    try {
      for (let next = await fetchNext(); !next.done && !stopped(); next = await fetchNext()) {
        throwIfAborted(signal);
        wrote(encoder.writeBatch(namespace, next.value.bytes, next.value.start, next.value.end));
        await drained();
      }
    } finally {
      await batches.return();
    }
  } else if (entry.sourceCollection !== undefined) {
    const cursor = client.db(entry.spec.db).collection(entry.sourceCollection).find({}, { raw: true, batchSize: CURSOR_BATCH_SIZE });
    try {
      while (!stopped() && (await read(() => cursor.hasNext()))) {
        throwIfAborted(signal);
        const documents = cursor.readBufferedDocuments() as unknown as Uint8Array[];
        encoder.writeDocuments(namespace, documents);
        wrote(documents.length);
        await drained();
      }
    } finally {
      await cursor.close().catch(() => undefined);
    }
  }
  if (stopped()) return;
  encoder.endNamespace(namespace);
  await pauseForTest("dump-collection-done");
}

async function planDump(
  client: MongoClient,
  { database, usersAndRoles, excludeCollections }: BuiltinDumpRequest,
  uri: string,
): Promise<{ serverVersion: string; plan: DumpPlanEntry[]; raw: boolean }> {
  try {
    const buildInfo = await client.db("admin").command({ buildInfo: 1 });
    const serverVersion = typeof buildInfo.version === "string" && buildInfo.version !== "" ? buildInfo.version : "0.0.0";
    let names: string[];
    if (database !== undefined) names = [database];
    else {
      names = (await listDatabaseNames(client)).filter((name) => !SKIPPED_DATABASES.has(name));
      names.sort();
    }
    const plan: DumpPlanEntry[] = [];
    // mongodump's rule: users and roles go with a dump of every database or of admin.
    const withUsersAndRoles = usersAndRoles && (database === undefined || database === "admin");
    for (const name of names) plan.push(...(await listDumpPlan(client.db(name), serverVersion, withUsersAndRoles)));
    // As mongodump --excludeCollection: the collection (or a view of that name) is not in the archive at all.
    const excluded = new Set(excludeCollections);
    const kept = plan.filter((entry) => !(entry.spec.db === database && excluded.has(entry.spec.collection)));
    return { serverVersion, plan: kept, raw: await canReadRawBatches(client) };
  } catch (cause) {
    throw wrapDatabaseError(cause, "listing the collections to dump", uri);
  }
}
