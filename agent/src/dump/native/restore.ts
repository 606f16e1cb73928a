// Restoring with MongoDB's own mongorestore: `--archive --drop` reads the archive from stdin.
// The bytes pass through the agent's archive reader on their way, which counts documents for
// progress and checks each namespace's CRC; a damaged stream kills mongorestore instead of
// ending its input normally.
import { once } from "node:events";
import type { Writable } from "node:stream";
import type { ArchivePrelude } from "../archive-prelude.ts";
import { removeUriDatabase } from "../connection-string.ts";
import { DumpError, throwIfAborted } from "../errors.ts";
import { type CollectionMetadata, readMongodumpArchive } from "../mongodump-archive/index.ts";
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
}

/** Restores through mongorestore. Throws DumpError "tool-failed" before it touched anything, "restore-incomplete" after, "aborted". */
export async function restoreWithTool(request: NativeRestoreRequest): Promise<RestoreResult> {
  const { uri, plan, tracker, signal, prelude } = request;
  const config = await writeToolConfig(removeUriDatabase(uri));
  const finished = new Map<string, CollectionRestoreStats>();
  // Namespaces mongorestore began replacing (it drops each before writing it), in order.
  const reached = new Set<string>();
  const tool = startTool({
    name: "mongorestore",
    path: request.toolPath,
    args: buildArguments(config.path, plan),
    uri,
    stdin: "pipe",
    stdout: "ignore",
    signal,
    onLine(line) {
      if (line.kind === "restore-started" || line.kind === "restore-progress") reached.add(line.namespace);
      if (line.kind === "restore-finished") finished.set(line.namespace, { restored: line.restored, failed: line.failed });
    },
  });
  const stdin = tool.child.stdin as Writable;
  stdin.on("error", () => undefined); // EPIPE when mongorestore stops early; its exit code explains.
  const sent = new Map<string, number>();
  const skipped: string[] = [];
  try {
    const targets = new Map<string, string>();
    for await (const event of readMongodumpArchive(forwardTo(prelude.replay, stdin, tool.exited))) {
      if (event.kind === "collection") {
        const target = plan.targetOf(event.metadata);
        if (target === undefined) skipped.push(event.metadata.namespace);
        else for (const namespace of dataNamespaces(event.metadata)) targets.set(namespace, target);
      } else if (event.kind === "document") {
        const target = targets.get(event.namespace);
        if (target === undefined) continue;
        sent.set(target, (sent.get(target) ?? 0) + 1);
        tracker.add(1, target);
      } else if (event.kind === "namespace-end") {
        const target = targets.get(event.namespace);
        if (target !== undefined && !sent.has(target)) sent.set(target, 0);
      }
      throwIfAborted(signal);
    }
    stdin.end();
    const code = await tool.exited;
    throwIfAborted(signal);
    if (code !== 0) throw new DumpError("tool-failed", tool.describeFailure(code));
    return buildResult(sent, finished, skipped);
  } catch (error) {
    tool.stop();
    const code = await tool.exited.catch(() => null);
    let failure = error;
    // mongorestore exiting first breaks its stdin; its own message says why.
    if (!(error instanceof DumpError) && code !== null && code !== 0) {
      failure = new DumpError("tool-failed", tool.describeFailure(code), { cause: error });
    }
    if (reached.size === 0) throw failure;
    const reason = failure instanceof Error ? failure.message : String(failure);
    throw new DumpError("restore-incomplete", `the restore stopped after mongorestore had started replacing collections: ${reason} (${describeReached(reached, finished)})`, {
      cause: failure,
      stats: buildResult(sent, finished, skipped),
      hint: "collections mongorestore had reached may hold partial data; the others are unchanged",
    });
  } finally {
    tool.stop();
    await config.dispose();
  }
}

/** "replaced: a, b; partly restored: c": what the user's database now holds from this restore. */
function describeReached(reached: Set<string>, finished: Map<string, CollectionRestoreStats>): string {
  const whole = [...reached].filter((namespace) => finished.get(namespace)?.failed === 0);
  const partial = [...reached].filter((namespace) => !whole.includes(namespace));
  return [whole.length > 0 ? `replaced: ${whole.join(", ")}` : "", partial.length > 0 ? `partly restored: ${partial.join(", ")}` : ""].filter(Boolean).join("; ");
}

function buildArguments(configPath: string, plan: RestorePlan): string[] {
  const args = [`--config=${configPath}`, "--archive", "--drop"];
  if (plan.onlyDatabase !== undefined) args.push(`--nsInclude=${escapePattern(plan.onlyDatabase)}.*`);
  if (plan.rename) {
    const from = `${escapePattern(plan.rename.from)}.*`;
    args.push(`--nsInclude=${from}`, `--nsFrom=${from}`, `--nsTo=${escapePattern(plan.rename.to)}.*`);
  }
  return args;
}

// mongorestore namespace patterns: "*" is a wildcard and "\" escapes.
function escapePattern(name: string): string {
  return name.replace(/[\\*]/g, (character) => `\\${character}`);
}

function dataNamespaces(metadata: CollectionMetadata): string[] {
  const own = metadata.namespace;
  return metadata.type === "timeseries" ? [own, `${metadata.db}.system.buckets.${metadata.collection}`] : [own];
}

/** Passes every chunk to mongorestore (waiting while its pipe is full) before the reader sees it. */
async function* forwardTo(
  source: AsyncIterable<Uint8Array>,
  stdin: Writable,
  exited: Promise<number | null>,
): AsyncGenerator<Uint8Array> {
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

function buildResult(
  sent: Map<string, number>,
  finished: Map<string, CollectionRestoreStats>,
  skipped: string[],
): RestoreResult {
  const result: RestoreResult = { engine: "native", collections: {}, restored: 0, failed: 0, skipped };
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
