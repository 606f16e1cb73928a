// Understanding what mongodump and mongorestore print on stderr (mongo-tools' own formats):
//   2024-05-01T10:00:00.000+0000	writing shop.orders to archive on stdout
//   2024-05-01T10:00:01.000+0000	[############............]  shop.orders  2500/5000  (50.0%)
//   2024-05-01T10:00:01.000+0000	shop.orders  12.5MB            (restoring from an archive: no total)
//   2024-05-01T10:00:02.000+0000	done dumping shop.orders (5000 documents)
//   2024-05-01T10:00:03.000+0000	restoring shop.orders from archive on stdin
//   2024-05-01T10:00:04.000+0000	finished restoring shop.orders (5000 documents, 0 failures)
//   2024-05-01T10:00:04.000+0000	5000 document(s) restored successfully. 0 document(s) failed to restore.
//   2024-05-01T10:00:04.000+0000	Failed: error connecting to host: ...
// Since mongo-tools 100.16.0 names are quoted with Go's %#q: in backticks (restoring `shop.orders`
// from `archive on stdin`), or, when a name holds a backtick or a character that cannot stand in
// backticks (a newline, a control character), in double quotes with Go's escapes
// ("shop.new\nline"). Plain, backticked and double-quoted names are read alike, each back to its
// exact name (test-data/mongo-tools-logs has real output of each). Progress lines name plainly.

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

// A name as %#q prints it: `in backticks`, "double-quoted with escapes", or (before 100.16) plain.
const NAME = String.raw`(\`[^\`]*\`|"(?:[^"\\]|\\.)*"|.+?)`;
// Where the tool reads or writes: `archive on stdout`, "archive `/path`", or plain before 100.16.
const ARCHIVE = String.raw`[\`"]?(?:archive|stdout|stdin)`;
const LINE_PATTERNS = {
  dumpStarted: new RegExp(`^writing ${NAME} to ${ARCHIVE}`),
  dumpFinished: new RegExp(`^done dumping ${NAME} \\((\\d+) documents?\\)$`),
  restoreStarted: new RegExp(`^restoring ${NAME} from ${ARCHIVE}`),
  restoreFinished: new RegExp(`^finished restoring ${NAME} \\((\\d+) documents?, (\\d+) failures?\\)$`),
};

/** Parses one stderr line of mongodump or mongorestore; undefined for lines that say nothing useful. Never throws. */
export function parseToolLine(rawLine: string): ToolLine | undefined {
  const line = stripTimestamp(rawLine);
  // The tool's own reason, as it wrote it (its quotes quote values, not only names).
  const failure = /^Failed: (.+)$/.exec(line);
  if (failure) return { kind: "failed", message: failure[1]! };
  let match: RegExpExecArray | null;
  if ((match = /^\[[#.]*\]\s+(.+?)\s+(\d+)\/(\d+)\s+\(\s*[\d.]+%\)$/.exec(line))) {
    return { kind: "dump-progress", namespace: match[1]!, done: Number(match[2]), total: Number(match[3]) };
  }
  if ((match = /^\[[#.]*\]\s+(.+?)\s+[\d.]+\s?[KMGTP]?i?B\/[\d.]+\s?[KMGTP]?i?B\s+\(\s*[\d.]+%\)$/.exec(line))) {
    return { kind: "restore-progress", namespace: match[1]! };
  }
  // Restoring from an archive, whose sizes mongorestore cannot know in advance: no bar, no total.
  if ((match = /^(\S+\.\S.*?) {2}[\d.]+\s?[KMGTP]?i?B$/.exec(line))) return { kind: "restore-progress", namespace: match[1]! };
  if ((match = LINE_PATTERNS.dumpStarted.exec(line))) return { kind: "dump-started", namespace: unquoteName(match[1]!) };
  if ((match = LINE_PATTERNS.dumpFinished.exec(line))) {
    return { kind: "dump-finished", namespace: unquoteName(match[1]!), documents: Number(match[2]) };
  }
  if ((match = LINE_PATTERNS.restoreStarted.exec(line))) return { kind: "restore-started", namespace: unquoteName(match[1]!) };
  if ((match = LINE_PATTERNS.restoreFinished.exec(line))) {
    return { kind: "restore-finished", namespace: unquoteName(match[1]!), restored: Number(match[2]), failed: Number(match[3]) };
  }
  return undefined;
}

/** The name a NAME match stands for: backticks removed, Go's double-quoted escapes decoded; never throws. */
function unquoteName(token: string): string {
  if (token.length >= 2 && token.startsWith("`") && token.endsWith("`")) return token.slice(1, -1);
  if (token.length >= 2 && token.startsWith('"') && token.endsWith('"')) return decodeGoString(token.slice(1, -1));
  return token;
}

const SIMPLE_ESCAPES: Record<string, string> = { a: "\x07", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t", v: "\v", "\\": "\\", '"': '"', "'": "'" };

/**
 * Decodes the inside of a Go double-quoted string (strconv.Quote): \n and the other single-letter
 * escapes, \xHH and \ooo bytes, \uHHHH and \UHHHHHHHH code points. Bytes are decoded as UTF-8,
 * as Go strings hold them. Never throws: an escape it does not know stays as written.
 */
export function decodeGoString(inner: string): string {
  const encoder = new TextEncoder();
  const bytes: number[] = [];
  const pushText = (text: string) => bytes.push(...encoder.encode(text));
  const goEscape = /\\(?:([abfnrtv\\"'])|x([0-9a-fA-F]{2})|([0-7]{3})|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8}))/g;
  let last = 0;
  for (let match = goEscape.exec(inner); match !== null; match = goEscape.exec(inner)) {
    pushText(inner.slice(last, match.index));
    const [, simple, hex, octal, short, long] = match;
    if (simple !== undefined) pushText(SIMPLE_ESCAPES[simple]!);
    else if (hex !== undefined) bytes.push(parseInt(hex, 16));
    else if (octal !== undefined) bytes.push(parseInt(octal, 8) & 0xff);
    else {
      const codePoint = parseInt((short ?? long)!, 16);
      pushText(codePoint <= 0x10ffff ? String.fromCodePoint(codePoint) : match[0]);
    }
    last = goEscape.lastIndex;
  }
  pushText(inner.slice(last));
  return new TextDecoder().decode(new Uint8Array(bytes));
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
