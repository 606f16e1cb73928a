import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { BSON } from "bson";
import { join } from "node:path";
import { addOplogNamespace } from "./add-oplog.ts";
import { OPLOG_NAMESPACE } from "./format.ts";
import { LastOplogEntryWatcher } from "./last-oplog-entry.ts";
import { readMongodumpArchive } from "./read-archive.ts";
import { FIXTURE_DIR } from "./test-support.ts";

async function oplogDocuments(bytes: Uint8Array): Promise<Uint8Array[]> {
  const found: Uint8Array[] = [];
  for await (const event of readMongodumpArchive([bytes])) if (event.kind === "document" && event.namespace === OPLOG_NAMESPACE) found.push(event.bytes);
  return found;
}

function watch(bytes: Uint8Array, chunkBytes: number): Uint8Array | undefined {
  const watcher = new LastOplogEntryWatcher();
  for (let at = 0; at < bytes.length; at += chunkBytes) watcher.write(bytes.subarray(at, at + chunkBytes));
  return watcher.lastOplogEntry;
}

test("the watcher finds the last oplog entry of a real mongodump --oplog archive, whatever the chunking", async () => {
  const archive = readFileSync(join(FIXTURE_DIR, "dump-w-oplog.archive"));
  const last = (await oplogDocuments(archive)).at(-1)!;
  expect(last).toBeDefined();
  for (const size of [1, 3, 7, 64, 4096, archive.length]) expect(Buffer.from(watch(archive, size)!)).toEqual(Buffer.from(last));
  expect(watch(readFileSync(join(FIXTURE_DIR, "test.bar.archive")), 5)).toBeUndefined();
});

test("an oplog namespace added to an archive (mongodump --db) reads back whole: prelude entry, entries, CRC", async () => {
  const archive = readFileSync(join(FIXTURE_DIR, "test.bar.archive"));
  const entries = [Buffer.from(BSON.serialize({ op: "i", ns: "test.bar", o: { _id: 1 } })), Buffer.from(BSON.serialize({ op: "n", ns: "", o: {} }))];
  async function* window(): AsyncGenerator<Uint8Array[], string, undefined> {
    yield [entries[0]!];
    yield [entries[1]!];
    return "T1";
  }
  const chunks: Uint8Array[] = [];
  // In 3-byte chunks, so the prelude's end is found across chunks.
  const pieces = Array.from({ length: Math.ceil(archive.length / 3) }, (_, i) => archive.subarray(i * 3, i * 3 + 3));
  const added = addOplogNamespace(
    (async function* () {
      yield* pieces;
    })(),
    window,
  );
  let step = await added.next();
  for (; !step.done; step = await added.next()) chunks.push(step.value);
  expect(step.value).toBe("T1");
  const joined = Buffer.concat(chunks);
  const namespaces: string[] = [];
  for await (const event of readMongodumpArchive([joined])) if (event.kind === "collection") namespaces.push(event.metadata.namespace);
  expect(namespaces).toEqual(["test.bar", "admin.system.version", OPLOG_NAMESPACE]);
  expect((await oplogDocuments(joined)).map((bytes) => Buffer.from(bytes))).toEqual(entries);
  expect(Buffer.from(watch(joined, 11)!)).toEqual(entries[1]!);
});
