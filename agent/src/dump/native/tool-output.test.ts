// What real mongodump and mongorestore print (agent/test-data/mongo-tools-logs, captured from
// mongo-tools 100.15.0, namespaces plain, and 100.18.0, namespaces in backticks or Go-quoted),
// parsed the same.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { QUOTED_NAMES } from "../../../test-data/mongo-tools-logs/quoted-names.ts";
import { decodeGoString, parseToolLine, type ToolLine } from "./tool-output";

const LOGS = join(import.meta.dir, "../../../test-data/mongo-tools-logs");
const parseLog = (name: string) =>
  readFileSync(join(LOGS, name), "utf8")
    .split("\n")
    .map(parseToolLine)
    .filter((line): line is ToolLine => line !== undefined);
const ofKind = <K extends ToolLine["kind"]>(lines: ToolLine[], kind: K) => lines.filter((line): line is Extract<ToolLine, { kind: K }> => line.kind === kind);

describe.each(["100.15.0", "100.18.0"])("mongo-tools %s", (version) => {
  test("a restore of 43,037 documents in 11 collections counts exactly that, with plain namespaces", () => {
    const lines = parseLog(`mongorestore-${version}-rename-ok.log`);
    const finished = ofKind(lines, "restore-finished");
    expect(finished).toHaveLength(11);
    expect(finished.reduce((total, line) => total + line.restored, 0)).toBe(43_037);
    expect(finished.every((line) => line.failed === 0)).toBe(true);
    for (const line of [...finished, ...ofKind(lines, "restore-started")]) expect(line.namespace).toMatch(/^r\d+\.[^`]+$/);
    expect(new Set(ofKind(lines, "restore-started").map((line) => line.namespace))).toEqual(new Set(finished.map((line) => line.namespace)));
    expect(finished.map((line) => line.namespace)).toContain(finished.find((line) => line.namespace.endsWith("ünïcødé_集合 ✓"))!.namespace);
  });

  test("a failing restore reports the failure and the collections it had reached", () => {
    const lines = parseLog(`mongorestore-${version}-partial-failure.log`);
    expect(ofKind(lines, "failed")).toEqual([{ kind: "failed", message: expect.stringContaining("failed to fix document with empty timestamp") }]);
    const types = ofKind(lines, "restore-finished").find((line) => line.namespace.endsWith(".types"));
    expect(types).toMatchObject({ restored: 0, failed: 1 });
    expect(ofKind(lines, "restore-started").length).toBeGreaterThanOrEqual(2);
  });

  test("a restore cut short by a truncated archive reports mongorestore's reason and what it had reached", () => {
    const lines = parseLog(`mongorestore-${version}-truncated-input.log`);
    expect(ofKind(lines, "failed")).toEqual([
      {
        kind: "failed",
        message: expect.stringMatching(/\.people: error restoring from archive on stdin: reading bson input: error demultiplexing archive; archive io error$/),
      },
    ]);
    expect(ofKind(lines, "restore-finished").find((line) => line.namespace.endsWith(".people"))).toMatchObject({ restored: 896, failed: 0 });
    for (const line of ofKind(lines, "restore-started")) expect(line.namespace).toMatch(/^t\d+\.[^`]+$/);
  });

  test("a verbose dump (-v) counts the same 43,037 documents in 11 collections as a plain one", () => {
    const count = (name: string) => {
      const done = ofKind(parseLog(name), "dump-finished");
      return { collections: done.length, documents: done.reduce((total, line) => total + line.documents, 0) };
    };
    expect(count(`mongodump-${version}-db-archive-stdout-v.log`)).toEqual({ collections: 11, documents: 43_037 });
    expect(count(`mongodump-${version}-db-archive-stdout.log`)).toEqual({ collections: 11, documents: 43_037 });
  });

  test("a dump names every collection it wrote, with document counts", () => {
    const lines = parseLog(`mongodump-${version}-db-archive-stdout.log`);
    const done = ofKind(lines, "dump-finished");
    expect(done.find((line) => line.namespace === "srcz.people")?.documents).toBe(3000);
    for (const line of [...done, ...ofKind(lines, "dump-started")]) expect(line.namespace).toMatch(/^srcz\.[^`]+$/);
    expect(new Set(ofKind(lines, "dump-started").map((line) => line.namespace))).toEqual(new Set(done.map((line) => line.namespace)));
  });
});

describe("names mongo-tools 100.18.0 prints Go-quoted (a backtick, a newline, control characters)", () => {
  const staged = (name: string) => `quoted.${name}.dbvault-restore-abc123`;

  test("a restore counts each collection once, under its exact staging name", () => {
    const lines = parseLog("mongorestore-100.18.0-quoted-names.log");
    const finished = ofKind(lines, "restore-finished");
    expect(finished.map((line) => line.namespace).sort()).toEqual(QUOTED_NAMES.map(staged).sort());
    expect(finished.every((line) => line.restored === 2 && line.failed === 0)).toBe(true);
    expect(
      ofKind(lines, "restore-started")
        .map((line) => line.namespace)
        .sort(),
    ).toEqual(QUOTED_NAMES.map(staged).sort());
  });

  test("a dump names each collection it wrote exactly", () => {
    const lines = parseLog("mongodump-100.18.0-quoted-names.log");
    expect(
      ofKind(lines, "dump-finished")
        .map((line) => line.namespace)
        .sort(),
    ).toEqual(QUOTED_NAMES.map((name) => `quoted.${name}`).sort());
    expect(
      ofKind(lines, "dump-started")
        .map((line) => line.namespace)
        .sort(),
    ).toEqual(QUOTED_NAMES.map((name) => `quoted.${name}`).sort());
  });

  test("Go's escapes decode as strconv.Unquote does", () => {
    expect(decodeGoString(String.raw`a\\x41\x41\101\u00e9\U0001F600\t\"`)).toBe('a\\x41AAé😀\t"');
    expect(decodeGoString(String.raw`\xc3\xa9`)).toBe("é");
    expect(decodeGoString(String.raw`\q stays`)).toBe(String.raw`\q stays`);
  });
});

// Every real log of a restore that succeeded (no "Failed:" line): its "finished restoring" lines
// add up to mongorestore's own closing total, each namespace once and unquoted, which is what
// the agent reports as restored.
const succeededRestoreLogs = readdirSync(LOGS).filter(
  (name) => name.startsWith("mongorestore-") && name.endsWith(".log") && ofKind(parseLog(name), "failed").length === 0,
);
test.each(succeededRestoreLogs)("%s: the finished lines add up to mongorestore's total, each collection once", (name) => {
  const total = /(\d+) document\(s\) restored successfully/.exec(readFileSync(join(LOGS, name), "utf8"));
  const finished = ofKind(parseLog(name), "restore-finished");
  expect(finished.reduce((sum, line) => sum + line.restored, 0)).toBe(Number(total?.[1]));
  expect(new Set(finished.map((line) => line.namespace)).size).toBe(finished.length);
  for (const line of finished) expect(line.namespace).not.toMatch(/^["`]|["`]$/);
});

test("restore progress from an archive (a size, no bar, no total) and named archive files are recognised", () => {
  // Captured from mongorestore 100.18.0 restoring --archive=/tmp/src.archive.
  expect(parseToolLine("2026-11-25T09:29:48.067+0000\tsrc.large  0B")).toEqual({ kind: "restore-progress", namespace: "src.large" });
  expect(parseToolLine("2026-11-25T09:29:51.068+0000\tsrc.with.dots  32.0MB")).toEqual({ kind: "restore-progress", namespace: "src.with.dots" });
  expect(parseToolLine('2026-11-25T09:29:45.112+0000\trestoring `src.large` from "archive `/tmp/src.archive`"')).toEqual({
    kind: "restore-started",
    namespace: "src.large",
  });
  expect(parseToolLine('2026-11-25T09:12:20.109+0000\twriting `src.big` to "archive `/tmp/src.archive`"')).toEqual({
    kind: "dump-started",
    namespace: "src.big",
  });
});

test("lines the parser does not know say nothing (no guessing, no crash)", () => {
  for (const line of [
    "2026-11-24T03:16:56.465+0000\tno indexes to restore for collection `r21903.big`",
    "2026-11-24T03:16:41.889+0000\tpreparing collections to restore from",
    "index: &idx.IndexDocument{Options:bson.M{}}",
    "",
    "garbage ` with ` stray backticks (and parens)",
    "2026-11-24T03:17:01.087+0000\t0 document(s) restored successfully. 1 document(s) failed to restore.",
    "2026-11-24T03:16:38.572+0000\tdumping up to 4 collections in parallel",
    "exit 1",
  ]) {
    expect(parseToolLine(line)).toBeUndefined();
  }
});
