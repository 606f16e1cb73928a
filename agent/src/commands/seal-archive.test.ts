// How `encrypt` paces its memory: the resident-set checks (a read of /proc/self/stat each) are
// spent only where the collector has garbage to reclaim.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Binary } from "bson";
import { generateMasterKey } from "../archive/index.ts";
import { collectBytes, toBson } from "../dump/mongodump-archive/test-support.ts";
import type { ArchiveWriteItem } from "../dump/mongodump-archive/types.ts";
import { writeMongodumpArchive } from "../dump/mongodump-archive/write-archive.ts";
import type { CliIo } from "./context.ts";
import { createOutput, openInput } from "./files.ts";
import { sealArchive } from "./seal-archive.ts";

const dir = mkdtempSync(join(tmpdir(), "dbvault-seal-archive-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// 6 MiB of 64 KiB documents: six pacer checks' worth of input.
const DOCUMENTS = 96;
async function writeArchiveFile(): Promise<string> {
  async function* items(): AsyncGenerator<ArchiveWriteItem> {
    for (let i = 0; i < DOCUMENTS; i++) {
      yield { kind: "document", namespace: "shop.orders", bytes: toBson({ _id: i, payload: new Binary(new Uint8Array(64 * 1024).fill(i)) }) };
    }
  }
  const prelude = { header: { serverVersion: "7.0.0" }, collections: [{ db: "shop", collection: "orders", type: "collection" as const }] };
  const path = join(dir, "shop.archive");
  writeFileSync(path, await collectBytes(writeMongodumpArchive(prelude, items())));
  return path;
}

// Counts the pacer's resident-set reads while `run` runs.
async function countRssReads(run: () => Promise<unknown>): Promise<number> {
  const rss = process.memoryUsage.rss;
  let reads = 0;
  process.memoryUsage.rss = () => {
    reads++;
    return rss();
  };
  try {
    await run();
  } finally {
    process.memoryUsage.rss = rss;
  }
  return reads;
}

const io = {} as CliIo; // files only: no stdin or stdout involved

test("sealing an uncompressed archive into a file does not check memory once per MiB", async () => {
  const path = await writeArchiveFile();
  const input = await openInput(path, io);
  const output = await createOutput(join(dir, "out.dbv"), io, true);
  let documents = 0;
  const reads = await countRssReads(async () => {
    const sealed = await sealArchive({
      input,
      write: (buffers) => output.write(buffers),
      masterKey: generateMasterKey(),
      compression: "none",
      onGzip: () => {},
    });
    documents = sealed.documents;
  });
  input.close();
  await output.commit();
  expect(documents).toBe(DOCUMENTS);
  // Once when the pacer starts; nothing sealed into a file is left for the collector.
  expect(reads).toBeLessThanOrEqual(1);
});

test("frames the output still holds (stdout) are still paced", async () => {
  const path = await writeArchiveFile();
  const input = await openInput(path, io);
  const reads = await countRssReads(() => sealArchive({ input, write: async () => {}, masterKey: generateMasterKey(), compression: "none", onGzip: () => {} }));
  input.close();
  expect(reads).toBeGreaterThanOrEqual(5);
});
