// Understanding what mongodump and mongorestore print on stderr (mongo-tools' own formats):
//   2024-05-01T10:00:00.000+0000	writing shop.orders to archive on stdout
//   2024-05-01T10:00:01.000+0000	[############............]  shop.orders  2500/5000  (50.0%)
//   2024-05-01T10:00:01.000+0000	shop.orders  12.5MB            (restoring from an archive: no total)
//   2024-05-01T10:00:02.000+0000	done dumping shop.orders (5000 documents)
//   2024-05-01T10:00:03.000+0000	restoring shop.orders from archive on stdin
//   2024-05-01T10:00:04.000+0000	finished restoring shop.orders (5000 documents, 0 failures)
//   2024-05-01T10:00:04.000+0000	5000 document(s) restored successfully. 0 document(s) failed to restore.
//   2024-05-01T10:00:04.000+0000	Failed: error connecting to host: ...
// Since mongo-tools 100.16.0 names are in backticks (restoring `shop.orders` from `archive on
// stdin`); both forms are read alike (test-data/mongo-tools-logs has real output of each).

export type ToolLine =
  | { kind: "dump-started"; namespace: string }
  | { kind: "dump-progress"; namespace: string; done: number; total: number }
  | { kind: "dump-finished"; namespace: string; documents: number }
  | { kind: "restore-started"; namespace: string }
  | { kind: "restore-progress"; namespace: string }
  | { kind: "restore-finished"; namespace: string; restored: number; failed: number }
  | { kind: "failed"; message: string };

const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)?\s+/;

/** Removes the timestamp the tools put before each line; never throws. */
export function stripTimestamp(line: string): string {
  return line.replace(TIMESTAMP, "").trim();
}

/** Unwraps the backticks mongo-tools 100.16.0+ put around namespaces and sources; never throws. */
function unquoteNames(line: string): string {
  return line.replace(/`([^`]*)`/g, "$1");
}

/** Parses one stderr line of mongodump or mongorestore; undefined for lines that say nothing useful. Never throws. */
export function parseToolLine(rawLine: string): ToolLine | undefined {
  const stripped = stripTimestamp(rawLine);
  // The tool's own reason, as it wrote it (its backticks quote values, not only names).
  const failure = /^Failed: (.+)$/.exec(stripped);
  if (failure) return { kind: "failed", message: failure[1]! };
  const line = unquoteNames(stripped);
  let match: RegExpExecArray | null;
  if ((match = /^\[[#.]*\]\s+(.+?)\s+(\d+)\/(\d+)\s+\(\s*[\d.]+%\)$/.exec(line))) {
    return { kind: "dump-progress", namespace: match[1]!, done: Number(match[2]), total: Number(match[3]) };
  }
  if ((match = /^\[[#.]*\]\s+(.+?)\s+[\d.]+\s?[KMGTP]?i?B\/[\d.]+\s?[KMGTP]?i?B\s+\(\s*[\d.]+%\)$/.exec(line))) {
    return { kind: "restore-progress", namespace: match[1]! };
  }
  // Restoring from an archive, whose sizes mongorestore cannot know in advance: no bar, no total.
  if ((match = /^(\S+\.\S.*?) {2}[\d.]+\s?[KMGTP]?i?B$/.exec(line))) return { kind: "restore-progress", namespace: match[1]! };
  // `to archive on stdout` as the agent runs it; `to "archive /path"` for a named archive file.
  if ((match = /^writing (.+) to "?(?:archive|stdout)/.exec(line))) return { kind: "dump-started", namespace: match[1]! };
  if ((match = /^done dumping (.+) \((\d+) documents?\)$/.exec(line))) {
    return { kind: "dump-finished", namespace: match[1]!, documents: Number(match[2]) };
  }
  if ((match = /^restoring (.+) from "?(?:archive|stdin)/.exec(line))) return { kind: "restore-started", namespace: match[1]! };
  if ((match = /^finished restoring (.+) \((\d+) documents?, (\d+) failures?\)$/.exec(line))) {
    return { kind: "restore-finished", namespace: match[1]!, restored: Number(match[2]), failed: Number(match[3]) };
  }
  return undefined;
}

/** Calls `onLine` for every complete line of a byte stream (\n, \r\n or \r ends a line); never throws. */
export async function forEachLine(stream: AsyncIterable<Uint8Array | string>, onLine: (line: string) => void): Promise<void> {
  const decoder = new TextDecoder();
  let pending = "";
  try {
    for await (const chunk of stream) {
      pending += typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true });
      const lines = pending.split(/\r\n|\n|\r/);
      pending = lines.pop()!;
      // A tool printing without end of line must not grow this buffer without bound.
      if (pending.length > 64 * 1024) pending = pending.slice(-64 * 1024);
      for (const line of lines) if (line.trim() !== "") onLine(line);
    }
  } catch {
    // The stream failing (the tool was killed) ends the lines; the exit code tells the story.
  }
  if (pending.trim() !== "") onLine(pending);
}
