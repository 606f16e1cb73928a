// The built-in restorer: reads the mongodump archive and, per collection, drops it, recreates it
// with its options and indexes, and inserts its documents in unordered batches of their exact
// bytes. A collection is touched only when its first data arrives, after the whole prelude was
// read (see archive-prelude.ts), so a file that fails early changes nothing.
import type { Db, MongoClient } from "mongodb";
import type { ArchivePrelude } from "../archive-prelude.ts";
import { DumpError, throwIfAborted } from "../errors.ts";
import { type CollectionMetadata, readMongodumpArchive } from "../mongodump-archive/index.ts";
import type { ProgressTracker } from "../progress-tracker.ts";
import type { RestorePlan } from "../restore-plan.ts";
import type { RestoreResult } from "../types.ts";
import { connectClient, wrapDatabaseError } from "./client.ts";
import { prepareCollection } from "./prepare-collection.ts";
import { insertRawDocuments } from "./raw-insert.ts";

// mongorestore's default batch is 1000 documents; the byte cap keeps memory flat with big
// documents while staying far below the server's 48 MB message limit.
const BATCH_DOCUMENTS = 1000;
const BATCH_BYTES = 8 * 1024 * 1024;

interface TargetState {
  metadata: CollectionMetadata;
  /** "db.collection" shown in progress and stats. */
  target: string;
  db: Db;
  /** The collection the documents go into (system.buckets.X for old time-series archives). */
  insertInto: string;
  prepared: boolean;
  /** The state that owns the collection when this one only names where its buckets go. */
  owner?: TargetState;
}

export interface BuiltinRestoreRequest {
  uri: string;
  prelude: ArchivePrelude;
  plan: RestorePlan;
  signal: AbortSignal | undefined;
  tracker: ProgressTracker;
}

/**
 * Restores the archive that `prelude.replay` yields. Throws DumpError: "connect-failed" before
 * anything changed; "restore-incomplete" (with `stats` and the cause) once a collection was
 * replaced; "aborted". Archive damage surfaces as the cause's MongodumpArchiveError or the
 * decryptor's ArchiveError.
 */
export async function restoreWithDriver(request: BuiltinRestoreRequest): Promise<RestoreResult> {
  const { uri, plan, signal, tracker } = request;
  const result: RestoreResult = { engine: "builtin", collections: {}, restored: 0, failed: 0, skipped: [] };
  const client = await connectClient(uri);
  let touched = false;
  try {
    const states = new Map<string, TargetState>();
    const batch = new Batch();
    const flush = async () => {
      const state = batch.state;
      if (!state || batch.documents.length === 0) return;
      const documents = batch.take();
      let outcome;
      try {
        outcome = await insertRawDocuments(state.db, state.insertInto, documents);
      } catch (cause) {
        throw wrapDatabaseError(cause, `inserting into ${state.target}`, uri);
      }
      const stats = result.collections[state.target]!;
      stats.restored += outcome.inserted;
      stats.failed += outcome.failed;
      result.restored += outcome.inserted;
      result.failed += outcome.failed;
      tracker.add(documents.length, state.target);
    };
    const prepare = async (dataState: TargetState) => {
      const state = dataState.owner ?? dataState;
      if (state.prepared) return;
      throwIfAborted(signal);
      touched = true;
      try {
        await prepareCollection(state.db, state.metadata.collection, state.metadata);
      } catch (cause) {
        throw wrapDatabaseError(cause, `recreating ${state.target}`, uri);
      }
      state.prepared = true;
      result.collections[state.target] ??= { restored: 0, failed: 0 };
      tracker.enter(state.target);
    };

    for await (const event of readMongodumpArchive(request.prelude.replay)) {
      if (event.kind === "collection") {
        registerCollection(event.metadata, plan, client, states, result);
      } else if (event.kind === "document") {
        const state = states.get(event.namespace);
        if (!state) continue;
        if (batch.state !== state) await flush();
        await prepare(state);
        batch.add(state, event.bytes);
        if (batch.isFull()) {
          throwIfAborted(signal);
          await flush();
        }
      } else if (event.kind === "namespace-end") {
        const state = states.get(event.namespace);
        if (!state) continue;
        if (batch.state === state) await flush();
        await prepare(state);
      }
    }
    await flush();
    return result;
  } catch (error) {
    if (!touched) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    const replaced = Object.keys(result.collections);
    throw new DumpError(
      "restore-incomplete",
      `the restore stopped after replacing ${replaced.length} collection(s): ${reason}`,
      {
        cause: error,
        stats: result,
        hint: "the collections listed as replaced hold the backup's data up to the failure; the others are unchanged",
      },
    );
  } finally {
    await client.close().catch(() => undefined);
  }
}

function registerCollection(
  metadata: CollectionMetadata,
  plan: RestorePlan,
  client: MongoClient,
  states: Map<string, TargetState>,
  result: RestoreResult,
): void {
  const target = plan.targetOf(metadata);
  if (target === undefined) {
    result.skipped.push(metadata.namespace);
    return;
  }
  const targetDb = target.slice(0, target.indexOf("."));
  const state: TargetState = { metadata, target, db: client.db(targetDb), insertInto: metadata.collection, prepared: false };
  states.set(metadata.namespace, state);
  if (metadata.type === "timeseries") {
    // Archives from servers before 8.3 carry a time-series collection's buckets separately.
    const buckets = `system.buckets.${metadata.collection}`;
    states.set(`${metadata.db}.${buckets}`, { ...state, insertInto: buckets, owner: state });
  }
}

class Batch {
  state: TargetState | undefined;
  documents: Uint8Array[] = [];
  private bytes = 0;

  add(state: TargetState, document: Uint8Array): void {
    this.state = state;
    this.documents.push(document);
    this.bytes += document.length;
  }

  isFull(): boolean {
    return this.documents.length >= BATCH_DOCUMENTS || this.bytes >= BATCH_BYTES;
  }

  take(): Uint8Array[] {
    const documents = this.documents;
    this.documents = [];
    this.bytes = 0;
    return documents;
  }
}
