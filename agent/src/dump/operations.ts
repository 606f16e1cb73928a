// dumpDatabase and restoreDatabase: pick the engine (native tools or built-in), run it with
// progress, and give back what was dumped or restored. The plain mongodump archive goes in and
// out here; encrypted.ts wraps both in the .enc.dbvault pipeline.
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { readArchivePrelude, type ArchivePrelude } from "./archive-prelude.ts";
import { dumpWithDriver } from "./builtin/dump.ts";
import { finishInterruptedCopies } from "./builtin/interrupted-copies.ts";
import { pointInTimeDatabase, restoreWithDriver } from "./builtin/restore.ts";
import { countBytes, createArchiveSink, endWritable, toNodeWritable } from "./byte-streams.ts";
import { readUriDatabase, withPrimaryReadPreference } from "./connection-string.ts";
import { abortedError, DumpError, throwIfAborted } from "./errors.ts";
import { dumpWithTool } from "./native/dump.ts";
import { chooseEngine, type EngineChoice } from "./native/find-tools.ts";
import { restoreWithTool } from "./native/restore.ts";
import { findMongorestoreMisfit } from "./native/server-fit.ts";
import { createMemoryPacer, DUMP_ALLOWED_GROWTH_BYTES } from "../archive/memory-pacer.ts";
import { ProgressTracker } from "./progress-tracker.ts";
import { planRestore, type RestorePlan } from "./restore-plan.ts";
import type { Consistency, DumpOptions, DumpResult, RestoreOptions, RestoreResult } from "./types.ts";

/**
 * Dumps a database (or all of them) as a mongodump archive into `output`, ending it on success.
 * Uses mongodump when available (see ToolsConfig), the driver otherwise. Throws DumpError
 * ("connect-failed", "database-error", "tool-failed", "tool-unavailable", "unsupported",
 * "aborted") or the output's own error; `output` is destroyed on failure.
 */
export async function dumpDatabase(options: DumpOptions): Promise<DumpResult> {
  throwIfAborted(options.signal);
  const output = toNodeWritable(options.output);
  const database = options.database ?? readUriDatabase(options.uri);
  let choice;
  try {
    choice = await chooseEngine("mongodump", options.tools, options.onNotice);
    if (choice.engine === "native" && options.usersAndRoles === false && (database === undefined || database === "admin"))
      choice = avoidMongodumpUsers(options);
  } catch (error) {
    output.destroy(error as Error);
    throw error;
  }
  if (options.excludeCollections?.length && database === undefined) {
    const error = new DumpError("unsupported", "collections can be excluded only from a dump of one database", {
      hint: "name the database in the connection string",
    });
    output.destroy(error);
    throw error;
  }
  const tracker = new ProgressTracker(options.onProgress, options.progressIntervalMs);
  const counts: Record<string, number> = {};
  const request = {
    uri: options.uri,
    database,
    signal: options.signal,
    tracker,
    counts,
    usersAndRoles: options.usersAndRoles !== false,
    excludeCollections: options.excludeCollections ?? [],
    onNotice: options.onNotice,
  };
  let archiveBytes = 0;
  let consistency: Consistency | undefined;
  // The built-in engine leaves less garbage per byte than mongodump's pipe and takes a wider margin.
  const pacer = createMemoryPacer(undefined, choice.engine === "builtin" ? DUMP_ALLOWED_GROWTH_BYTES : undefined);
  const onBytes = (count: number) => {
    archiveBytes += count;
    pacer.note(count);
  };
  try {
    if (choice.engine === "native") {
      const native = { ...request, toolPath: choice.path, onConsistency: (found: Consistency) => (consistency = found) };
      await pipeline(Readable.from(countBytes(dumpWithTool(native), onBytes)), output);
    } else {
      try {
        consistency = await dumpWithDriver(request, createArchiveSink(output, onBytes));
        await endWritable(output);
      } catch (error) {
        output.destroy(error as Error);
        throw error;
      }
    }
  } catch (error) {
    throw options.signal?.aborted ? abortedError(options.signal, error) : error;
  }
  tracker.finish();
  const documents = Object.values(counts).reduce((sum, count) => sum + count, 0);
  return { engine: choice.engine, collections: counts, documents, archiveBytes, ...(consistency ? { consistency } : {}) };
}

// mongodump puts admin's users and roles in every dump of all databases or of admin, and has no
// option to leave them out; the built-in dumper has.
function avoidMongodumpUsers(options: DumpOptions): EngineChoice {
  if (options.tools?.mode === "native") {
    throw new DumpError("unsupported", "mongodump cannot leave users and roles out of a dump of every database or of admin", {
      hint: 'set tools.mode to "auto" or "builtin" in the config file, or keep users and roles in the backup',
    });
  }
  options.onNotice?.("mongodump cannot leave users and roles out of a dump of every database; using the built-in engine");
  return { engine: "builtin" };
}

// Backups and servers where mongorestore cannot do safely what the built-in engine does
// (native/server-fit.ts): auto mode takes the built-in engine, native mode refuses; both before
// anything is changed.
async function avoidMongorestoreMisfit(choice: EngineChoice, options: RestoreOptions, prelude: ArchivePrelude, plan: RestorePlan): Promise<EngineChoice> {
  const misfit = await findMongorestoreMisfit(options.uri, prelude.collections, plan);
  if (misfit === undefined) return choice;
  if (options.tools?.mode === "native") {
    throw new DumpError("unsupported", misfit, { hint: 'set tools.mode to "auto" or "builtin" in the config file to restore with the built-in engine' });
  }
  options.onNotice?.(`${misfit}; using the built-in engine`);
  return { engine: "builtin" };
}

/**
 * Restores a plain mongodump archive, replacing each collection it holds (drop, recreate with
 * options and indexes, insert). Reads the archive's whole prelude before touching the database.
 * Throws what the input throws, MongodumpArchiveError for a damaged archive, or DumpError
 * ("restore-incomplete" with `stats` once collections were replaced; see docs/restore.md).
 */
export async function restoreDatabase(options: RestoreOptions): Promise<RestoreResult> {
  let consumed = 0;
  const input = countBytes(options.input, (count) => (consumed += count));
  const fraction = options.inputBytes && options.inputBytes > 0 ? () => consumed / options.inputBytes! : undefined;
  return restoreArchive({ ...options, input }, fraction);
}

/** restoreDatabase with the progress fraction supplied by the caller (encrypted.ts counts ciphertext). */
export async function restoreArchive(given: RestoreOptions, readFraction: (() => number | undefined) | undefined): Promise<RestoreResult> {
  // Staging and swaps read back what this restore wrote: only the primary surely holds it, so a
  // secondary read preference (right for dumps) is left out of every connection from here on.
  const options = { ...given, uri: withPrimaryReadPreference(given.uri) };
  let prelude: ArchivePrelude | undefined;
  const pacer = createMemoryPacer();
  try {
    throwIfAborted(options.signal);
    let choice = await chooseEngine("mongorestore", options.tools, options.onNotice);
    // The safety gate: a wrong key, a damaged first chunk or bad metadata fail here, untouched.
    prelude = await readArchivePrelude(countBytes(options.input, (count) => pacer.note(count)));
    const plan = planRestore(prelude.collections, options.database ?? readUriDatabase(options.uri), options.collections, {
      usersAndRoles: options.usersAndRoles,
      collectionsAtMoment: options.pointInTime !== undefined,
      collectionsOfWindow: options.collectionsOfWindow === true,
      sourceDatabase: options.sourceDatabase,
    });
    throwIfAborted(options.signal);
    // Only the built-in engine replays entries up to a bound into staging. Every slice is opened
    // and checked before the database is touched.
    if (options.pointInTime) {
      choice = { engine: "builtin" };
      await options.pointInTime.check(pointInTimeDatabase(plan));
    }
    if (choice.engine === "native") choice = await avoidMongorestoreMisfit(choice, options, prelude, plan);
    const expected = options.expectedNamespaces
      ?.filter((entry) => entry.metadata && plan.targetOf(entry.metadata) !== undefined)
      .reduce((sum, entry) => sum + entry.documentCount, 0);
    const tracker = new ProgressTracker(
      options.onProgress,
      options.progressIntervalMs,
      expected === undefined ? (readFraction ?? (() => undefined)) : undefined,
    );
    if (expected !== undefined) tracker.total = expected;
    // A copy an earlier restore left half done is finished first, so its staging collection
    // (the backup's only complete copy of that target) is never dropped as a leftover.
    await finishInterruptedCopies(options.uri, plan.targetDatabases, options.onNotice);
    throwIfAborted(options.signal);
    const request = { uri: options.uri, prelude, plan, signal: options.signal, tracker, pointInTime: options.pointInTime };
    const result = choice.engine === "native" ? await restoreWithTool({ ...request, toolPath: choice.path }) : await restoreWithDriver(request);
    tracker.finish();
    return result;
  } catch (error) {
    await prelude?.cancel();
    if (options.signal?.aborted && !(error instanceof DumpError)) {
      throw abortedError(options.signal, error);
    }
    throw error;
  }
}
