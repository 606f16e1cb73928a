// A database built to break dump/restore: every BSON type (including the deprecated ones the
// JavaScript driver cannot produce, written as raw bytes), numbers of every width, binary
// subtypes, dates before 1970, deep nesting, documents near 16 MiB, empty collections, all
// kinds of indexes, capped/validated/collated collections, a view, and names with dots and
// unicode. Tests compare a restored copy with it byte for byte. On a server lacking some of it
// (testkit/mongo-targets.ts) the builder leaves those parts out and says which.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll } from "bun:test";
import { Binary, Decimal128, Double, Int32, Long, ObjectId } from "bson";
import type { Db, Document } from "mongodb";
import type { MongoTargetSpec, TargetFeature } from "../../../testkit/mongo-targets.ts";
import { insertRawDocuments } from "../../src/dump/builtin/raw-insert.ts";
import { createRawDocuments, createTypedDocuments } from "./awkward-documents.ts";
import { type AgentTestEnv, openAgentTestEnv } from "./test-env.ts";

/** A document whose _id is a number, string or ObjectId (the driver's default types allow only an ObjectId). */
export type AnyIdDocument = { _id: number | string | ObjectId; [field: string]: unknown };

export interface AwkwardOptions {
  /** Adds two documents of almost 16 MiB (slower); default true. */
  largeDocuments?: boolean;
  /** What the server lacks (a target's `lacks`): those parts are left out. */
  lacking?: Partial<Record<TargetFeature, string>>;
  /** Whether "indexed" gets its secondary indexes; default true. */
  secondaryIndexes?: boolean;
}

/** What was built: the collections (views included) and the document count of each. */
export interface AwkwardContent {
  collections: string[];
  counts: Record<string, number>;
}

/** A target opened for the enclosing describe's tests, with the awkward database built on it. */
export interface AwkwardTarget {
  env: AgentTestEnv;
  /** The awkward database's name. */
  source: string;
  content: AwkwardContent;
  /** All its documents. */
  total: number;
}

/**
 * Opens `target` and builds the awkward content it can hold in a fresh database before the
 * enclosing describe's tests (nothing when the target is unavailable), closing it after; the
 * fields are set once beforeAll ran.
 */
export function useAwkwardTarget(target: MongoTargetSpec, options: Omit<AwkwardOptions, "lacking"> = {}): AwkwardTarget {
  const opened = {} as AwkwardTarget;
  beforeAll(async () => {
    if (target.unavailable !== null) return;
    opened.env = await openAgentTestEnv(target);
    opened.source = opened.env.uniqueDatabase("awkward");
    opened.content = await buildAwkwardDatabase(opened.env.client.db(opened.source), { ...options, lacking: target.lacks });
    opened.total = Object.values(opened.content.counts).reduce((sum, n) => sum + n, 0);
  });
  afterAll(() => opened.env?.close());
  return opened;
}

/** Fills `db` with the awkward content the server can hold; the database should be empty. */
export async function buildAwkwardDatabase(db: Db, options: AwkwardOptions = {}): Promise<AwkwardContent> {
  const has = (feature: TargetFeature) => options.lacking?.[feature] === undefined;
  const counts: Record<string, number> = {};
  const insert = async (name: string, documents: Document[]) => {
    await db.collection(name).insertMany(documents);
    counts[name] = (counts[name] ?? 0) + documents.length;
  };

  await insert("types", createTypedDocuments(has("all-bson-types")));
  if (has("all-bson-types")) {
    const raw = createRawDocuments();
    await insertRawDocuments(db, "raw-types", raw, "exact-bytes");
    counts["raw-types"] = raw.length;
  }
  await insert("numbers", [
    { _id: new Int32(1), value: new Int32(1) },
    { _id: Long.fromNumber(2), value: Long.fromNumber(1) },
    { _id: new Double(1.5), value: new Double(1) },
    ...(has("all-bson-types") ? [{ _id: "decimal", value: Decimal128.fromString("1.000") }] : []),
    { _id: "int64-max", value: Long.MAX_VALUE },
    { _id: "int32-min", value: new Int32(-2147483648) },
  ]);
  await insert(
    "bulk",
    Array.from({ length: 3500 }, (_, i) => ({ _id: new ObjectId(), i: new Int32(i), text: `row ${i} ${"x".repeat(i % 200)}` })),
  );
  await db.createCollection("empty");
  counts.empty = 0;

  await insert("indexed", createIndexedDocuments());
  if (options.secondaryIndexes !== false) await createSecondaryIndexes(db, has);

  await db.command({ create: "capped", capped: true, size: new Int32(1 << 20), max: new Int32(500) });
  await insert(
    "capped",
    Array.from({ length: 20 }, (_, i) => ({ _id: i, at: new Date(i * 1000) })),
  );
  if (has("validators")) {
    await db.command({
      create: "validated",
      validator: { $jsonSchema: { bsonType: "object", required: ["name"], properties: { name: { bsonType: "string" } } } },
      validationLevel: "moderate",
      validationAction: "warn",
    });
    await insert("validated", [
      { _id: 1, name: "ok" },
      { _id: 2, name: "also ok" },
    ]);
  }
  if (has("collations")) {
    await db.command({ create: "collated", collation: { locale: "en", strength: new Int32(2) } });
    await insert("collated", [
      { _id: "A", v: 1 },
      { _id: "b", v: 2 },
    ]);
  }
  await insert("with.dots.in.name", [{ _id: 1, here: "dots" }]);
  await insert("ünïcødé 名前", [{ _id: "ключ", 値: "値", emoji: "🦊" }]);
  if (has("views")) {
    await db.command({ create: "recent", viewOn: "indexed", pipeline: [{ $match: { score: { $gt: 1 } } }] });
    counts.recent = 0;
  }

  if (options.largeDocuments !== false) {
    // 16 MiB is the server's limit; these stay 1 KiB below it, incompressible.
    const size = 16 * 1024 * 1024 - 1024;
    await insert("large", [{ _id: 1, blob: new Binary(randomBytes(size)) }]);
    await insert("large", [{ _id: 2, text: randomBytes(size / 2).toString("hex"), tail: new Int32(7) }]);
  }
  return { collections: Object.keys(counts).sort(), counts };
}

async function createSecondaryIndexes(db: Db, has: (feature: TargetFeature) => boolean): Promise<void> {
  await db.collection("indexed").createIndexes([
    { key: { email: 1 }, name: "email_unique", unique: true },
    { key: { a: 1, b: -1 }, name: "a_b" },
    { key: { sparseField: 1 }, name: "sparse", sparse: true },
    ...(has("partial-and-ttl-indexes")
      ? [
          { key: { createdAt: 1 }, name: "ttl", expireAfterSeconds: 3600 },
          { key: { score: 1 }, name: "partial_score", partialFilterExpression: { score: { $gt: 5 } } },
        ]
      : []),
    ...(has("collations") ? [{ key: { name: 1 }, name: "name_fr", collation: { locale: "fr", strength: 2 } }] : []),
  ]);
}

function createIndexedDocuments(): Document[] {
  return Array.from({ length: 120 }, (_, i) => ({
    _id: i,
    email: `user${i}@example.com`,
    createdAt: new Date(Date.UTC(2024, 0, 1) + i * 60_000),
    a: i % 7,
    b: `b${i % 5}`,
    score: i % 10,
    ...(i % 3 === 0 ? { sparseField: i } : {}),
    name: i % 2 === 0 ? "Élodie" : "elodie",
  }));
}
