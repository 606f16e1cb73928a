// The second phase of every restore, whichever engine wrote the staging collections: put each
// staged collection in place of its target, then recreate the views. Each step replaces one
// collection entirely, so a failure part-way leaves every collection wholly old or wholly new,
// and the error says which are which.
import type { Db, MongoClient } from "mongodb";
import { DumpError, throwIfAborted } from "../errors.ts";
import type { CollectionMetadata } from "../mongodump-archive/index.ts";
import type { RestoreResult } from "../types.ts";
import { describeDriverError, wrapDatabaseError } from "./client.ts";
import { DocumentBatch } from "./document-batch.ts";
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
 * Throws DumpError "restore-incomplete" (see describeIncomplete) once one was replaced, or the
 * first failure's DumpError when none was.
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
    onSwapped(target: string): void;
  },
): Promise<void> {
  const ordered = [...collections.filter((entry) => !isView(entry.metadata)), ...collections.filter((entry) => isView(entry.metadata))];
  const steps = ordered.map((entry) => ({ target: entry.target, run: () => swapIn(client, entry, options.emptyTimestamps) }));
  const auth = options.usersAndRoles;
  if (auth) steps.push({ target: USERS_AND_ROLES, run: () => auth.merge() });
  const replaced: string[] = [];
  try {
    for (const step of steps) {
      throwIfAborted(options.signal);
      try {
        await step.run();
      } catch (cause) {
        throw wrapDatabaseError(cause, `replacing ${step.target}`, options.uri);
      }
      replaced.push(step.target);
      if (step.target !== USERS_AND_ROLES) options.onSwapped(step.target);
    }
  } catch (error) {
    if (replaced.length === 0) throw error;
    throw describeIncomplete(error, replaced, steps.map((step) => step.target), options.result, options.uri);
  }
}

/** How the users and roles step is named in messages. */
const USERS_AND_ROLES = "the users and roles";

/** DumpError "restore-incomplete": which collections now hold the backup and which are unchanged. */
function describeIncomplete(error: unknown, replaced: string[], all: string[], result: RestoreResult, uri: string): DumpError {
  const reason = describeDriverError(error, uri);
  const unchanged = all.filter((target) => !replaced.includes(target));
  return new DumpError(
    "restore-incomplete",
    `the restore stopped after replacing ${replaced.length} of ${all.length} collection(s) (${replaced.join(", ")}); ` +
      `${unchanged.length > 0 ? `${unchanged.join(", ")} unchanged` : "none left unchanged"}: ${reason}`,
    {
      cause: error,
      stats: { ...result, collections: Object.fromEntries(replaced.map((target) => [target, result.collections[target] ?? { restored: 0, failed: 0 }])) },
      hint: "each collection holds either its old data or the backup's; restore again to replace the rest",
    },
  );
}

/** Puts one staged collection in place of its target (or recreates a view); throws the driver's error. */
async function swapIn(client: MongoClient, entry: StagedCollection, emptyTimestamps: EmptyTimestampPolicy): Promise<void> {
  const db = client.db(entry.targetDb);
  if (isView(entry.metadata)) {
    await dropIfExists(db, entry.targetName);
    await prepareCollection(db, entry.targetName, entry.metadata);
    return;
  }
  if (await renameOver(client, entry.staged, { db: entry.targetDb, name: entry.targetName })) return;
  // Time-series collections cannot be renamed before MongoDB 8.0, nor anything on FerretDB 1.x:
  // recreate and copy instead (not one atomic step; docs/restore.md says so). The limits are asked
  // before the target is dropped.
  const limits = await readWriteLimits(client);
  await prepareCollection(db, entry.targetName, entry.metadata);
  await copyDocuments(client.db(entry.staged.db), db, entry, { emptyTimestamps, limits });
  await dropIfExists(client.db(entry.staged.db), entry.staged.name);
}

/** Copies the staged documents in commands within the server's limits; throws on a refused one. */
async function copyDocuments(from: Db, to: Db, entry: StagedCollection, write: { emptyTimestamps: EmptyTimestampPolicy; limits: WriteLimits }): Promise<void> {
  const source = entry.intoBuckets ? `system.buckets.${entry.staged.name}` : entry.staged.name;
  const target = entry.intoBuckets ? `system.buckets.${entry.targetName}` : entry.targetName;
  // The server answers in batches of at most 16 MiB whatever the count asked for.
  const cursor = from.collection(source).find({}, { raw: true, batchSize: COPY_READ_BATCH_DOCUMENTS });
  const batch = new DocumentBatch();
  const insert = async () => {
    const outcome = await insertRestoredDocuments(to, target, batch.take(), write.emptyTimestamps, write.limits);
    if (outcome.failed > 0) throw new Error(`copying into ${entry.target} refused ${outcome.failed} document(s): ${outcome.firstError}`);
  };
  for await (const document of cursor) {
    batch.add(document as unknown as Uint8Array);
    if (batch.isFull()) await insert();
  }
  await insert();
}

/** Drops the staging collections of a restore that will not swap them in; throws the driver's error. */
export async function dropStaged(client: MongoClient, collections: StagedCollection[]): Promise<void> {
  for (const entry of collections) {
    if (!isView(entry.metadata)) await dropIfExists(client.db(entry.staged.db), entry.staged.name);
  }
}
