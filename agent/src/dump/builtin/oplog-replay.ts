// The oplog a consistent backup carries (mongodump --oplog puts it in the archive's `.oplog`
// namespace: the entries written while the collections were read) is applied to the staging
// collections once they all hold the archive's documents and before any is swapped in, so the
// restored databases are the source at one moment, the last entry's. Entries create, rename and
// drop collections too: the restore then stages the collections the source had at that moment
// and drops, at the swap, the targets of those it no longer had.
import type { MongoClient } from "mongodb";
import type { OplogTime } from "../../../../protocol/oplog-position.ts";
import { applyOplog, OplogApplyError } from "../../oplog/apply/index.ts";
import { databasesWrittenBy } from "../../oplog/database-filter.ts";
import { findMissingApplyPrivileges } from "../../oplog/permissions/index.ts";
import { DumpError } from "../errors.ts";
import { type CollectionMetadata, OPLOG_NAMESPACE } from "../mongodump-archive/index.ts";
import type { RestorePlan } from "../restore-plan.ts";
import type { RestoreResult } from "../types.ts";
import { describeDriverError, wrapDatabaseError } from "./client.ts";
import type { StagingArea } from "./staging.ts";
import { dropStaged, isView, type StagedCollection } from "./swap.ts";

/** What the replay needs of a restore's collection: where it is staged and whether it is there. */
export interface ReplayedState extends StagedCollection {
  prepared: boolean;
  touched: boolean;
  owner?: unknown;
}

export interface OplogReplayRequest<State extends ReplayedState> {
  client: MongoClient;
  uri: string;
  plan: RestorePlan;
  /** The archive's entries, in oplog order (then a point-in-time restore's, streamed); iterated once per database. */
  entries: Iterable<Uint8Array> | AsyncIterable<Uint8Array>;
  /** The restore's collections by source namespace ("db.collection"). */
  states: Map<string, State>;
  /** Adds a collection the archive does not hold (the entries created it); returns its state. */
  register(metadata: CollectionMetadata): State;
  signal: AbortSignal | undefined;
  /** Entries after this position are not applied (a point-in-time restore). */
  until?: OplogTime | undefined;
  /** Builds (or, `dropped`, forgets) a collection's indexes deferred to after the replay, before an entry changes its indexes. */
  beforeIndexChange?: ((state: State, dropped: boolean) => Promise<void>) | undefined;
}

export interface OplogReplayOutcome<State> {
  /** Operations applied. */
  applied: number;
  /** Collections of the archive the entries dropped or renamed away: their targets are dropped at the swap. */
  removed: State[];
}

/**
 * Applies the entries, database by database, into the staging collections; marks the
 * collections they created as staged. Throws DumpError "database-error" naming the entry when
 * one cannot be applied (nothing was swapped in yet), or "aborted" through the signal.
 */
export async function replayArchiveOplog<State extends ReplayedState>(request: OplogReplayRequest<State>): Promise<OplogReplayOutcome<State>> {
  const { plan, states } = request;
  let applied = 0;
  const removed: State[] = [];
  const databases = plan.onlyDatabase !== undefined ? [plan.onlyDatabase] : plan.sourceDatabases;
  await requireApplyPrivileges(request, databases);
  for (const db of databases) {
    const stateOf = (collection: string): State | undefined => {
      const known = states.get(`${db}.${collection}`);
      if (known) return known.owner ? undefined : known;
      const metadata = newCollectionMetadata(db, collection);
      if (plan.targetOf(metadata) === undefined) return undefined;
      const state = request.register(metadata);
      // It may be created from here on: a failure drops its staging collection too.
      state.touched = true;
      return state;
    };
    const present = [...states.values()].filter((state) => state.metadata.db === db && state.prepared && !state.owner && !isView(state.metadata));
    let outcome;
    try {
      outcome = await applyOplog({
        client: request.client,
        entries: request.entries,
        sourceDb: db,
        mapping: { locate: (collection) => stateOf(collection)?.staged },
        collections: present.map((state) => state.metadata.collection),
        signal: request.signal,
        until: request.until,
        beforeIndexChange: async (collection, dropped) => {
          const state = states.get(`${db}.${collection}`);
          if (state && !state.owner && request.beforeIndexChange) await request.beforeIndexChange(state, dropped);
        },
      });
    } catch (cause) {
      request.signal?.throwIfAborted();
      if (!(cause instanceof OplogApplyError)) throw wrapDatabaseError(cause, `replaying the backup's oplog into ${db}`, request.uri);
      throw new DumpError(
        "database-error",
        `replaying the backup's oplog into ${db} failed, so nothing was replaced: ${describeDriverError(cause, request.uri)}`,
        {
          hint: "the target database is unchanged and the backup itself is intact; an earlier or a later backup may restore",
        },
      );
    }
    applied += outcome.applied;
    for (const collection of outcome.collections) {
      const state = stateOf(collection);
      if (state) state.prepared = true;
    }
    for (const collection of outcome.removed) {
      const state = states.get(`${db}.${collection}`);
      if (!state || state.owner) continue;
      // Collections the archive does not hold are left alone in the target, as by every restore.
      if (!isNewCollection(state.metadata)) removed.push(state);
      state.prepared = false;
    }
  }
  return { applied, removed };
}

/** Throws DumpError "database-error" naming the roles to grant when the user cannot apply entries. */
async function requireApplyPrivileges(request: Pick<OplogReplayRequest<ReplayedState>, "plan" | "client">, databases: string[]): Promise<void> {
  const { rename } = request.plan;
  const targets = [...new Set(databases.map((db) => (rename && db === rename.from ? rename.to : db)))];
  const missing = await findMissingApplyPrivileges(request.client, targets.length === 1 ? targets[0] : undefined);
  if (!missing) return;
  throw new DumpError("database-error", `the backup holds oplog entries and ${missing.problem}, so nothing was replaced`, {
    hint: `the target database is unchanged; grant the roles in mongosh as an administrator: ${missing.grant}, then restore again`,
  });
}

const NEW_COLLECTION_MARK = "created by the backup's oplog";

/** Metadata for a collection the entries created: default options, indexes as the entries build them. */
function newCollectionMetadata(db: string, collection: string): CollectionMetadata {
  return {
    db,
    collection,
    namespace: `${db}.${collection}`,
    type: "collection",
    size: 0,
    options: {},
    indexes: [],
    uuid: undefined,
    metadataDocument: {},
    metadataJson: NEW_COLLECTION_MARK,
  };
}

function isNewCollection(metadata: CollectionMetadata): boolean {
  return metadata.metadataJson === NEW_COLLECTION_MARK;
}

/**
 * The replay for an engine that staged the archive's collections itself (mongorestore, which
 * refuses --oplogReplay together with the namespace renames that give the staging names): the
 * collections to swap in afterwards, and those whose targets to drop. Drops the staging
 * collections the entries created when it fails, then throws as replayArchiveOplog.
 */
export async function replayIntoStaged(request: {
  client: MongoClient;
  uri: string;
  plan: RestorePlan;
  staging: StagingArea;
  staged: StagedCollection[];
  entries: Uint8Array[];
  signal: AbortSignal | undefined;
  beforeIndexChange?: ((entry: StagedCollection, dropped: boolean) => Promise<void>) | undefined;
}): Promise<{ swap: StagedCollection[]; removed: StagedCollection[]; applied: number }> {
  const plan = request.plan.withOplogDatabases(databasesWrittenBy(request.entries));
  const states = new Map<string, ReplayedState>(request.staged.map((entry) => [entry.metadata.namespace, { ...entry, prepared: true, touched: true }]));
  const created: ReplayedState[] = [];
  const register = (metadata: CollectionMetadata): ReplayedState => {
    const target = plan.targetOf(metadata)!;
    const targetDb = target.slice(0, target.indexOf("."));
    const targetName = target.slice(targetDb.length + 1);
    const state = {
      metadata,
      target,
      targetDb,
      targetName,
      staged: request.staging.locate(targetDb, targetName),
      intoBuckets: false,
      prepared: false,
      touched: true,
    };
    states.set(metadata.namespace, state);
    created.push(state);
    return state;
  };
  try {
    const { applied, removed } = await replayArchiveOplog({ ...request, plan, states, register });
    return { swap: [...states.values()].filter((state) => state.prepared), removed, applied };
  } catch (error) {
    await dropStaged(request.client, created).catch(() => undefined);
    throw error;
  }
}

/** Puts the replay in the restore's result: the collections it staged and dropped, its counts; the oplog is no longer skipped. */
export function recordReplay(
  result: RestoreResult,
  replay: { entries: number; applied: number; swapped: StagedCollection[]; removed: StagedCollection[] },
): void {
  for (const entry of replay.swapped) result.collections[entry.target] ??= { restored: 0, failed: 0 };
  for (const entry of replay.removed) delete result.collections[entry.target];
  result.oplog = { entries: replay.entries, applied: replay.applied, dropped: replay.removed.map((entry) => entry.target) };
  result.skipped = result.skipped.filter((namespace) => namespace !== OPLOG_NAMESPACE);
}
