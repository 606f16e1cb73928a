// Restoring with MongoDB's own mongorestore, with the same guarantee as the built-in engine:
// mongorestore writes every collection under a staging name (--nsFrom/--nsTo), and only when it
// finished without a refused document are the staging collections swapped in (builtin/swap.ts).
// The bytes pass through the agent's archive reader on their way to mongorestore's stdin, which
// counts documents for progress and checks each namespace's CRC.
import { once } from "node:events";
import type { Writable } from "node:stream";
import type { ArchivePrelude } from "../archive-prelude.ts";
import { connectClient, wrapDatabaseError } from "../builtin/client.ts";
import { createStagingArea, dropLeftoverStaging, type StagingArea } from "../builtin/staging.ts";
import { recordReplay, replayIntoStaged } from "../builtin/oplog-replay.ts";
import { buildIndexesBeforeReplay, DeferredIndexes } from "../builtin/deferred-indexes.ts";
import { describeUsersAndRoles } from "../builtin/restore.ts";
import { dropStaged, isView, type StagedCollection, swapAll } from "../builtin/swap.ts";
import { type StagedUsersAndRoles, stageUsersAndRoles, UsersAndRoles } from "../builtin/users-and-roles.ts";
import { UNACCEPTED_VALUES_HINT, UnacceptedValues } from "../builtin/closed-on-insert.ts";
import { chooseEmptyTimestampPolicy } from "../builtin/restored-documents.ts";
import { readSrvTxtAuthSource, removeUriDatabase } from "../connection-string.ts";
import { DumpError, throwIfAborted } from "../errors.ts";
import { type CollectionMetadata, listDataNamespaces, OPLOG_NAMESPACE, readMongodumpArchive } from "../mongodump-archive/index.ts";
import type { ProgressTracker } from "../progress-tracker.ts";
import type { RestorePlan } from "../restore-plan.ts";
import type { CollectionRestoreStats, RestoreResult } from "../types.ts";
import { startTool } from "./run-tool.ts";
import { writeToolConfig } from "./tool-config.ts";

export interface NativeRestoreRequest {
  toolPath: string;
  uri: string;
  prelude: ArchivePrelude;
  plan: RestorePlan;
  signal: AbortSignal | undefined;
  tracker: ProgressTracker;
  /** Staging names; a fresh random area unless a test fixes one. */
  staging?: StagingArea;
}

/**
 * Restores through mongorestore. Any error but DumpError "restore-incomplete" means nothing was
 * changed ("tool-failed", "database-error", "connect-failed", "aborted"); "restore-incomplete"
 * means the swap phase stopped part-way and names what it replaced.
 */
export async function restoreWithTool(request: NativeRestoreRequest): Promise<RestoreResult> {
  const { uri, plan, tracker, signal, prelude } = request;
  const staging = request.staging ?? createStagingArea();
  const staged = stageCollections(prelude.collections, plan, staging);
  const targetOfStaged = new Map(staged.map((entry) => [`${entry.staged.db}.${entry.staged.name}`, entry.target]));
  const client = await connectClient(uri);
  const auth = plan.usersAndRoles ? new UsersAndRoles() : undefined;
  let stagedAuth: StagedUsersAndRoles | undefined;
  // What is swapped in: the archive's collections, as the backup's oplog left them.
  let swap = staged;
  try {
    await dropLeftoverStaging(client, plan.targetDatabases).catch((cause) => {
      throw wrapDatabaseError(cause, "removing staging collections left by an earlier restore", uri);
    });
    const emptyTimestamps = await chooseEmptyTimestampPolicy(client).catch((cause) => {
      throw wrapDatabaseError(cause, "asking the server its version", uri);
    });
    const oplog: Uint8Array[] = [];
    // A backup with an oplog was read while the application wrote: its indexes are built here,
    // the unique ones after the replay (builtin/prepare-collection.ts says why).
    const ownIndexes = prelude.collections.some((entry) => entry.namespace === OPLOG_NAMESPACE);
    // FerretDB closes the connection on values it does not store, and mongorestore then says only
    // that; what it was sent is looked through so that the failure can say why.
    const unaccepted = (await isFerretDb(client)) ? new UnacceptedValues() : undefined;
    const result = await runMongorestore(request, staged, targetOfStaged, auth, oplog, ownIndexes, unaccepted);
    const refused = result.failed;
    if (refused > 0) {
      throw new DumpError("database-error", `mongorestore could not restore ${refused} document(s), so nothing was replaced`, {
        hint: "a unique index or a validator of the target refused them; the backup itself is intact",
      });
    }
    throwIfAborted(signal);
    let removed: StagedCollection[] = [];
    const indexes = ownIndexes ? await buildIndexesBeforeReplay(client, uri, staged) : new DeferredIndexes(client, uri);
    if (oplog.length > 0) {
      const beforeIndexChange = (entry: StagedCollection, dropped: boolean) => indexes.build(entry, dropped);
      const replayed = await replayIntoStaged({ client, uri, plan, staging, staged, entries: oplog, signal, beforeIndexChange });
      ({ swap, removed } = replayed);
      recordReplay(result, { entries: oplog.length, applied: replayed.applied, swapped: swap, removed });
    }
    for (const entry of swap) await indexes.build(entry, false);
    throwIfAborted(signal);
    if (auth && !auth.isEmpty) stagedAuth = await stageUsersAndRoles(client, auth, staging, prelude.header.serverVersion);
    const onSwapped = (target: string) => tracker.enter(target);
    await swapAll(client, swap, { uri, signal, result, emptyTimestamps, usersAndRoles: stagedAuth, removed, onSwapped });
    return describeUsersAndRoles(result, stagedAuth);
  } catch (error) {
    await dropStaged(client, [...staged, ...swap]).catch(() => undefined); // also retried by the next restore
    await stagedAuth?.discard().catch(() => undefined);
    throw error;
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** Where each restored collection of the archive is staged (views are recreated, never staged). */
function stageCollections(collections: CollectionMetadata[], plan: RestorePlan, staging: StagingArea): StagedCollection[] {
  const staged: StagedCollection[] = [];
  for (const metadata of collections) {
    const target = plan.targetOf(metadata);
    if (target === undefined) continue;
    const targetDb = target.slice(0, target.indexOf("."));
    const targetName = target.slice(targetDb.length + 1);
    staged.push({ metadata, target, targetDb, targetName, staged: staging.locate(targetDb, targetName), intoBuckets: false });
  }
  return staged;
}

/**
 * Runs mongorestore into the staging names (users and roles, which it never sees, go to `auth`
 * as the archive passes); throws DumpError "tool-failed" or "aborted".
 */
async function runMongorestore(
  request: NativeRestoreRequest,
  staged: StagedCollection[],
  targetOfStaged: Map<string, string>,
  auth: UsersAndRoles | undefined,
  /** Receives the archive's oplog entries (mongorestore does not apply them: restoreWithTool does). */
  oplog: Uint8Array[],
  /** Whether the agent builds the secondary indexes itself (mongorestore --noIndexRestore). */
  ownIndexes: boolean,
  /** Collects what the server may close the connection on, from the documents sent. */
  unaccepted?: UnacceptedValues,
): Promise<RestoreResult> {
  const { uri, plan, tracker, signal, prelude } = request;
  const config = await writeToolConfig(removeUriDatabase(uri, await readSrvTxtAuthSource(uri)));
  const finished = new Map<string, CollectionRestoreStats>();
  let unplacedFailures = 0;
  const tool = startTool({
    name: "mongorestore",
    path: request.toolPath,
    args: [...buildArguments(config.path, staged), ...(ownIndexes ? ["--noIndexRestore"] : [])],
    uri,
    stdin: "pipe",
    stdout: "ignore",
    signal,
    onLine(line) {
      if (line.kind !== "restore-finished") return;
      const target = targetOfStaged.get(line.namespace);
      // Every namespace it restores is a staging name; one it names otherwise is never listed as
      // replaced, but its refused documents still stop the restore.
      if (target === undefined) unplacedFailures += line.failed;
      else finished.set(target, { restored: line.restored, failed: line.failed });
    },
  });
  const stdin = tool.child.stdin as Writable;
  stdin.on("error", () => undefined); // EPIPE when mongorestore stops early; its exit code explains.
  const sent = new Map<string, number>();
  const skipped: string[] = [];
  try {
    const byNamespace = new Map(staged.flatMap((entry) => dataNamespaces(entry.metadata).map((namespace) => [namespace, entry] as const)));
    for await (const event of readMongodumpArchive(forwardTo(prelude.replay, stdin, tool.exited))) {
      if (event.kind === "collection") {
        if (plan.targetOf(event.metadata) === undefined) skipped.push(event.metadata.namespace);
      } else if (event.kind === "document") {
        if (event.namespace === OPLOG_NAMESPACE) {
          oplog.push(event.bytes);
          continue;
        }
        if (auth?.collect(event.namespace, event.bytes)) continue;
        const entry = byNamespace.get(event.namespace);
        if (entry === undefined) continue;
        // Buckets travelling apart from their collection are staged apart too, and swapped so.
        if (event.namespace !== entry.metadata.namespace) entry.intoBuckets = true;
        unaccepted?.add(event.bytes);
        sent.set(entry.target, (sent.get(entry.target) ?? 0) + 1);
        tracker.add(1, entry.target);
      } else if (event.kind === "namespace-end") {
        const target = byNamespace.get(event.namespace)?.target;
        if (target !== undefined && !sent.has(target)) sent.set(target, 0);
      }
      throwIfAborted(signal);
    }
    stdin.end();
    const code = await tool.exited;
    throwIfAborted(signal);
    if (code !== 0) throw failureOf(tool.describeFailure(code), unaccepted);
    return buildResult(sent, finished, skipped, unplacedFailures);
  } catch (error) {
    tool.stop();
    const code = await tool.exited.catch(() => null);
    // mongorestore exiting first breaks its stdin; its own message says why.
    if (!(error instanceof DumpError) && code !== null && code !== 0) {
      throw failureOf(tool.describeFailure(code), unaccepted, error);
    }
    throw error;
  } finally {
    tool.stop();
    await config.dispose();
  }
}

/** mongorestore's failure; when the server closed its connection and it was sent what FerretDB does not accept, saying so. */
function failureOf(described: string, unaccepted: UnacceptedValues | undefined, cause?: unknown): DumpError {
  if (!unaccepted || unaccepted.isEmpty || !/connection closed|closed unexpectedly|connection\(.*\) .*closed/i.test(described)) {
    return new DumpError("tool-failed", described, cause === undefined ? {} : { cause });
  }
  return new DumpError("tool-failed", `mongorestore failed: the server closed its connection while restoring ${unaccepted.describe()}; nothing was replaced`, {
    hint: UNACCEPTED_VALUES_HINT,
    ...(cause === undefined ? {} : { cause }),
  });
}

/** Whether the server is FerretDB (its buildInfo names its version); false when it cannot be asked. */
async function isFerretDb(client: Awaited<ReturnType<typeof connectClient>>): Promise<boolean> {
  const info = await client
    .db("admin")
    .command({ buildInfo: 1 })
    .catch(() => ({}) as Record<string, unknown>);
  return typeof info.ferretdbVersion === "string";
}

/**
 * Every restored collection goes to its staging name; nothing else (views, skipped) is included.
 * A time-series collection's buckets travel as `<db>.system.buckets.<name>` (archives from servers
 * before 8.3), a namespace of its own to mongorestore's renamer: mapped only by the collection's
 * name, mongorestore keeps the buckets' own name and restores them over the live collection
 * (dropping it first, with --drop). So the buckets get their own mapping, into the staging
 * collection's buckets.
 */
function buildArguments(configPath: string, staged: StagedCollection[]): string[] {
  const args = [`--config=${configPath}`, "--archive", "--drop"];
  for (const entry of staged) {
    if (isView(entry.metadata)) continue;
    const source = escapePattern(entry.metadata.namespace);
    args.push(`--nsInclude=${source}`);
    for (const [from, to] of stagingMappings(entry)) args.push(`--nsFrom=${escapePattern(from)}`, `--nsTo=${escapePattern(to)}`);
  }
  return args;
}

/** [source, staging] namespace pairs of one collection: its own, and its buckets' when time-series. */
function stagingMappings(entry: StagedCollection): Array<[string, string]> {
  const { metadata, staged } = entry;
  const into = listDataNamespaces(staged.db, staged.name, metadata.type);
  return dataNamespaces(metadata).map((from, i) => [from, into[i]!]);
}

// mongorestore namespace patterns: "*" is a wildcard and "\" escapes.
function escapePattern(name: string): string {
  return name.replace(/[\\*]/g, (character) => `\\${character}`);
}

function dataNamespaces(metadata: CollectionMetadata): string[] {
  return listDataNamespaces(metadata.db, metadata.collection, metadata.type);
}

/** Passes every chunk to mongorestore (waiting while its pipe is full) before the reader sees it. */
async function* forwardTo(source: AsyncIterable<Uint8Array>, stdin: Writable, exited: Promise<number | null>): AsyncGenerator<Uint8Array> {
  const stopped = exited.then(
    () => "exited" as const,
    () => "exited" as const,
  );
  for await (const chunk of source) {
    if (stdin.destroyed || stdin.writableEnded) throw new Error("mongorestore closed its input");
    if (!stdin.write(chunk)) {
      const outcome = await Promise.race([once(stdin, "drain").then(() => "drained" as const), stopped]);
      if (outcome === "exited") throw new Error("mongorestore stopped reading its input");
    }
    yield chunk;
  }
}

function buildResult(sent: Map<string, number>, finished: Map<string, CollectionRestoreStats>, skipped: string[], unplacedFailures: number): RestoreResult {
  const result: RestoreResult = { engine: "native", collections: {}, restored: 0, failed: unplacedFailures, skipped };
  // mongorestore's own "finished restoring" counts win; documents it did not report on are
  // counted as sent, which is what a successful exit means.
  for (const [namespace, count] of sent) result.collections[namespace] = finished.get(namespace) ?? { restored: count, failed: 0 };
  for (const [namespace, stats] of finished) result.collections[namespace] ??= stats;
  for (const stats of Object.values(result.collections)) {
    result.restored += stats.restored;
    result.failed += stats.failed;
  }
  return result;
}
