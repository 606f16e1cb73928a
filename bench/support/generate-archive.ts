// mongodump archives for the benches, written by the archive writer the built-in dump uses
// (byte-compatible with mongodump's, as the real-tools tests check) from generated documents:
// "small" (order-like documents of ~250 bytes in four collections, the hard case for parsing)
// and "large" (~256 KB documents with binary and text, the hard case for copying).
import { closeSync, openSync, writeSync } from "node:fs";
import { Binary, BSON, Decimal128, Int32, ObjectId } from "bson";
import { writeMongodumpArchive } from "../../agent/src/dump/mongodump-archive/index.ts";

export type DocumentShape = "small" | "large";

const CITIES = ["Berlin", "Lisbon", "Austin", "Osaka", "Lagos", "Lyon", "Pune", "Quito"];

/** One generated document of a shape, about 250 bytes (small) or 256 KB (large). */
export function createBenchDocument(shape: DocumentShape, i: number): Record<string, unknown> {
  if (shape === "large") {
    const fill = Buffer.alloc(192 * 1024);
    for (let k = 0; k < fill.length; k += 4) fill.writeUInt32LE((i * 2654435761 + k * 40503) >>> 0, k);
    return {
      _id: new ObjectId(),
      i: new Int32(i),
      name: `attachment ${i}`,
      data: new Binary(fill),
      text: `page ${i} `.repeat(6400),
    };
  }
  return {
    _id: new ObjectId(),
    orderNo: new Int32(100_000 + i),
    customer: { name: `Customer ${i % 50_000}`, email: `user${i % 50_000}@example.com`, city: CITIES[i % CITIES.length] },
    items: [{ sku: `SKU-${i % 997}`, qty: new Int32(1 + (i % 5)), price: Decimal128.fromString(`${(i % 10_000) / 100}`) }],
    status: i % 3 ? "shipped" : "pending",
    createdAt: new Date(1.7e12 + i * 61_000),
  };
}

/** Writes an archive of about `bytes` of documents of one shape to `path`; returns the document count. */
export async function writeBenchArchive(path: string, bytes: number, shape: DocumentShape): Promise<number> {
  const collections = shape === "small" ? ["orders", "customers", "events", "audit"] : ["files", "pages"];
  const perCollection = shape === "small" ? 50_000 : 40;
  let documents = 0;
  async function* items() {
    let written = 0;
    while (written < bytes) {
      const raw = BSON.serialize(createBenchDocument(shape, documents));
      const collection = collections[Math.floor(documents / perCollection) % collections.length]!;
      written += raw.length;
      documents++;
      yield { kind: "document" as const, namespace: `bench.${collection}`, bytes: raw };
    }
  }
  const prelude = {
    header: { serverVersion: "7.0.0", toolVersion: "dbvault bench" },
    collections: collections.map((collection) => ({ db: "bench", collection })),
  };
  const fd = openSync(path, "w");
  try {
    for await (const chunk of writeMongodumpArchive(prelude, items(), { chunkBytes: 1024 * 1024 })) writeSync(fd, chunk);
  } finally {
    closeSync(fd);
  }
  return documents;
}
