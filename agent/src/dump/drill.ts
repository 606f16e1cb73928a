// Restore drills: the proof that a backup restores, without touching the database it came from.
// The backup goes through the ordinary safe restore (verify the whole file, stage, swap) into a
// scratch database on the same server; the scratch database is then checked against the backup
// (documents in every collection, indexes) and dropped, whatever happened.
import type { Db, MongoClient } from "mongodb";
import type { DrillReport } from "../../../protocol/agent-protocol.ts";
import { DRILL_DATABASE_SUFFIX } from "../../../protocol/verification.ts";
import { connectClient, listDatabaseNames, wrapDatabaseError } from "./builtin/client.ts";
import { withPrimaryReadPreference } from "./connection-string.ts";
import { type RestoreEncryptedOptions, restoreFromEncrypted } from "./encrypted.ts";
import type { ArchiveSummary } from "./mongodump-archive/index.ts";
import { isSkippedEntry } from "./restore-plan.ts";
import type { CollectionRestoreStats } from "./types.ts";

export interface DrillOutcome {
  /** Documents restored per scratch namespace, as a restore reports them. */
  stats: Record<string, CollectionRestoreStats>;
  report: DrillReport;
}

/** A drill that ran but found the scratch database unlike the backup (or could not restore it); carries what it measured. */
export class DrillError extends Error {
  override readonly name = "DrillError";
  constructor(
    message: string,
    readonly report: DrillReport | undefined,
    readonly stats: Record<string, CollectionRestoreStats> | undefined,
    /** What failed: the backup file itself (damaged, cut, wrong key...), MongoDB, or the checks. */
    cause?: unknown,
  ) {
    super(message, cause === undefined ? undefined : { cause });
  }
}

/** What one collection of the backup should look like once restored. */
type Expected = { target: string; collection: string; documents: number; indexes: number; countable: boolean };

type Totals = { documents: { expected: number; restored: number }; indexes: { expected: number; found: number } };

/**
 * Restores a `.enc.dbvault` backup into `options.database` (the scratch database, which is dropped
 * first if a killed drill left it), checks every collection's documents and indexes against the
 * backup, and drops it. Answers what it found; throws DrillError when the restore failed or the
 * scratch database differs from the backup (with the report when there is one).
 */
export async function runRestoreDrill(options: RestoreEncryptedOptions & { database: string }): Promise<DrillOutcome> {
  const started = performance.now();
  const scratch = options.database;
  // Whatever the server asks, a drill only ever writes and drops a database named as a drill's.
  if (!scratch.endsWith(DRILL_DATABASE_SUFFIX))
    throw new DrillError(`refusing to drill into ${scratch}: a drill's database name ends with ${DRILL_DATABASE_SUFFIX}`, undefined, undefined);
  // The drill reads back the scratch database it just restored: from the primary, which surely holds it.
  const client = await connectClient(withPrimaryReadPreference(options.uri));
  let outcome: DrillOutcome | undefined;
  let failure: unknown;
  try {
    await dropScratch(client, scratch, options.uri);
    let summary: ArchiveSummary | undefined;
    const result = await restoreFromEncrypted({ ...options, onVerified: (found) => (summary = found) });
    const expected = describeExpected(summary!, scratch);
    const found = await inspectScratch(client.db(scratch), expected, result.collections, options.uri);
    outcome = { stats: result.collections, report: { durationMs: 0, ...found.totals, scratchDropped: false } };
    if (found.differences.length > 0) failure = new Error(`the scratch database differs from the backup: ${found.differences.slice(0, 5).join("; ")}`);
  } catch (error) {
    failure = error;
  } finally {
    const dropped = await dropScratch(client, scratch, options.uri).then(
      () => true,
      () => false,
    );
    await client.close().catch(() => undefined);
    if (outcome) outcome.report = { ...outcome.report, scratchDropped: dropped, durationMs: Math.round(performance.now() - started) };
  }
  if (failure) throw new DrillError(describe(failure), outcome?.report, outcome?.stats, failure);
  if (!outcome!.report.scratchDropped)
    throw new DrillError(`the drill passed, but the scratch database ${scratch} could not be dropped: drop it by hand`, outcome!.report, outcome!.stats);
  return outcome!;
}

const describe = (error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  const hint = error instanceof Error && "hint" in error && typeof error.hint === "string" ? ` (${error.hint})` : "";
  return `${message}${hint}`;
};

/** The backup's restorable collections under their scratch names, from the whole-file check. */
function describeExpected(summary: ArchiveSummary, scratch: string): Expected[] {
  const expected: Expected[] = [];
  for (const entry of summary.namespaces) {
    const metadata = entry.metadata;
    if (!metadata || isSkippedEntry(metadata)) continue;
    expected.push({
      target: `${scratch}.${metadata.collection}`,
      collection: metadata.collection,
      documents: entry.documentCount,
      indexes: metadata.type === "view" ? 0 : metadata.indexes.length,
      // Views hold no documents, and a time-series collection counts measurements, not the buckets the archive holds.
      countable: metadata.type === undefined || metadata.type === "collection",
    });
  }
  return expected;
}

/**
 * Counts documents and indexes in the scratch database and lists every difference from the backup.
 * Views and time-series collections are taken from what the restore inserted (their counts in the
 * database are not the archive's).
 */
async function inspectScratch(database: Db, expected: Expected[], restored: Record<string, CollectionRestoreStats>, uri: string) {
  const differences: string[] = [];
  const totals: Totals = { documents: { expected: 0, restored: 0 }, indexes: { expected: 0, found: 0 } };
  try {
    for (const entry of expected) {
      totals.documents.expected += entry.documents;
      if (!entry.countable) {
        totals.documents.restored += restored[entry.target]?.restored ?? 0;
        continue;
      }
      const collection = database.collection(entry.collection);
      const documents = await collection.countDocuments({});
      const indexes = (await collection.listIndexes().toArray()).length;
      totals.documents.restored += documents;
      totals.indexes.expected += entry.indexes;
      totals.indexes.found += indexes;
      if (documents !== entry.documents) differences.push(`${entry.target} holds ${documents} documents, the backup ${entry.documents}`);
      if (indexes !== entry.indexes) differences.push(`${entry.target} has ${indexes} indexes, the backup ${entry.indexes}`);
    }
  } catch (cause) {
    throw wrapDatabaseError(cause, "checking the scratch database", uri);
  }
  if (totals.documents.restored !== totals.documents.expected && differences.length === 0) {
    differences.push(`${totals.documents.restored} documents restored, the backup holds ${totals.documents.expected}`);
  }
  return { totals, differences };
}

/** Drops the scratch database when it exists; throws DumpError "database-error". */
async function dropScratch(client: MongoClient, scratch: string, uri: string): Promise<void> {
  try {
    if ((await listDatabaseNames(client)).includes(scratch)) await client.db(scratch).dropDatabase();
  } catch (cause) {
    throw wrapDatabaseError(cause, `dropping the scratch database ${scratch}`, uri);
  }
}
