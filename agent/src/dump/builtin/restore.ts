// The built-in restorer. Phase one writes every collection of the archive into a staging
// collection (options, indexes, then its documents as their exact bytes, in unordered batches);
// phase two, only once the whole archive went in without a refused document, renames each staging
// collection over its target and recreates the views. A failure in phase one leaves the target
// database exactly as it was; a failure in phase two leaves each collection entirely old or
// entirely new and says which. See docs/restore.md.
import { formatOplogTime } from "../../../../protocol/oplog-position.ts";
import { describeFailedInsert } from "./closed-on-insert.ts";
import type { ArchivePrelude } from "../archive-prelude.ts";
import { DumpError, throwIfAborted } from "../errors.ts";
import { type CollectionMetadata, OPLOG_NAMESPACE, readMongodumpArchive } from "../mongodump-archive/index.ts";
import type { ProgressTracker } from "../progress-tracker.ts";
import type { RestorePlan } from "../restore-plan.ts";
import { pauseForTest } from "../test-pause.ts";
import type { PointInTimeReplay, RestoreResult } from "../types.ts";
import { readEntryTimestamp } from "../../oplog/apply/index.ts";
import { databasesWrittenBy } from "../../oplog/database-filter.ts";
import { connectClient, wrapDatabaseError } from "./client.ts";
import { DeferredIndexes } from "./deferred-indexes.ts";
import { DocumentBatch } from "./document-batch.ts";
import { InsertPipeline } from "./insert-pipeline.ts";
import { recordReplay, replayArchiveOplog } from "./oplog-replay.ts";
import { prepareCollection } from "./prepare-collection.ts";
import { chooseEmptyTimestampPolicy, insertRestoredDocuments } from "./restored-documents.ts";
import { createStagingArea, dropLeftoverStaging, type StagingArea } from "./staging.ts";
import { dropStaged, isView, type StagedCollection, swapAll } from "./swap.ts";
import { ROLES_NAMESPACE, type StagedUsersAndRoles, stageUsersAndRoles, USERS_NAMESPACE, UsersAndRoles } from "./users-and-roles.ts";
import { readWriteLimits } from "./write-limits.ts";

interface TargetState extends StagedCollection {
  prepared: boolean;
  /** Whether its staging collection may exist (creating it began), so a failure must drop it. */
  touched: boolean;
  /** The state that owns the collection when this one only names where its buckets go. */
  owner?: TargetState;
}

export interface BuiltinRestoreRequest {
  uri: string;
  prelude: ArchivePrelude;
  plan: RestorePlan;
  signal: AbortSignal | undefined;
  tracker: ProgressTracker;
  /** Staging names; a fresh random area unless a test fixes one. */
  staging?: StagingArea;
  pointInTime?: PointInTimeReplay | undefined;
}

/**
 * Restores the archive that `prelude.replay` yields. Any error but DumpError "restore-incomplete"
 * means nothing was changed: "connect-failed", "database-error" (a command or a refused
 * document), the archive's own errors, "aborted". "restore-incomplete" (with `stats`, the cause
 * and the replaced collections in its message) means the swap phase stopped part-way.
 */
export async function restoreWithDriver(request: BuiltinRestoreRequest): Promise<RestoreResult> {
  const { uri, plan, signal, tracker } = request;
  const staging = request.staging ?? createStagingArea();
  const result: RestoreResult = { engine: "builtin", collections: {}, restored: 0, failed: 0, skipped: [] };
  const client = await connectClient(uri);
  const states = new Map<string, TargetState>();
  const auth = plan.usersAndRoles ? new UsersAndRoles() : undefined;
  let stagedAuth: StagedUsersAndRoles | undefined;
  let firstRefusal: string | undefined;
  let inserts: InsertPipeline | undefined;
  // mongodump --oplog writes the entries after the collections; they are applied once all are staged.
  const oplogEntries: Uint8Array[] = [];
  const hasOplog = request.prelude.collections.some((entry) => entry.namespace === OPLOG_NAMESPACE);
  const deferred = new DeferredIndexes(client, uri);
  try {
    await dropLeftoverStaging(client, plan.targetDatabases).catch((cause) => {
      throw wrapDatabaseError(cause, "removing staging collections left by an earlier restore", uri);
    });
    const emptyTimestamps = await chooseEmptyTimestampPolicy(client).catch((cause) => {
      throw wrapDatabaseError(cause, "asking the server its version", uri);
    });
    const limits = await readWriteLimits(client).catch((cause) => {
      throw wrapDatabaseError(cause, "asking the server its limits", uri);
    });
    const batch = new DocumentBatch<TargetState>();
    inserts = new InsertPipeline();
    const pipeline = inserts;
    const flush = async () => {
      const state = batch.owner;
      if (!state || batch.documents.length === 0) return;
      const documents = batch.take();
      const into = state.intoBuckets ? `system.buckets.${state.staged.name}` : state.staged.name;
      // The insert runs while the archive is read on; inserts into one collection stay in order.
      await pipeline.start(state, async () => {
        let outcome;
        try {
          outcome = await insertRestoredDocuments(client.db(state.staged.db), into, documents, emptyTimestamps, limits);
        } catch (cause) {
          throw describeFailedInsert(cause, documents, state.target, uri);
        }
        const stats = result.collections[state.target]!;
        stats.restored += outcome.inserted;
        stats.failed += outcome.failed;
        result.restored += outcome.inserted;
        result.failed += outcome.failed;
        firstRefusal ??= outcome.firstError && `${state.target}: ${outcome.firstError}`;
        tracker.add(documents.length, state.target);
        await pauseForTest("staging-inserted");
      });
    };
    const prepare = async (dataState: TargetState) => {
      const state = dataState.owner ?? dataState;
      if (state.prepared) return;
      throwIfAborted(signal);
      // Views hold no data: they are recreated in the swap phase.
      if (!isView(state.metadata)) {
        state.touched = true;
        try {
          deferred.defer(state, await prepareCollection(client.db(state.staged.db), state.staged.name, state.metadata, { deferUnique: hasOplog }));
        } catch (cause) {
          throw wrapDatabaseError(cause, `creating ${state.target} (staged as ${state.staged.name})`, uri);
        }
        await pauseForTest("staging-created");
      }
      state.prepared = true;
      result.collections[state.target] ??= { restored: 0, failed: 0 };
      tracker.enter(state.target);
    };

    for await (const event of readMongodumpArchive(request.prelude.replay)) {
      if (event.kind === "collection") {
        registerCollection(event.metadata, plan, staging, states, result);
      } else if (event.kind === "document") {
        if (event.namespace === OPLOG_NAMESPACE) {
          oplogEntries.push(event.bytes);
          continue;
        }
        if (auth?.collect(event.namespace, event.bytes)) continue;
        const state = states.get(event.namespace);
        if (!state) continue;
        if (batch.owner !== state) await flush();
        await prepare(state);
        if (state.intoBuckets && state.owner) state.owner.intoBuckets = true;
        batch.add(event.bytes, state);
        if (batch.isFull()) {
          throwIfAborted(signal);
          await flush();
        }
      } else if (event.kind === "namespace-end") {
        const state = states.get(event.namespace);
        if (!state) continue;
        if (batch.owner === state) await flush();
        await prepare(state);
      }
    }
    await flush();
    await pipeline.finish();
    if (result.failed > 0) {
      throw new DumpError("database-error", `MongoDB refused ${result.failed} document(s), so nothing was replaced (first: ${firstRefusal})`, {
        hint: "a unique index or a validator of the target refused them; the backup itself is intact",
      });
    }
    throwIfAborted(signal);
    let removed: TargetState[] = [];
    let until: PointInTimeReplay["until"] | undefined;
    // The archive's own entries, then the slices' (streamed from the checked files).
    const entries = new ReplayedEntries(oplogEntries);
    if (request.pointInTime) {
      until = request.pointInTime.until;
      entries.followedBy(await chainEntries(request.pointInTime, oplogEntries, plan));
    }
    if (oplogEntries.length > 0) {
      // The databases the archive's entries write to are replayed even with no collection in it.
      const replayPlan = plan.withOplogDatabases(databasesWrittenBy(oplogEntries));
      const register = (metadata: CollectionMetadata) => {
        registerCollection(metadata, replayPlan, staging, states, result);
        return states.get(metadata.namespace)!;
      };
      const replayed = await replayArchiveOplog({
        client,
        uri,
        plan: replayPlan,
        entries,
        states,
        register,
        signal,
        until,
        beforeIndexChange: (state, dropped) => deferred.build(state, dropped),
      });
      removed = replayed.removed;
      recordReplay(result, { entries: entries.read, applied: replayed.applied, swapped: prepared(states), removed });
    }
    if (plan.chosenAtMoment) requireChosenAtMoment(plan.chosenAtMoment, pointInTimeDatabase(plan), states, until);
    // Only now is each staged collection the source at one moment: its unique keys hold again.
    for (const state of prepared(states)) {
      throwIfAborted(signal);
      await deferred.build(state, false);
    }
    throwIfAborted(signal);
    if (auth && !auth.isEmpty) stagedAuth = await stageUsersAndRoles(client, auth, staging, request.prelude.header.serverVersion);

    const staged = prepared(states);
    const swap = { uri, signal, result, emptyTimestamps, usersAndRoles: stagedAuth, removed, onSwapped: (target: string) => tracker.enter(target) };
    await swapAll(client, staged, swap);
    return describeUsersAndRoles(result, stagedAuth);
  } catch (error) {
    // Inserts still running must end before their staging collections are dropped.
    await inserts?.settle();
    // Also retried by the next restore; a failed swap phase has already said what it replaced.
    await dropStaged(client, touched(states)).catch(() => undefined);
    await stagedAuth?.discard().catch(() => undefined);
    throw error;
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** The slices' entries after the base's consistent point: the last entry of its own oplog (a no-op at T1). */
async function chainEntries(pointInTime: PointInTimeReplay, baseEntries: Uint8Array[], plan: RestorePlan): Promise<AsyncIterable<Uint8Array>> {
  const database = pointInTimeDatabase(plan);
  const last = baseEntries.at(-1);
  const ts = last && readEntryTimestamp(last);
  if (!ts) {
    throw new DumpError("unsupported", "the base backup holds no consistent point (no oplog window), so no slice can be replayed after it", {
      hint: "use a backup of a replica set taken with point-in-time recovery on",
    });
  }
  return pointInTime.entriesAfter(ts, database);
}

/** The entries a restore replays, read again at each iteration; `read` counts those the last one read. */
class ReplayedEntries implements AsyncIterable<Uint8Array> {
  read = 0;
  #after: AsyncIterable<Uint8Array> | undefined;

  constructor(readonly archive: Uint8Array[]) {}

  followedBy(after: AsyncIterable<Uint8Array>): void {
    this.#after = after;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    this.read = 0;
    for (const entry of this.archive) {
      this.read++;
      yield entry;
    }
    if (!this.#after) return;
    for await (const entry of this.#after) {
      this.read++;
      yield entry;
    }
  }
}

/**
 * Throws DumpError "unknown-collection" when a collection chosen for a point-in-time restore does
 * not exist at the moment (never created, or dropped before it): checked once the entries are
 * applied, before anything is swapped in, so a collection created after the base backup counts.
 */
function requireChosenAtMoment(chosen: string[], database: string, states: Map<string, TargetState>, until: PointInTimeReplay["until"] | undefined): void {
  const present = new Set(prepared(states).flatMap((state) => (state.metadata.db === database ? [state.metadata.collection] : [])));
  const missing = chosen.filter((name) => !present.has(name));
  if (missing.length === 0) return;
  const held = [...present].sort();
  const listed = held.length > 20 ? `${held.slice(0, 20).join(", ")} and ${held.length - 20} more` : held.length > 0 ? held.join(", ") : "no collections";
  const moment = until ? ` at ${formatOplogTime(until)}` : "";
  throw new DumpError(
    "unknown-collection",
    `the database has no collection ${missing.map((name) => `"${name}"`).join(", ")}${moment}, so nothing was replaced; it holds ${listed}`,
    { hint: "choose collections that exist at that moment" },
  );
}

/** The one database whose slices a point-in-time restore replays; throws DumpError "unsupported" for a backup of several. */
export function pointInTimeDatabase(plan: RestorePlan): string {
  const database = plan.onlyDatabase ?? (plan.sourceDatabases.length === 1 ? plan.sourceDatabases[0] : undefined);
  if (database !== undefined) return database;
  throw new DumpError("unsupported", "a point-in-time restore replays one database's slices, and this backup holds several", {
    hint: "restore one database of it with --to-db or the database's own backup",
  });
}

/** Adds the users and roles restored to the result; they are no longer among the skipped namespaces. */
export function describeUsersAndRoles(result: RestoreResult, staged: StagedUsersAndRoles | undefined): RestoreResult {
  if (!staged) return result;
  const restored = new Set([USERS_NAMESPACE, ROLES_NAMESPACE]);
  return { ...result, skipped: result.skipped.filter((namespace) => !restored.has(namespace)), usersAndRoles: { users: staged.users, roles: staged.roles } };
}

/** The collections and views whose staging was created, each once (bucket states name their owner). */
function prepared(states: Map<string, TargetState>): TargetState[] {
  return [...new Set(states.values())].filter((state) => !state.owner && state.prepared);
}

/** The collections whose staging may exist, even half-created (its indexes refused, say). */
function touched(states: Map<string, TargetState>): TargetState[] {
  return [...new Set(states.values())].filter((state) => !state.owner && state.touched);
}

function registerCollection(
  metadata: CollectionMetadata,
  plan: RestorePlan,
  staging: StagingArea,
  states: Map<string, TargetState>,
  result: RestoreResult,
): void {
  const target = plan.targetOf(metadata);
  if (target === undefined) {
    result.skipped.push(metadata.namespace);
    return;
  }
  const targetDb = target.slice(0, target.indexOf("."));
  const targetName = target.slice(targetDb.length + 1);
  const state: TargetState = {
    metadata,
    target,
    targetDb,
    targetName,
    staged: staging.locate(targetDb, targetName),
    intoBuckets: false,
    prepared: false,
    touched: false,
  };
  states.set(metadata.namespace, state);
  if (metadata.type === "timeseries") {
    // Archives from servers before 8.3 carry a time-series collection's buckets separately.
    states.set(`${metadata.db}.system.buckets.${metadata.collection}`, { ...state, intoBuckets: true, owner: state });
  }
}
