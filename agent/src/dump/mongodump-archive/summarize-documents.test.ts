// A summary can hand over the documents of chosen namespaces (a backup's oplog window) while the
// others are only checked in place: verification finds what the window touched in its one read.
import { describe, expect, test } from "bun:test";
import { BSON } from "bson";
import { summarizeArchive } from "./summarize-archive.ts";
import { chunkBytes } from "./test-support.ts";
import { writeMongodumpArchive } from "./write-archive.ts";

async function archive(): Promise<Uint8Array> {
  const prelude = {
    collections: [
      { db: "shop", collection: "orders" },
      { db: "", collection: "oplog" },
    ],
  };
  const items = [
    ...Array.from({ length: 50 }, (_, index) => ({
      kind: "document" as const,
      namespace: "shop.orders",
      bytes: BSON.serialize({ _id: index, pad: "x".repeat(index * 7) }),
    })),
    ...Array.from({ length: 3 }, (_, index) => ({
      kind: "document" as const,
      namespace: ".oplog",
      bytes: BSON.serialize({ op: "i", ns: "shop.orders", o: { _id: 100 + index } }),
    })),
  ];
  const chunks: Uint8Array[] = [];
  for await (const chunk of writeMongodumpArchive(prelude, items)) chunks.push(chunk);
  return Buffer.concat(chunks);
}

describe("summarizeArchive with documentsOf", () => {
  for (const size of [7, 64, 1 << 20])
    test(`hands over only the chosen namespace's documents, exactly (chunks of ${size} bytes)`, async () => {
      const seen: { namespace: string; id: unknown }[] = [];
      const summary = await summarizeArchive(chunkBytes(await archive(), size), {
        documentsOf: new Set([".oplog"]),
        onDocument: (namespace, bytes) => seen.push({ namespace, id: (BSON.deserialize(bytes).o as { _id: unknown })._id }),
      });
      expect(seen).toEqual([100, 101, 102].map((id) => ({ namespace: ".oplog", id })));
      expect(summary.namespaces.map((entry) => [entry.namespace, entry.documentCount])).toEqual([
        ["shop.orders", 50],
        [".oplog", 3],
      ]);
    });
});
