// The built-in dumper: the official driver reads each collection as raw BSON and the mongodump
// archive writer turns it into the same byte stream `mongodump --archive` writes. Pull-based:
// the next batch is fetched only when the consumer (compressor, encryptor, upload) wants bytes.
import type { MongoClient } from "mongodb";
import { AGENT_VERSION } from "../agent-version.ts";
import { DumpError, throwIfAborted } from "../errors.ts";
import { type ArchiveWriteItem, writeMongodumpArchive } from "../mongodump-archive/index.ts";
import type { ProgressTracker } from "../progress-tracker.ts";
import { connectClient, listDatabaseNames, wrapDatabaseError } from "./client.ts";
import { type DumpPlanEntry, listDumpPlan } from "./list-collections.ts";

// Documents asked per getMore; the server caps each reply at 16 MiB whatever this says.
const CURSOR_BATCH_SIZE = 1000;
const SKIPPED_DATABASES = new Set(["local", "config"]);

export interface BuiltinDumpRequest {
  uri: string;
  database: string | undefined;
  signal: AbortSignal | undefined;
  tracker: ProgressTracker;
  /** Filled in as the dump goes: documents per namespace. */
  counts: Record<string, number>;
  /** Whether a dump of every database or of admin includes its users, roles and version. */
  usersAndRoles: boolean;
}

/**
 * Yields the mongodump archive of one database (or of every database but local and config, with
 * admin's users and roles as mongodump includes them).
 * Throws DumpError ("connect-failed", "database-error", "unsupported", "aborted").
 */
export async function* dumpWithDriver(request: BuiltinDumpRequest): AsyncGenerator<Uint8Array, void, undefined> {
  const { uri, signal, tracker } = request;
  const client = await connectClient(uri);
  try {
    const { serverVersion, plan } = await planDump(client, request, uri);
    tracker.total = plan.reduce((sum, entry) => sum + entry.estimatedCount, 0);
    const prelude = {
      header: { concurrentCollections: 1, serverVersion, toolVersion: `dbvault-agent ${AGENT_VERSION}` },
      collections: plan.map((entry) => entry.spec),
    };
    yield* writeMongodumpArchive(prelude, readDocuments(client, plan, request));
  } finally {
    await client.close().catch(() => undefined);
  }
}

async function planDump(
  client: MongoClient,
  { database, usersAndRoles }: BuiltinDumpRequest,
  uri: string,
): Promise<{ serverVersion: string; plan: DumpPlanEntry[] }> {
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
    return { serverVersion, plan };
  } catch (cause) {
    throw wrapDatabaseError(cause, "listing the collections to dump", uri);
  }
}

async function* readDocuments(
  client: MongoClient,
  plan: DumpPlanEntry[],
  request: BuiltinDumpRequest,
): AsyncGenerator<ArchiveWriteItem, void, undefined> {
  const { signal, tracker, counts } = request;
  for (const entry of plan) {
    throwIfAborted(signal);
    const namespace = entry.dataNamespace;
    const shown = `${entry.spec.db}.${entry.spec.collection}`;
    counts[shown] = 0;
    tracker.enter(shown);
    if (entry.sourceCollection !== undefined) {
      const cursor = client
        .db(entry.spec.db)
        .collection(entry.sourceCollection)
        .find({}, { raw: true, batchSize: CURSOR_BATCH_SIZE });
      try {
        for await (const raw of cursor) {
          if (signal?.aborted) throw new DumpError("aborted", "the operation was cancelled");
          counts[shown]++;
          tracker.add(1, shown);
          yield { kind: "document", namespace, bytes: raw as unknown as Uint8Array };
        }
      } catch (cause) {
        throw wrapDatabaseError(cause, `reading ${shown}`, request.uri);
      } finally {
        await cursor.close().catch(() => undefined);
      }
    }
    yield { kind: "namespace-end", namespace };
  }
}
