// Dumping with MongoDB's own mongodump: `--archive` writes the archive to stdout, which is
// streamed on as it comes; progress comes from mongodump's stderr. On a replica set the dump is
// one point in time as the built-in one is: a dump of every database takes `--oplog`; mongodump
// refuses `--oplog` with `--db`, so for one database the agent takes T0 before mongodump starts and
// adds the database's oplog entries up to T1 after its archive (add-oplog.ts).
import type { Readable } from "node:stream";
import { BSON, type MongoClient, Timestamp } from "mongodb";
import { connectClient, describeDriverError } from "../builtin/client.ts";
import { describeOplogTime, type OplogWindow, readOplogWindow, startOplogWindow } from "../builtin/oplog-window.ts";
import { readSrvTxtAuthSource, removeUriDatabase } from "../connection-string.ts";
import { DumpError, throwIfAborted } from "../errors.ts";
import { addOplogNamespace } from "../mongodump-archive/add-oplog.ts";
import { LastOplogEntryWatcher } from "../mongodump-archive/last-oplog-entry.ts";
import type { ProgressTracker } from "../progress-tracker.ts";
import type { Consistency } from "../types.ts";
import { startTool } from "./run-tool.ts";
import { writeToolConfig } from "./tool-config.ts";

export interface NativeDumpRequest {
  toolPath: string;
  uri: string;
  database: string | undefined;
  signal: AbortSignal | undefined;
  tracker: ProgressTracker;
  counts: Record<string, number>;
  /** Collections of `database` left out (--excludeCollection) and dropped from the oplog window. */
  excludeCollections?: readonly string[];
  /** Hears the moment the archive holds once it is complete (not called when it cannot be told). */
  onConsistency?: (consistency: Consistency) => void;
  /** Told when the server's kind could not be read (the dump then goes on without a point in time). */
  onNotice?: (message: string) => void;
}

/**
 * Yields mongodump's archive output, with the oplog window on a replica set. Throws DumpError
 * "tool-failed" (with mongodump's own reason), "database-error" (reading the oplog) or "aborted".
 */
export async function* dumpWithTool(request: NativeDumpRequest): AsyncGenerator<Uint8Array, void, undefined> {
  const probe = await probeOplog(request);
  try {
    const window = probe?.window;
    if (window?.kind === "standalone") request.onConsistency?.({ kind: "standalone" });
    if (window?.kind === "unreadable") request.onNotice?.(window.notice);
    if (window?.kind !== "replica-set") return yield* runMongodump(request, []);
    if (request.database === undefined) return yield* dumpEveryDatabaseWithOplog(request);
    const client = probe!.client;
    const at = yield* addOplogNamespace(runMongodump(request, []), () =>
      readOplogWindow(client, window, request.database, request.uri, request.excludeCollections),
    );
    request.onConsistency?.({ kind: "point-in-time", at });
  } finally {
    await probe?.client.close().catch(() => undefined);
  }
}

// mongodump --oplog ends its window at the newest entry when the collections are read, and writes
// the window last: the archive's last oplog document is T1.
async function* dumpEveryDatabaseWithOplog(request: NativeDumpRequest): AsyncGenerator<Uint8Array, void, undefined> {
  const watcher = new LastOplogEntryWatcher();
  for await (const chunk of runMongodump(request, ["--oplog"])) {
    watcher.write(chunk);
    yield chunk;
  }
  const ts = watcher.lastOplogEntry === undefined ? undefined : BSON.deserialize(watcher.lastOplogEntry).ts;
  if (ts instanceof Timestamp) request.onConsistency?.({ kind: "point-in-time", at: describeOplogTime(ts) });
}

// Whether the server keeps an oplog, and T0 when it does. A server the driver cannot reach is left
// to mongodump (its own words say why), so that failing here changes no native dump's outcome.
async function probeOplog(request: NativeDumpRequest): Promise<{ client: MongoClient; window: OplogWindow } | undefined> {
  let client: MongoClient;
  try {
    client = await connectClient(request.uri, 5_000);
  } catch (error) {
    request.onNotice?.(
      `could not read whether the server keeps an oplog (${describeDriverError(error, request.uri)}); the backup is not marked point-in-time consistent`,
    );
    return undefined;
  }
  try {
    return { client, window: await startOplogWindow(client, request.uri) };
  } catch (error) {
    await client.close().catch(() => undefined);
    throw error;
  }
}

/** mongodump's archive output, with `extraArgs` (after --archive and --db). */
async function* runMongodump(request: NativeDumpRequest, extraArgs: string[]): AsyncGenerator<Uint8Array, void, undefined> {
  const { uri, tracker, counts, signal } = request;
  const config = await writeToolConfig(removeUriDatabase(uri, await readSrvTxtAuthSource(uri)));
  const perCollection = new Map<string, { done: number; total: number }>();
  const report = (namespace: string) => {
    let done = 0;
    let total = 0;
    for (const entry of perCollection.values()) {
      done += entry.done;
      total += entry.total;
    }
    tracker.update(done, total, namespace);
  };
  const args = [`--config=${config.path}`, "--archive"];
  if (request.database !== undefined) args.push(`--db=${request.database}`);
  for (const collection of request.excludeCollections ?? []) args.push(`--excludeCollection=${collection}`);
  args.push(...extraArgs);
  const tool = startTool({
    name: "mongodump",
    path: request.toolPath,
    args,
    uri,
    stdin: "ignore",
    stdout: "pipe",
    signal,
    onLine(line) {
      if (line.kind === "dump-started") {
        if (!perCollection.has(line.namespace)) perCollection.set(line.namespace, { done: 0, total: 0 });
        report(line.namespace);
      } else if (line.kind === "dump-progress") {
        perCollection.set(line.namespace, { done: line.done, total: line.total });
        report(line.namespace);
      } else if (line.kind === "dump-finished") {
        perCollection.set(line.namespace, { done: line.documents, total: line.documents });
        counts[line.namespace] = line.documents;
        report(line.namespace);
      }
    },
  });
  try {
    for await (const chunk of tool.child.stdout as Readable) {
      throwIfAborted(signal);
      yield chunk as Uint8Array;
    }
    const code = await tool.exited;
    throwIfAborted(signal);
    if (code !== 0) {
      throw new DumpError("tool-failed", tool.describeFailure(code), {
        hint: 'the message above is mongodump\'s own; fix its cause, or set tools.mode to "builtin" in the config file',
      });
    }
  } finally {
    tool.stop();
    await tool.exited.catch(() => undefined);
    await config.dispose();
  }
}
