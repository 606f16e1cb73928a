import { describe, expect, test } from "bun:test";
import { Binary, BSON, EJSON } from "bson";
import { createReadStream } from "node:fs";
import { createGunzip } from "node:zlib";
import { encodeNamespaceHeader } from "./block-codec.ts";
import { MAX_DOCUMENT_BYTES } from "./format.ts";
import {
  catchArchiveError,
  chunkBytes,
  collectBytes,
  collectEvents,
  countDocuments,
  countOccurrences,
  FIXTURE_DIR,
  readFixture,
  splitForRewrite,
  toBson,
} from "./test-support.ts";
import type { ArchiveEvent, ArchivePrelude, ArchiveSource, ArchiveWriteItem } from "./types.ts";
import { ArchiveEncoder, writeMongodumpArchive, type WriteArchiveOptions } from "./write-archive.ts";
import type { MongodumpArchiveError } from "./errors.ts";

async function writeToBytes(prelude: ArchivePrelude, items: ArchiveWriteItem[], options?: WriteArchiveOptions) {
  return collectBytes(writeMongodumpArchive(prelude, items, options));
}

/**
 * What must survive a re-write: metadata fields (canonically) and each namespace's documents in
 * order. The metadata text itself may change shape: the writer writes what current mongodump
 * writes (empty options omitted, collectionName added).
 */
function describeContent(events: ArchiveEvent[]) {
  const documents: Record<string, string[]> = {};
  const collections: string[] = [];
  const crcs: Record<string, bigint> = {};
  for (const event of events) {
    if (event.kind === "collection") {
      const { metadataDocument: _document, metadataJson: _json, ...fields } = event.metadata;
      collections.push(EJSON.stringify(fields, { relaxed: false }));
    } else if (event.kind === "document") {
      (documents[event.namespace] ??= []).push(Buffer.from(event.bytes).toString("hex"));
    } else if (event.kind === "namespace-end") {
      crcs[event.namespace] = event.crc;
      expect(event.crcOk).toBe(true);
    }
  }
  return { collections, documents, crcs };
}

const fixtureSources: Record<string, () => Promise<ArchiveSource>> = {
  "test.bar.archive": async () => [await readFixture("test.bar.archive")],
  "dump-w-oplog.archive": async () => [await readFixture("dump-w-oplog.archive")],
  "modern-5k.archive": async () => [await readFixture("modern-5k.archive")],
  "modern-5k.archive.gz": async () => createReadStream(FIXTURE_DIR + "modern-5k.archive.gz").pipe(createGunzip()),
};

describe("re-writing the real archives", () => {
  for (const [name, open] of Object.entries(fixtureSources)) {
    test(`${name} reads back with the same namespaces, metadata, documents and CRCs`, async () => {
      const original = await collectEvents(await open());
      const { prelude, items } = splitForRewrite(original);
      const rewritten = await collectEvents([await writeToBytes(prelude, items)]);
      expect(describeContent(rewritten)).toEqual(describeContent(original));
      expect(rewritten[0]).toEqual(original[0]!);
    });
  }

  test("modern-5k.archive is reproduced byte for byte from its parsed content", async () => {
    const bytes = await readFixture("modern-5k.archive");
    const { prelude, items } = splitForRewrite(await collectEvents([bytes]));
    const rewritten = await writeToBytes(prelude, items);
    expect(Buffer.compare(Buffer.from(rewritten), Buffer.from(bytes))).toBe(0);
  });
});

describe("writing archives", () => {
  const prelude: ArchivePrelude = {
    header: { serverVersion: "7.0.2", toolVersion: "dbvault-agent 1.0.0", concurrentCollections: 2 },
    collections: [
      { db: "shop", collection: "orders", type: "collection", indexes: [{ v: 2, key: { _id: 1 }, name: "_id_" }] },
      { db: "shop", collection: "items", type: "collection", options: { capped: true, size: 4096 } },
      { db: "", collection: "oplog" },
    ],
  };
  // Same size for every n: _id an int32, total always a double.
  const order = (n: number) => toBson({ _id: n, kind: "order", total: n + 0.5 });
  const item = (n: number) => toBson({ _id: `item-${n}`, tags: ["a", "b"] });

  test("writes the header and metadata the way current mongodump does", async () => {
    const events = await collectEvents([await writeToBytes(prelude, [])]);
    expect(events[0]).toEqual({
      kind: "header",
      header: {
        concurrentCollections: 2,
        formatVersion: "0.1",
        serverVersion: "7.0.2",
        toolVersion: "dbvault-agent 1.0.0",
      },
    });
    const [orders, items, oplog] = events.flatMap((e) => (e.kind === "collection" ? [e.metadata] : []));
    expect(orders!.metadataJson).toBe(
      '{"indexes":[{"v":{"$numberInt":"2"},"key":{"_id":{"$numberInt":"1"}},"name":"_id_"}],"collectionName":"orders","type":"collection"}',
    );
    expect(items!.metadataJson).toStartWith('{"options":{"capped":true,"size":{"$numberInt":"4096"}},"indexes":[]');
    expect(oplog!).toMatchObject({ namespace: ".oplog", metadataJson: "" });
    expect(countDocuments(events)).toEqual({ "shop.orders": 0, "shop.items": 0, ".oplog": 0 });
  });

  test("header fields carry mongodump's BSON names and types", async () => {
    const bytes = await writeToBytes(prelude, []);
    const headerLength = new DataView(bytes.buffer).getInt32(4, true);
    const header = BSON.deserialize(bytes.subarray(4, 4 + headerLength), { promoteValues: false });
    expect(Object.keys(header)).toEqual(["concurrent_collections", "version", "server_version", "tool_version"]);
    expect(header.concurrent_collections._bsontype).toBe("Int32");
  });

  test("interleaved documents keep their order and each namespace's CRC is right", async () => {
    const items: ArchiveWriteItem[] = [];
    for (let n = 0; n < 30; n++) {
      items.push({ kind: "document", namespace: n % 3 === 0 ? "shop.items" : "shop.orders", bytes: n % 3 ? order(n) : item(n) });
    }
    items.push({ kind: "namespace-end", namespace: "shop.items" });
    items.push({ kind: "document", namespace: ".oplog", bytes: toBson({ ts: 1, op: "n" }) });
    const bytes = await writeToBytes(prelude, items);
    const events = await collectEvents([bytes]);
    const written = items.flatMap((i) => (i.kind === "document" ? [[i.namespace, Buffer.from(i.bytes).toString("hex")]] : []));
    const read = events.flatMap((e) => (e.kind === "document" ? [[e.namespace, Buffer.from(e.bytes).toString("hex")]] : []));
    expect(read).toEqual(written);
    expect(countDocuments(events)).toEqual({ "shop.items": 10, "shop.orders": 20, ".oplog": 1 });
    // One segment per run of a namespace: items and orders alternate 20 times.
    expect(countOccurrences(bytes, encodeNamespaceHeader("shop", "orders"))).toBe(10);
  });

  test("cuts long runs into segments of at most maxSegmentBytes", async () => {
    const items: ArchiveWriteItem[] = Array.from({ length: 100 }, (_, n) => ({
      kind: "document" as const,
      namespace: "shop.orders",
      bytes: order(n),
    }));
    const size = order(0).length;
    const bytes = await writeToBytes(prelude, items, { maxSegmentBytes: size * 10 });
    expect(countOccurrences(bytes, encodeNamespaceHeader("shop", "orders"))).toBe(10);
    expect(countDocuments(await collectEvents([bytes]))["shop.orders"]).toBe(100);
  });

  test("an empty namespace gets an empty segment and an EOF with CRC 0, like mongodump", async () => {
    const bytes = await writeToBytes(prelude, []);
    expect(countOccurrences(bytes, encodeNamespaceHeader("shop", "items"))).toBe(1);
    expect(countOccurrences(bytes, encodeNamespaceHeader("shop", "items", 0n))).toBe(1);
  });

  test("closes an open segment of another namespace before an empty namespace's segment", async () => {
    const items: ArchiveWriteItem[] = [
      { kind: "document", namespace: ".oplog", bytes: toBson({ ts: 1 }) },
      { kind: "namespace-end", namespace: "shop.items" },
      { kind: "document", namespace: ".oplog", bytes: toBson({ ts: 2 }) },
    ];
    // shop.orders, still empty and open, is ended at the close while the oplog segment is open.
    const events = await collectEvents([await writeToBytes(prelude, items)]);
    expect(countDocuments(events)).toEqual({ "shop.items": 0, "shop.orders": 0, ".oplog": 2 });
  });

  test("yields chunks of the requested size, only the last one shorter", async () => {
    const items = Array.from({ length: 500 }, (_, n) => ({ kind: "document" as const, namespace: "shop.orders", bytes: order(n) }));
    const chunks: Uint8Array[] = [];
    for await (const chunk of writeMongodumpArchive(prelude, items, { chunkBytes: 4096 })) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(5);
    expect(chunks.slice(0, -1).every((chunk) => chunk.length === 4096)).toBe(true);
    expect(chunks.at(-1)!.length).toBeLessThanOrEqual(4096);
  });

  test("pulls items only as the consumer asks for bytes, and releases them when it stops", async () => {
    let pulled = 0;
    let released = false;
    async function* items(): AsyncGenerator<ArchiveWriteItem> {
      try {
        for (let n = 0; n < 1_000_000; n++) {
          pulled++;
          yield { kind: "document", namespace: "shop.orders", bytes: order(n) };
        }
      } finally {
        released = true;
      }
    }
    const output = writeMongodumpArchive(prelude, items(), { chunkBytes: 8192 });
    let received = 0;
    for await (const chunk of output) {
      received += chunk.length;
      if (received >= 3 * 8192) break;
    }
    expect(released).toBe(true);
    // Three 8 KiB chunks hold a few hundred small documents, not a million.
    expect(pulled).toBeLessThan(3 * Math.ceil(8192 / order(0).length) + 2);
  });

  test("time-series data goes under system.buckets.X for servers before 8.3", async () => {
    const timeseries: ArchivePrelude = {
      header: { serverVersion: "7.0.0" },
      collections: [{ db: "iot", collection: "readings", type: "timeseries", options: { timeseries: { timeField: "t" } } }],
    };
    const bucket = toBson({ _id: 1, control: { version: 1 } });
    const written = await writeToBytes(timeseries, [{ kind: "document", namespace: "iot.system.buckets.readings", bytes: bucket }]);
    expect(countDocuments(await collectEvents([written]))).toEqual({ "iot.system.buckets.readings": 1 });
    const empty = await collectEvents([await writeToBytes(timeseries, [])]);
    expect(countDocuments(empty)).toEqual({ "iot.system.buckets.readings": 0 });
    const newer = await collectEvents([await writeToBytes({ ...timeseries, header: { serverVersion: "8.3.0" } }, [])]);
    expect(countDocuments(newer)).toEqual({ "iot.readings": 0 });
  });

  test("round-trips documents from 5 bytes up to 16 MiB, fed back in 64 KiB chunks", async () => {
    const smallest = new Uint8Array([5, 0, 0, 0, 0]);
    const filler = 16 * 1024 * 1024 - toBson({ _id: 1, data: new Binary(new Uint8Array(0)) }).length;
    const largest = toBson({ _id: 1, data: new Binary(new Uint8Array(filler).fill(0xab)) });
    expect(largest.length).toBe(16 * 1024 * 1024);
    const items: ArchiveWriteItem[] = [
      { kind: "document", namespace: "shop.orders", bytes: smallest },
      { kind: "document", namespace: "shop.orders", bytes: largest },
      { kind: "document", namespace: "shop.items", bytes: largest },
    ];
    const bytes = await writeToBytes(prelude, items);
    const events = await collectEvents(chunkBytes(bytes, 64 * 1024));
    const documents = events.flatMap((e) => (e.kind === "document" ? [e.bytes] : []));
    expect(documents.map((d) => d.length)).toEqual([5, largest.length, largest.length]);
    expect(Buffer.compare(Buffer.from(documents[1]!), Buffer.from(largest))).toBe(0);
  });
});

describe("writer refusals", () => {
  const prelude: ArchivePrelude = { collections: [{ db: "shop", collection: "orders" }] };
  const doc = toBson({ _id: 1 });
  const refuse = (items: ArchiveWriteItem[], options?: WriteArchiveOptions, custom = prelude) => catchArchiveError(() => writeToBytes(custom, items, options));

  test("a namespace the prelude does not describe", async () => {
    const error = await refuse([{ kind: "document", namespace: "shop.other", bytes: doc }]);
    expect(error).toMatchObject({ code: "unknown-namespace", namespace: "shop.other" });
  });

  test("a document after its namespace ended, and a second end", async () => {
    const end = { kind: "namespace-end" as const, namespace: "shop.orders" };
    expect((await refuse([end, { kind: "document", namespace: "shop.orders", bytes: doc }])).code).toBe("segment-after-end");
    expect((await refuse([end, end])).code).toBe("namespace-ended-twice");
  });

  test("byte arrays that are not one BSON document", async () => {
    const cases: [Uint8Array, string][] = [
      [new Uint8Array([4, 0, 0, 0]), "outside 5"],
      [new Uint8Array([9, 0, 0, 0, 0]), "length prefix"],
      [new Uint8Array([5, 0, 0, 0, 1]), "0x00"],
      [new Uint8Array(MAX_DOCUMENT_BYTES + 1), "outside 5"],
    ];
    for (const [bytes, message] of cases) {
      const error = await refuse([{ kind: "document", namespace: "shop.orders", bytes }]);
      expect(error.code).toBe("invalid-document");
      expect(error.message).toContain(message);
    }
  });

  test("a prelude naming a collection twice", async () => {
    const twice = { collections: [prelude.collections[0]!, prelude.collections[0]!] };
    expect((await refuse([], undefined, twice)).code).toBe("duplicate-namespace");
  });
});

describe("writing whole cursor batches", () => {
  const prelude: ArchivePrelude = { collections: [{ db: "shop", collection: "orders" }] };
  // A batch as a reply carries it: the elements of a BSON array ("0", "1", ...), here the
  // elements of a document with those keys, which have the same bytes.
  const batchOf = (values: unknown[]) => BSON.serialize(Object.fromEntries(values.map((value, i) => [String(i), value])));
  const encode = (write: (encoder: ArchiveEncoder) => void) => {
    const chunks: Uint8Array[] = [];
    const encoder = new ArchiveEncoder(prelude, { chunkBytes: 100 }, (chunk) => void chunks.push(chunk.slice()), true);
    write(encoder);
    encoder.finish();
    return Buffer.concat(chunks);
  };

  test("writes the same bytes as the documents one by one, across chunk boundaries", () => {
    const documents = Array.from({ length: 25 }, (_, i) => ({ _id: i, text: "x".repeat(i * 7) }));
    const batch = batchOf(documents);
    let written = 0;
    const whole = encode((encoder) => (written = encoder.writeBatch("shop.orders", batch, 4, batch.length - 1)));
    const oneByOne = encode((encoder) =>
      encoder.writeDocuments(
        "shop.orders",
        documents.map((document) => toBson(document)),
      ),
    );
    expect(written).toBe(25);
    expect(Buffer.compare(whole, oneByOne)).toBe(0);
  });

  test("refuses a batch element that is not a document, and a batch cut inside a document", () => {
    const refuse = (bytes: Uint8Array, end: number) => {
      try {
        encode((encoder) => encoder.writeBatch("shop.orders", bytes, 4, end));
      } catch (error) {
        return error as MongodumpArchiveError;
      }
      throw new Error("the batch was accepted");
    };
    const numbers = batchOf([{ a: 1 }, 5]);
    expect(refuse(numbers, numbers.length - 1)).toMatchObject({ code: "invalid-document", message: expect.stringContaining("not a document") });
    const documents = batchOf([{ a: 1 }, { b: 2 }]);
    expect(refuse(documents, documents.length - 4)).toMatchObject({ code: "invalid-document", message: expect.stringContaining("ends inside a document") });
  });
});
