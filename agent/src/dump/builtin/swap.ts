// The second phase of every restore, whichever engine wrote the staging collections: put each
// staged collection in place of its target, then recreate the views. A rename replaces one
// collection in one step, so a failure part-way leaves it wholly old or wholly new. Where the
// server cannot rename (time-series before MongoDB 8.0, FerretDB 1.x) the target is dropped and
// refilled from the staging collection: that copy is recorded first (copy-journal.ts) and its
// staging collection kept until it is complete, so a failure or a kill in the middle leaves a
// collection that the error, the next restore and the agent's start all name, and whose data
// can still be copied in. The error says which collections are which.
import { type Db, type MongoClient, MongoServerError, MongoServerSelectionError } from "mongodb";
import { DumpError, throwIfAborted } from "../errors.ts";
import type { CollectionMetadata } from "../mongodump-archive/index.ts";
import { pauseForTest } from "../test-pause.ts";
import type { RestoreResult } from "../types.ts";
import { describeDriverError, wrapDatabaseError } from "./client.ts";
import { DocumentBatch } from "./document-batch.ts";
import { clearCopy, type CopyRecord, readCopyRecords, recordCopy } from "./copy-journal.ts";
import { prepareCollection } from "./prepare-collection.ts";
import { type EmptyTimestampPolicy, insertRestoredDocuments } from "./restored-documents.ts";
import type { StagedUsersAndRoles } from "./users-and-roles.ts";
import { dropIfExists, renameOver } from "./staging.ts";
import { readWriteLimits, type WriteLimits } from "./write-limits.ts";

const COPY_READ_BATCH_DOCUMENTS = 1000;

/** One collection (or view) of a restore, with where its data waits. */
export interface StagedCollection {
  metadata: CollectionMetadata;
  /** "db.collection" shown in progress and stats. */
  target: string;
  targetDb: string;
  targetName: string;
  /** The staging collection holding its documents (unused for views). */
  staged: { db: string; name: string };
  /** Whether the documents were written as time-series buckets (archives from servers before 8.3). */
  intoBuckets: boolean;
}

export function isView(metadata: CollectionMetadata): boolean {
  return metadata.type === "view" || metadata.options.viewOn !== undefined;
}

/**
 * Swaps every staged collection in, collections before views; calls `onSwapped` after each.
 * Throws DumpError "restore-incomplete" (see describeIncomplete) once a target may have changed
 * (replaced, created, partly copied, or its rename unanswered), or the first failure's DumpError
 * when none did.
 */
export async function swapAll(
  client: MongoClient,
  collections: StagedCollection[],
  options: {
    uri: string;
    signal: AbortSignal | undefined;
    result: RestoreResult;
    /** How copied documents keep their empty timestamps (the copy path re-inserts them). */
    emptyTimestamps: EmptyTimestampPolicy;
    /** The backup's users and roles, merged last (users-and-roles.ts says why). */
    usersAndRoles?: StagedUsersAndRoles | undefined;
    /** Collections the backup's oplog dropped: their targets are dropped (oplog-replay.ts). */
    removed?: StagedCollection[];
    onSwapped(target: string): void;
  },
): Promise<void> {
  const ordered = [...collections.filter((entry) => !isView(entry.metadata)), ...collections.filter((entry) => isView(entry.metadata))];
  await pauseForTest("staged");
  const existing = await listExistingTargets(client, ordered).catch((cause) => {
    throw wrapDatabaseError(cause, "listing the collections to replace", options.uri);
  });
  const steps = ordered.map((entry) => ({ target: entry.target, run: (progress: SwapProgress) => swapIn(client, entry, options.emptyTimestamps, progress) }));
  for (const entry of options.removed ?? []) steps.push({ target: entry.target, run: (progress) => dropTarget(client, entry, progress) });
  const auth = options.usersAndRoles;
  if (auth) steps.push({ target: USERS_AND_ROLES, run: () => auth.merge() });
  const outcome: SwapOutcome = { done: [], created: existing, partial: [], inDoubt: [], all: steps.map((step) => step.target) };
  try {
    for (const step of steps) {
      throwIfAborted(options.signal);
      const progress: SwapProgress = { phase: "untouched" };
      try {
        await step.run(progress);
      } catch (cause) {
        if (progress.phase === "copied") outcome.done.push(step.target);
        else if (progress.phase === "partial") outcome.partial.push(progress.partial!);
        else if (progress.phase === "renaming" && !wasNeverApplied(cause)) outcome.inDoubt.push(step.target);
        throw wrapDatabaseError(cause, `replacing ${step.target}`, options.uri);
      }
      outcome.done.push(step.target);
      if (step.target !== USERS_AND_ROLES) options.onSwapped(step.target);
    }
  } catch (error) {
    if (outcome.done.length === 0 && outcome.partial.length === 0 && outcome.inDoubt.length === 0) throw error;
    throw describeIncomplete(error, outcome, options.result, options.uri);
  }
}

/** How far one step got, for the message when it fails. */
export interface SwapProgress {
  /**
   * "untouched": the target is as it was; "renaming": a rename was sent (done or not, it is one
   * step); "partial": the target may hold part of the backup (`partial` says where the rest
   * waits); "copied": it holds all of it.
   */
  phase: "untouched" | "renaming" | "partial" | "copied";
  partial?: PartialTarget;
}

/** A target that may be partial: a copy interrupted, or a view dropped but not yet recreated. */
interface PartialTarget {
  target: string;
  /** "db.name" of the staging collection still holding the backup's complete copy (not for views). */
  kept?: string;
}

interface SwapOutcome {
  /** Targets swapped in completely, in order. */
  done: string[];
  /** Targets that did not exist before the swap: "created" rather than "replaced". */
  created: Set<string>;
  partial: PartialTarget[];
  /** Targets whose rename was sent but never answered: wholly old or wholly new, unknown which. */
  inDoubt: string[];
  all: string[];
}

/** Whether a failed command certainly changed nothing: the server refused it, or it was never sent. */
function wasNeverApplied(cause: unknown): boolean {
  return cause instanceof MongoServerError || cause instanceof MongoServerSelectionError;
}

/** How the users and roles step is named in messages. */
const USERS_AND_ROLES = "the users and roles";

/** The targets that do not exist yet (one listCollections a database); throws the driver's error. */
async function listExistingTargets(client: MongoClient, entries: StagedCollection[]): Promise<Set<string>> {
  const missing = new Set(entries.map((entry) => entry.target));
  for (const db of new Set(entries.map((entry) => entry.targetDb))) {
    for (const { name } of await client.db(db).listCollections({}, { nameOnly: true }).toArray()) missing.delete(`${db}.${name}`);
  }
  return missing;
}

/** DumpError "restore-incomplete": which collections now hold the backup, which may be partial, which are unchanged. */
function describeIncomplete(error: unknown, outcome: SwapOutcome, result: RestoreResult, uri: string): DumpError {
  const reason = describeDriverError(error, uri);
  const { done, created, partial, inDoubt, all } = outcome;
  const touched = new Set([...done, ...partial.map((entry) => entry.target), ...inDoubt]);
  const unchanged = all.filter((target) => !touched.has(target));
  const replaced = done.filter((target) => !created.has(target));
  const added = done.filter((target) => created.has(target));
  const parts = [
    ...(replaced.length > 0 ? [`replaced ${replaced.join(", ")}`] : []),
    ...(added.length > 0 ? [`created ${added.join(", ")} (new)`] : []),
    ...partial.map((entry) => describePartial(entry)),
    ...(inDoubt.length > 0 ? [`${inDoubt.join(", ")} either unchanged or replaced (MongoDB did not answer the rename)`] : []),
    unchanged.length > 0 ? `${unchanged.join(", ")} unchanged` : "none left unchanged",
  ];
  const hint =
    partial.length > 0
      ? `${partial.map((entry) => entry.target).join(", ")} ${partial.length === 1 ? "is" : "are"} not complete: restore again (or start dbvault-agent run), which finishes the copy first; every other collection holds either its old data or the backup's`
      : "each collection holds either its old data or the backup's; restore again to replace the rest";
  return new DumpError(
    "restore-incomplete",
    `the restore stopped after swapping in ${done.length} of ${all.length} collection(s): ${parts.join("; ")}: ${reason}`,
    {
      cause: error,
      stats: { ...result, collections: Object.fromEntries(done.map((target) => [target, result.collections[target] ?? { restored: 0, failed: 0 }])) },
      hint,
    },
  );
}

/** Says which collection may be partial and where the backup's complete copy of it waits. */
export function describePartial(entry: PartialTarget): string {
  return entry.kept
    ? `${entry.target} partly copied (the backup's complete copy is kept in ${entry.kept} until the copy is finished)`
    : `${entry.target} may be missing (a view dropped before it was recreated)`;
}

/** Puts one staged collection in place of its target (or recreates a view); throws the driver's error. */
async function swapIn(client: MongoClient, entry: StagedCollection, emptyTimestamps: EmptyTimestampPolicy, progress: SwapProgress): Promise<void> {
  const db = client.db(entry.targetDb);
  if (isView(entry.metadata)) {
    progress.phase = "partial";
    progress.partial = { target: entry.target };
    await dropIfExists(db, entry.targetName);
    await prepareCollection(db, entry.targetName, entry.metadata);
    return;
  }
  progress.phase = "renaming";
  const renamed = await renameOver(client, entry.staged, { db: entry.targetDb, name: entry.targetName });
  if (renamed) return pauseForTest("renamed");
  progress.phase = "untouched";
  // Time-series collections cannot be renamed before MongoDB 8.0, nor anything on FerretDB 1.x:
  // recreate and copy instead (not one atomic step; docs/restore.md says so).
  await copyOver(client, entry, emptyTimestamps, progress);
}

/** Drops a target the backup's oplog dropped (one step, like a rename); throws the driver's error. */
async function dropTarget(client: MongoClient, entry: StagedCollection, progress: SwapProgress): Promise<void> {
  progress.phase = "renaming";
  await dropIfExists(client.db(entry.targetDb), entry.targetName);
}

/**
 * Replaces `record.target` by a copy of its staging collection, recorded in the copy journal
 * from before the target is dropped until the copy is complete; drops the staging collection
 * last. Also finishes an interrupted copy (interrupted-copies.ts). The server's write limits are
 * asked before the target is dropped. Throws the driver's error.
 */
export async function copyOver(
  client: MongoClient,
  record: CopyRecord,
  emptyTimestamps: EmptyTimestampPolicy,
  progress: SwapProgress = { phase: "untouched" },
): Promise<void> {
  const db = client.db(record.targetDb);
  const limits = await readWriteLimits(client);
  await recordCopy(client, record);
  await pauseForTest("copy-recorded");
  progress.phase = "partial";
  progress.partial = { target: record.target, kept: `${record.staged.db}.${record.staged.name}` };
  await prepareCollection(db, record.targetName, record.metadata);
  await pauseForTest("copy-target-created");
  await copyDocuments(client.db(record.staged.db), db, record, { emptyTimestamps, limits });
  progress.phase = "copied";
  await pauseForTest("copy-done");
  await clearCopy(client, record);
  await pauseForTest("copy-cleared");
  await dropIfExists(client.db(record.staged.db), record.staged.name);
}

/** Copies the staged documents in commands within the server's limits; throws on a refused one. */
async function copyDocuments(from: Db, to: Db, entry: CopyRecord, write: { emptyTimestamps: EmptyTimestampPolicy; limits: WriteLimits }): Promise<void> {
  const source = entry.intoBuckets ? `system.buckets.${entry.staged.name}` : entry.staged.name;
  const target = entry.intoBuckets ? `system.buckets.${entry.targetName}` : entry.targetName;
  // The server answers in batches of at most 16 MiB whatever the count asked for.
  const cursor = from.collection(source).find({}, { raw: true, batchSize: COPY_READ_BATCH_DOCUMENTS });
  const batch = new DocumentBatch();
  const insert = async () => {
    const outcome = await insertRestoredDocuments(to, target, batch.take(), write.emptyTimestamps, write.limits);
    if (outcome.failed > 0) throw new Error(`copying into ${entry.target} refused ${outcome.failed} document(s): ${outcome.firstError}`);
    await pauseForTest("copy-batch");
  };
  for await (const document of cursor) {
    batch.add(document as unknown as Uint8Array);
    if (batch.isFull()) await insert();
  }
  await insert();
}

/**
 * Drops the staging collections of a restore that will not swap them in, except those a recorded
 * copy still needs (the only complete copy of a partly copied target); throws the driver's error.
 */
export async function dropStaged(client: MongoClient, collections: StagedCollection[]): Promise<void> {
  const records = await readCopyRecords(client, [...new Set(collections.map((entry) => entry.targetDb))]);
  const needed = new Set(records.map((record) => `${record.staged.db}.${record.staged.name}`));
  for (const entry of collections) {
    if (isView(entry.metadata) || needed.has(`${entry.staged.db}.${entry.staged.name}`)) continue;
    await dropIfExists(client.db(entry.staged.db), entry.staged.name);
  }
}
