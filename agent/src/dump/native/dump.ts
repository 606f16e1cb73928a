// Dumping with MongoDB's own mongodump: `--archive` writes the archive to stdout, which is
// streamed on as it comes; progress comes from mongodump's stderr.
import type { Readable } from "node:stream";
import { removeUriDatabase } from "../connection-string.ts";
import { DumpError, throwIfAborted } from "../errors.ts";
import type { ProgressTracker } from "../progress-tracker.ts";
import { startTool } from "./run-tool.ts";
import { writeToolConfig } from "./tool-config.ts";

export interface NativeDumpRequest {
  toolPath: string;
  uri: string;
  database: string | undefined;
  signal: AbortSignal | undefined;
  tracker: ProgressTracker;
  counts: Record<string, number>;
}

/** Yields mongodump's archive output. Throws DumpError "tool-failed" (with mongodump's own reason) or "aborted". */
export async function* dumpWithTool(request: NativeDumpRequest): AsyncGenerator<Uint8Array, void, undefined> {
  const { uri, tracker, counts, signal } = request;
  const config = await writeToolConfig(removeUriDatabase(uri));
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
