// Applies a stream of oplog entries of one database to a server, each source collection's into
// the namespace a mapping names (a restore's staging collections), up to an optional "until"
// position. Entries are read in oplog order; the first one past "until" ends the replay, and a
// transaction is applied whole at its commit (transactions.ts), so a transaction that commits
// after "until" contributes nothing, however early it began.
import { BSON, type Document, type MongoClient } from "mongodb";
import { createMemoryPacer } from "../../archive/index.ts";
import { applyCommandEntry, type CommandTarget } from "./command-entries.ts";
import { commandName, type OplogEntry, parseEntry, readEntry, splitNamespace } from "./entry.ts";
import { OplogApplyError } from "./errors.ts";
import { type NamespaceMapping, ReplayedCollections } from "./namespaces.ts";
import { OperationBatch } from "./operation-batch.ts";
import { compareOplogTimes, type OplogTime } from "../../../../protocol/oplog-position.ts";
import { innerOperations, TransactionBuffer } from "./transactions.ts";

export interface ApplyOplogRequest {
  client: MongoClient;
  /** Entries as local.oplog.rs holds them (one BSON document each), in oplog order. */
  entries: AsyncIterable<Uint8Array> | Iterable<Uint8Array>;
  /** The database the entries are of; entries of other databases are left out. */
  sourceDb: string;
  mapping: NamespaceMapping;
  /** The source collections already present where the mapping points (what a dropDatabase drops). */
  collections: Iterable<string>;
  /** Entries after this position are not applied. */
  until?: OplogTime | undefined;
  signal?: AbortSignal | undefined;
  /**
   * Runs before an entry changes a source collection's indexes (createIndexes, dropIndexes,
   * collMod, a rename…): a restore that builds some indexes only after the replay builds them here
   * for that collection, so the entry finds them; `dropped` when the entry drops the collection (or
   * renames it out of the replay), whose indexes are then never built. Its error fails the replay.
   */
  beforeIndexChange?: ((collection: string, dropped: boolean) => Promise<void>) | undefined;
}

export interface ApplyOplogResult {
  /** Operations applied (each operation of a transaction counts). */
  applied: number;
  /** The position of the last entry read at or before "until". */
  reached: OplogTime | undefined;
  transactions: { committed: number; aborted: number; notCommitted: number };
  /** The source collections existing after the replay, sorted. */
  collections: string[];
  /** The source collections the entries dropped or renamed away, sorted. */
  removed: string[];
}

// Kinds with nothing to apply: no-ops, and the record-id bookkeeping mongod 8 writes.
const IGNORED_OPS = new Set(["n", "cd", "ci", "cu", "km"]);
const CRUD_OPS = new Set(["i", "u", "d"]);
const BUCKETS_PREFIX = "system.buckets.";

/** Applies the entries; throws OplogApplyError (nothing says how far it got: discard the copy). */
export async function applyOplog(request: ApplyOplogRequest): Promise<ApplyOplogResult> {
  const collections = new ReplayedCollections(request.collections);
  const batch = new OperationBatch(request.client);
  const target: Replay = {
    client: request.client,
    sourceDb: request.sourceDb,
    mapping: request.mapping,
    collections,
    batch,
    commands: 0,
    beforeIndexChange: request.beforeIndexChange,
  };
  const transactions = new TransactionBuffer();
  const counts = { committed: 0, aborted: 0 };
  let reached: OplogTime | undefined;
  // Each entry leaves its parsed document and its applyOps command to the collector, which lets
  // them pile up (bench/pitr-restore.ts --size 10MB --entries 300000, sampled every 20 ms during
  // the replay: 233 MB at most without this pacer, 192 MB with it, one run each).
  const pacer = createMemoryPacer();
  for await (const bytes of request.entries) {
    request.signal?.throwIfAborted();
    pacer.note(bytes.byteLength);
    const entry = parseEntry(bytes);
    if (request.until && entry.ts && compareOplogTimes(entry.ts, request.until) > 0) break;
    reached = entry.ts ?? reached;
    if (IGNORED_OPS.has(entry.op)) continue;
    const step = transactions.take(entry);
    if (step.kind === "none") await applyEntry(target, entry, entry);
    else if (step.kind === "abort") counts.aborted++;
    else if (step.kind === "commit") {
      for (const operation of step.operations) await applyEntry(target, readEntry(operation), entry);
      counts.committed++;
    }
  }
  await batch.flush();
  return {
    applied: batch.applied + target.commands,
    reached,
    transactions: { ...counts, notCommitted: transactions.pending },
    collections: collections.existing(),
    removed: collections.removed(),
  };
}

interface Replay extends CommandTarget {
  batch: OperationBatch;
  /** `c` entries applied. */
  commands: number;
}

/** Applies one entry that is not a transaction's (or one operation of a committed one, `outer` the entry that held it). */
async function applyEntry(replay: Replay, entry: OplogEntry, outer: OplogEntry): Promise<void> {
  const at = entry.ts ?? outer.ts;
  if (IGNORED_OPS.has(entry.op)) return;
  const { db, collection } = splitNamespace(entry.ns);
  if (entry.op === "c") {
    // An applyOps that is no transaction (a vectored insert): its operations one by one.
    if (commandName(entry) === "applyOps") {
      for (const operation of innerOperations(entry)) await applyEntry(replay, readEntry(operation), entry);
      return;
    }
    if (db !== replay.sourceDb) return;
    await replay.batch.flush();
    await applyCommandEntry(replay, { ...entry, ts: at });
    replay.commands++;
    return;
  }
  if (!CRUD_OPS.has(entry.op)) throw new OplogApplyError(`unknown operation '${entry.op}'`, at);
  if (db !== replay.sourceDb) return;
  if (collection.startsWith(BUCKETS_PREFIX)) throw new OplogApplyError(`time-series collections cannot be replayed yet (${entry.ns})`, at);
  // Views live in system.views, written by the create and drop entries that are applied.
  if (collection === "system.views") return;
  const located = replay.mapping.locate(collection);
  if (!located) return;
  if (entry.op !== "d" && !replay.collections.has(collection)) {
    // Created on first write, as on the source, with the default options.
    await replay.batch.flush();
    await applyCommandEntry(replay, { ...entry, op: "c", o: { create: collection }, ts: at });
  }
  const operation: Document = { op: entry.op, ns: `${located.db}.${located.name}`, o: entry.o, ...(entry.o2 ? { o2: entry.o2 } : {}) };
  await replay.batch.add(operation, BSON.calculateObjectSize(operation), at);
}
