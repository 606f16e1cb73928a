// Fills a database for the dump and restore benches through the driver, as an application
// would: documents of about 1 KB (numbers of several widths, a date, a decimal, an array, a
// nested document and a payload that compresses about 2:1), in collections of chosen sizes.
import { randomBytes } from "node:crypto";
import { Decimal128, Int32, type MongoClient, ObjectId } from "mongodb";

const DOCUMENT_BYTES = 1_000;
const BATCH = 1_000;
const WRITERS = 3;

/**
 * About 1 KB: numbers of several widths, a date, a decimal, a small array, a nested document, a
 * payload. FerretDB 1.x has no Decimal128 (it drops the connection), so `decimals: false` stores
 * the amount as a double.
 */
export function createDocument(i: number, decimals = true): object {
  return {
    _id: new ObjectId(),
    i: new Int32(i),
    name: `customer ${i} ${["alpha", "beta", "gamma", "delta"][i % 4]}`,
    email: `user${i}@example.com`,
    createdAt: new Date(Date.UTC(2020, 0, 1) + i * 1000),
    amount: decimals ? Decimal128.fromString(`${i % 10_000}.${i % 100}`) : (i % 10_000) + (i % 100) / 100,
    tags: ["a", "b", `t${i % 50}`],
    address: { street: `${i % 999} main street`, city: "springfield", zip: `${10_000 + (i % 89_999)}` },
    payload: randomBytes(360).toString("base64") + "x".repeat(360),
  };
}

/** "Many collections and one large one": `count` small collections holding `smallShare` of the bytes, the rest in `large`. */
export function layoutManyAndOneLarge(bytes: number, count = 20, smallShare = 0.4): { name: string; bytes: number }[] {
  const small = Array.from({ length: count }, (_, i) => ({ name: `small_${String(i).padStart(2, "0")}`, bytes: (bytes * smallShare) / count }));
  return [...small, { name: "large", bytes: bytes * (1 - smallShare) }];
}

/** Inserts the layout's documents into `database` (3 writers in parallel); returns documents per collection. */
export async function generateDatabase(
  client: MongoClient,
  database: string,
  layout: { name: string; bytes: number }[],
  onProgress?: (inserted: number, total: number) => void,
  decimals = true,
): Promise<Record<string, number>> {
  const jobs: { collection: string; from: number; count: number }[] = [];
  const counts: Record<string, number> = {};
  let next = 0;
  for (const { name, bytes } of layout) {
    const documents = Math.max(1, Math.ceil(bytes / DOCUMENT_BYTES));
    counts[name] = documents;
    for (let from = 0; from < documents; from += BATCH) jobs.push({ collection: name, from: next + from, count: Math.min(BATCH, documents - from) });
    next += documents;
  }
  let inserted = 0;
  let job = 0;
  const writer = async () => {
    while (job < jobs.length) {
      const { collection, from, count } = jobs[job++]!;
      const documents = Array.from({ length: count }, (_, k) => createDocument(from + k, decimals));
      await client.db(database).collection(collection).insertMany(documents, { ordered: false });
      inserted += count;
      onProgress?.(inserted, next);
    }
  };
  await Promise.all(Array.from({ length: WRITERS }, writer));
  return counts;
}
