import { describe, expect, test } from "bun:test";
import { DEFAULT_WRITE_LIMITS, splitIntoCommands, type WriteLimits } from "./write-limits.ts";

const documents = (count: number, bytes: number, tag = 0) => Array.from({ length: count }, (_, i) => new Uint8Array(bytes).fill((i + tag) % 256));
const sum = (list: Uint8Array[]) => list.reduce((total, document) => total + document.length, 0);

describe("splitIntoCommands", () => {
  test("1,200 documents of 60 KB (72 MB) go in two commands under 48,000,000 bytes, in order", () => {
    const all = documents(1200, 60_000);
    const commands = splitIntoCommands(all, DEFAULT_WRITE_LIMITS);
    expect(commands.length).toBe(2);
    for (const command of commands) expect(sum(command)).toBeLessThan(48_000_000 - 1024);
    expect(commands.flat()).toEqual(all);
  });

  test("documents near 16 MiB go two to a command", () => {
    const all = documents(5, 16 * 1024 * 1024 - 100);
    expect(splitIntoCommands(all, DEFAULT_WRITE_LIMITS).map((command) => command.length)).toEqual([2, 2, 1]);
  });

  test("follows the server's own limits: a smaller message size and batch count", () => {
    const limits: WriteLimits = { maxMessageBytes: 100_000, maxDocumentBytes: 50_000, maxBatchDocuments: 3 };
    expect(splitIntoCommands(documents(7, 10), limits).map((command) => command.length)).toEqual([3, 3, 1]);
    const commands = splitIntoCommands(documents(10, 20_000), limits);
    for (const command of commands) expect(sum(command)).toBeLessThanOrEqual(100_000);
    expect(commands.flat().length).toBe(10);
  });

  test("a document larger than the server stores goes alone, so its refusal is its own", () => {
    const limits: WriteLimits = { maxMessageBytes: 1_000_000, maxDocumentBytes: 1000, maxBatchDocuments: 100 };
    const all = [...documents(2, 10), ...documents(1, 5000, 7), ...documents(2, 10, 9)];
    expect(splitIntoCommands(all, limits).map((command) => command.map((document) => document.length))).toEqual([[10, 10], [5000], [10, 10]]);
  });

  test("nothing to insert gives no command", () => {
    expect(splitIntoCommands([], DEFAULT_WRITE_LIMITS)).toEqual([]);
  });
});
