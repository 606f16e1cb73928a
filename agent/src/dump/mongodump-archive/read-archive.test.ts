import { describe, expect, test } from "bun:test";
import { BSON, Decimal128, Int32 } from "bson";
import { createReadStream } from "node:fs";
import { createGunzip } from "node:zlib";
import { readInt32LE } from "./format.ts";
import { readMongodumpArchive } from "./read-archive.ts";
import { summarizeArchive } from "./summarize-archive.ts";
import {
  catchArchiveError,
  chunkBytes,
  concatBytes,
  eofBlock,
  chunkRandomly,
  collectEvents,
  countDocuments,
  FIXTURE_DIR,
  readFixture,
} from "./test-support.ts";
import type { ArchiveEvent, CollectionMetadata } from "./types.ts";

function collectionsOf(events: ArchiveEvent[]): CollectionMetadata[] {
  return events.flatMap((event) => (event.kind === "collection" ? [event.metadata] : []));
}

function documentsOf(events: ArchiveEvent[], namespace: string): Uint8Array[] {
  return events.flatMap((event) => (event.kind === "document" && event.namespace === namespace ? [event.bytes] : []));
}

describe("reading real mongodump archives", () => {
  test("modern-5k.archive: header, three collections with metadata and indexes, 5000/0/1 documents", async () => {
    const events = await collectEvents([await readFixture("modern-5k.archive")]);
    expect(events[0]).toEqual({
      kind: "header",
      header: {
        concurrentCollections: 4,
        formatVersion: "0.1",
        serverVersion: "7.0.0",
        toolVersion: "built-without-version-string",
      },
    });
    const collections = collectionsOf(events);
    expect(collections.map((c) => c.namespace)).toEqual(["shop.orders", "shop.empty", "other.x"]);
    const orders = collections[0]!;
    expect(orders.type).toBe("collection");
    expect(orders.size).toBe(0);
    expect(orders.uuid).toBe("e457f6069ad94d6983b15b5c27e14472");
    expect(orders.options).toEqual({});
    expect(orders.indexes.map((index) => index.name)).toEqual(["_id_", "s_unique", "ttl"]);
    // Canonical Extended JSON keeps the BSON types, so indexes can be recreated exactly.
    expect(orders.indexes[2]!.expireAfterSeconds).toEqual(new Int32(3600));
    expect(orders.indexes[1]!.unique).toBe(true);
    expect(orders.metadataDocument.collectionName).toBe("orders");

    expect(countDocuments(events)).toEqual({ "other.x": 1, "shop.empty": 0, "shop.orders": 5000 });
    expect(documentsOf(events, "shop.orders")).toHaveLength(5000);
    const ends = events.filter((event) => event.kind === "namespace-end");
    expect(ends.every((event) => event.kind === "namespace-end" && event.crcOk)).toBe(true);
    expect(events.at(-1)).toEqual({ kind: "end", archiveBytes: 1000438 });
  });

  test("documents come out as the exact stored bytes", async () => {
    const bytes = await readFixture("modern-5k.archive");
    const events = await collectEvents([bytes]);
    const [first] = documentsOf(events, "shop.orders");
    const at = Buffer.from(bytes).indexOf(Buffer.from(first!));
    expect(at).toBeGreaterThan(0);
    expect(BSON.deserialize(first!)).toHaveProperty("_id");
    const total = documentsOf(events, "shop.orders").reduce((sum, doc) => sum + doc.length, 0);
    expect(events.find((e) => e.kind === "namespace-end" && e.namespace === "shop.orders")).toMatchObject({
      documentBytes: total,
    });
  });

  test("modern-5k.archive.gz, gunzipped as a stream, gives the same namespaces and counts", async () => {
    const source = createReadStream(FIXTURE_DIR + "modern-5k.archive.gz").pipe(createGunzip());
    const events = await collectEvents(source);
    expect(countDocuments(events)).toEqual({ "other.x": 1, "shop.empty": 0, "shop.orders": 5000 });
    expect(collectionsOf(events)[0]!.uuid).toBe("c7cc6ed1a5954e7b87807eabca9d54c6");
  });

  test("test.bar.archive: old relaxed metadata JSON is typed like Go types it", async () => {
    const events = await collectEvents([await readFixture("test.bar.archive")]);
    const [bar, version] = collectionsOf(events);
    expect(bar!.type).toBeUndefined();
    expect(bar!.indexes[0]!.v).toEqual(new Int32(2));
    expect(version!.namespace).toBe("admin.system.version");
    expect(version!.indexes[1]!.v).toEqual(Decimal128.fromString("2"));
    expect(countDocuments(events)).toEqual({ "admin.system.version": 1, "test.bar": 1 });
  });

  test("dump-w-oplog.archive: the oplog travels as .oplog with empty metadata", async () => {
    const events = await collectEvents([await readFixture("dump-w-oplog.archive")]);
    const oplog = collectionsOf(events).find((c) => c.namespace === ".oplog")!;
    expect(oplog).toMatchObject({ db: "", collection: "oplog", metadataJson: "", options: {}, indexes: [] });
    expect(countDocuments(events)).toEqual({ "admin.system.version": 1, "test.foo": 25, ".oplog": 18 });
    const [firstOplogEntry] = documentsOf(events, ".oplog");
    expect(BSON.deserialize(firstOplogEntry!)).toHaveProperty("ts");
  });

  for (const name of ["test.bar.archive", "dump-w-oplog.archive", "modern-5k.archive"]) {
    test(`${name} gives the same events however the stream is chunked`, async () => {
      const bytes = await readFixture(name);
      const whole = await collectEvents([bytes]);
      const slices = name === "modern-5k.archive" ? chunkRandomly(bytes, 300, 1) : chunkBytes(bytes, 1);
      expect(await collectEvents(slices)).toEqual(whole);
      expect(await collectEvents(chunkRandomly(bytes, 70_000, 2))).toEqual(whole);
    });
  }

  test("accepts a web ReadableStream and a Node Readable", async () => {
    const fromWeb = await collectEvents(Bun.file(FIXTURE_DIR + "test.bar.archive").stream());
    const fromNode = await collectEvents(createReadStream(FIXTURE_DIR + "test.bar.archive"));
    expect(countDocuments(fromWeb)).toEqual({ "admin.system.version": 1, "test.bar": 1 });
    expect(fromNode).toEqual(fromWeb);
  });

  test("stops the source when the caller stops reading early", async () => {
    const bytes = await readFixture("modern-5k.archive");
    let released = false;
    let pulled = 0;
    async function* source() {
      try {
        for (let offset = 0; offset < bytes.length; offset += 1000) {
          pulled++;
          yield bytes.subarray(offset, offset + 1000);
        }
      } finally {
        released = true;
      }
    }
    for await (const event of readMongodumpArchive(source())) {
      if (event.kind === "document") break;
    }
    expect(released).toBe(true);
    expect(pulled).toBeLessThan(5);
  });
});

describe("bad-format.archive", () => {
  const expectRejected = async (source: Parameters<typeof readMongodumpArchive>[0]) => {
    const started = performance.now();
    const seen: string[] = [];
    let failure: unknown;
    try {
      for await (const event of readMongodumpArchive(source)) seen.push(event.kind);
    } catch (error) {
      failure = error;
    }
    expect(performance.now() - started).toBeLessThan(1000);
    expect(failure).toMatchObject({ name: "MongodumpArchiveError", code: "invalid-metadata", namespace: "test.ixtest" });
    expect((failure as Error).message).toContain("test.ixtest is not valid Extended JSON");
    expect(seen).toEqual(["header"]);
  };

  test("is rejected with a clear error, whole", async () => {
    await expectRejected([await readFixture("bad-format.archive")]);
  });

  test("is rejected the same way byte by byte and in random chunks", async () => {
    const bytes = await readFixture("bad-format.archive");
    await expectRejected(chunkBytes(bytes, 1));
    for (let seed = 1; seed <= 20; seed++) await expectRejected(chunkRandomly(bytes, 64, seed));
  });

  // The fixture README says its namespace "ends twice", but its body is one empty segment
  // (EOF false) and one EOF header: only the metadata is damaged.
  test("with its metadata repaired, it parses; with a second end marker appended, it is rejected", async () => {
    const bytes = await readFixture("bad-format.archive");
    const headerLength = readInt32LE(bytes, 4);
    const entryLength = readInt32LE(bytes, 4 + headerLength);
    const body = bytes.subarray(4 + headerLength + entryLength); // from the prelude terminator on
    const entry = BSON.serialize({ db: "test", collection: "ixtest", metadata: '{"indexes":[]}', size: 0 });
    const repaired = concatBytes(bytes.subarray(0, 4 + headerLength), entry, body);
    expect(countDocuments(await collectEvents([repaired]))).toEqual({ "test.ixtest": 0 });

    const endedTwice = concatBytes(repaired, eofBlock("test", "ixtest", []));
    const error = await catchArchiveError(() => collectEvents([endedTwice]));
    expect(error).toMatchObject({ code: "namespace-ended-twice", namespace: "test.ixtest" });
    expect(error.message).toContain("test.ixtest has a second end marker");
  });

  test("summarizeArchive rejects it too", async () => {
    const error = await summarizeArchive([await readFixture("bad-format.archive")]).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "invalid-metadata" });
  });
});

describe("summarizeArchive", () => {
  test("lists namespaces with counts, metadata and indexes", async () => {
    const summary = await summarizeArchive(createReadStream(FIXTURE_DIR + "modern-5k.archive"));
    expect(summary.header.serverVersion).toBe("7.0.0");
    expect(summary.collections).toHaveLength(3);
    expect(summary.namespaces.map((n) => [n.namespace, n.documentCount])).toEqual([
      ["other.x", 1],
      ["shop.empty", 0],
      ["shop.orders", 5000],
    ]);
    const orders = summary.namespaces.find((n) => n.namespace === "shop.orders")!;
    expect(orders.indexes.map((index) => index.name)).toEqual(["_id_", "s_unique", "ttl"]);
    expect(orders.metadata?.uuid).toBe("e457f6069ad94d6983b15b5c27e14472");
    expect(orders.crc).toBe(-1029751736002273428n);
    expect(summary.totalDocuments).toBe(5001);
    expect(summary.archiveBytes).toBe(1000438);
  });

  test("includes the oplog of a --oplog dump", async () => {
    const summary = await summarizeArchive([await readFixture("dump-w-oplog.archive")]);
    expect(summary.namespaces.find((n) => n.namespace === ".oplog")).toMatchObject({
      db: "",
      collection: "oplog",
      documentCount: 18,
      indexes: [],
    });
  });
});
