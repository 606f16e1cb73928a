// A database built to break dump/restore: every BSON type (including the deprecated ones the
// JavaScript driver cannot produce, written as raw bytes), numbers of every width, binary
// subtypes, dates before 1970, deep nesting, documents near 16 MiB, empty collections, all
// kinds of indexes, capped/validated/collated collections, a view, and names with dots and
// unicode. Tests compare a restored copy with it byte for byte.
import { randomBytes } from "node:crypto";
import {
  Binary,
  BSONRegExp,
  BSONSymbol,
  Code,
  DBRef,
  Decimal128,
  Double,
  Int32,
  Long,
  MaxKey,
  MinKey,
  ObjectId,
  Timestamp,
  UUID,
} from "bson";
import type { Db, Document } from "mongodb";
import { insertRawDocuments } from "../../src/dump/builtin/raw-insert.ts";

/** A document whose _id is a number, string or ObjectId (the driver's default types allow only an ObjectId). */
export type AnyIdDocument = { _id: number | string | ObjectId; [field: string]: unknown };

export interface AwkwardOptions {
  /** Adds two documents of almost 16 MiB (slower); default true. */
  largeDocuments?: boolean;
}

/** Collection names the builder creates (views included). */
export const AWKWARD_COLLECTIONS = [
  "types",
  "raw-types",
  "numbers",
  "bulk",
  "empty",
  "indexed",
  "capped",
  "validated",
  "collated",
  "with.dots.in.name",
  "ünïcødé 名前",
  "recent",
];

/** Fills `db` with the awkward content; the database should be empty. */
export async function buildAwkwardDatabase(db: Db, options: AwkwardOptions = {}): Promise<void> {
  await db.collection("types").insertMany(createTypedDocuments());
  await insertRawDocuments(db, "raw-types", createRawDocuments(), "exact-bytes");
  await db.collection("numbers").insertMany([
    { _id: new Int32(1), value: new Int32(1) },
    { _id: Long.fromNumber(2), value: Long.fromNumber(1) },
    { _id: new Double(1.5), value: new Double(1) },
    { _id: "decimal", value: Decimal128.fromString("1.000") },
    { _id: "int64-max", value: Long.MAX_VALUE },
    { _id: "int32-min", value: new Int32(-2147483648) },
  ] as Document[]);
  await db.collection("bulk").insertMany(
    Array.from({ length: 3500 }, (_, i) => ({ _id: new ObjectId(), i: new Int32(i), text: `row ${i} ${"x".repeat(i % 200)}` })),
  );
  await db.createCollection("empty");

  await db.collection<AnyIdDocument>("indexed").insertMany(
    Array.from({ length: 120 }, (_, i) => ({
      _id: i,
      email: `user${i}@example.com`,
      createdAt: new Date(Date.UTC(2024, 0, 1) + i * 60_000),
      a: i % 7,
      b: `b${i % 5}`,
      score: i % 10,
      ...(i % 3 === 0 ? { sparseField: i } : {}),
      name: i % 2 === 0 ? "Élodie" : "elodie",
    })),
  );
  await db.collection("indexed").createIndexes([
    { key: { email: 1 }, name: "email_unique", unique: true },
    { key: { createdAt: 1 }, name: "ttl", expireAfterSeconds: 3600 },
    { key: { a: 1, b: -1 }, name: "a_b" },
    { key: { score: 1 }, name: "partial_score", partialFilterExpression: { score: { $gt: 5 } } },
    { key: { sparseField: 1 }, name: "sparse", sparse: true },
    { key: { name: 1 }, name: "name_fr", collation: { locale: "fr", strength: 2 } },
  ]);

  await db.command({ create: "capped", capped: true, size: new Int32(1 << 20), max: new Int32(500) });
  await db.collection<AnyIdDocument>("capped").insertMany(Array.from({ length: 20 }, (_, i) => ({ _id: i, at: new Date(i * 1000) })));
  await db.command({
    create: "validated",
    validator: { $jsonSchema: { bsonType: "object", required: ["name"], properties: { name: { bsonType: "string" } } } },
    validationLevel: "moderate",
    validationAction: "warn",
  });
  await db.collection<AnyIdDocument>("validated").insertMany([{ _id: 1, name: "ok" }, { _id: 2, name: "also ok" }]);
  await db.command({ create: "collated", collation: { locale: "en", strength: new Int32(2) } });
  await db.collection<AnyIdDocument>("collated").insertMany([{ _id: "A", v: 1 }, { _id: "b", v: 2 }]);
  await db.collection<AnyIdDocument>("with.dots.in.name").insertMany([{ _id: 1, here: "dots" }]);
  await db.collection<AnyIdDocument>("ünïcødé 名前").insertMany([{ _id: "ключ", 値: "値", emoji: "🦊" }]);
  await db.command({ create: "recent", viewOn: "indexed", pipeline: [{ $match: { score: { $gt: 1 } } }] });

  if (options.largeDocuments !== false) {
    // 16 MiB is the server's limit; these stay 1 KiB below it, incompressible.
    const size = 16 * 1024 * 1024 - 1024;
    await db.collection<AnyIdDocument>("large").insertOne({ _id: 1, blob: new Binary(randomBytes(size)) });
    await db.collection<AnyIdDocument>("large").insertOne({ _id: 2, text: randomBytes(size / 2).toString("hex"), tail: new Int32(7) });
  }
}

function createTypedDocuments(): Document[] {
  let deep: Document = { leaf: new Int32(0) };
  for (let level = 1; level <= 60; level++) deep = { level: new Int32(level), child: deep, list: [deep.leaf ?? null, [level]] };
  return [
    {
      _id: new ObjectId("65f000000000000000000001"),
      double: new Double(3.25),
      doubleWhole: new Double(2),
      negativeZero: new Double(-0),
      infinity: new Double(Number.POSITIVE_INFINITY),
      nan: new Double(Number.NaN),
      string: "héllo\u0000inside",
      object: { nested: { deeper: [1, "two", { three: 3 }] } },
      array: [new Int32(1), Long.fromNumber(1), new Double(1), Decimal128.fromString("1")],
      binaryGeneric: new Binary(Buffer.from([0, 1, 2, 255]), 0),
      binaryFunction: new Binary(Buffer.from("fn"), 1),
      binaryOld: new Binary(Buffer.from("old"), 2),
      uuidOld: new Binary(Buffer.from("0123456789abcdef"), 3),
      uuid: new UUID("0e7f4f1c-9e3a-4b5e-9c1d-2f3a4b5c6d7e"),
      md5: new Binary(Buffer.from("0123456789abcdef"), 5),
      encrypted: new Binary(Buffer.from([1, 2, 3]), 6),
      column: new Binary(Buffer.from([9, 9]), 7),
      sensitive: new Binary(Buffer.from("secret"), 8),
      user: new Binary(Buffer.from([0xde, 0xad]), 0x80),
      yes: true,
      no: false,
      dateBefore1970: new Date(Date.UTC(1901, 11, 13, 20, 45, 52)),
      dateEpoch: new Date(0),
      dateFarPast: new Date(-62135596800000),
      dateFuture: new Date(Date.UTC(9999, 11, 31, 23, 59, 59, 999)),
      nothing: null,
      regex: new BSONRegExp("^a.*b$", "imsux"),
      code: new Code("function () { return 1; }"),
      symbol: new BSONSymbol("sym"),
      codeWithScope: new Code("function () { return x; }", { x: new Int32(1) }),
      int32: new Int32(-42),
      timestamp: new Timestamp({ t: 1_700_000_000, i: 7 }),
      int64: Long.fromString("-9007199254740993"),
      decimal: Decimal128.fromString("-1234567890.123456789012345678901234"),
      decimalNaN: Decimal128.fromString("NaN"),
      decimalNegativeZero: Decimal128.fromString("-0"),
      decimalInfinity: Decimal128.fromString("-Infinity"),
      min: new MinKey(),
      max: new MaxKey(),
      ref: new DBRef("other", new ObjectId("65f000000000000000000002"), "db2"),
      deep,
      bigArray: Array.from({ length: 5000 }, (_, i) => (i % 2 ? new Int32(i) : `s${i}`)),
    },
    { _id: new MinKey(), note: "minkey id" },
    { _id: { compound: true, n: new Int32(1) }, note: "document id" },
    { _id: new Date(-1), note: "date id before 1970" },
  ];
}

/** Documents only raw bytes can express: BSON undefined, DBPointer, a NaN payload, a repeated field name. */
function createRawDocuments(): Uint8Array[] {
  const name = (text: string) => Buffer.concat([Buffer.from(text, "utf8"), Buffer.from([0])]);
  const int32 = (value: number) => {
    const bytes = Buffer.alloc(4);
    bytes.writeInt32LE(value);
    return bytes;
  };
  const string = (text: string) => Buffer.concat([int32(Buffer.byteLength(text) + 1), name(text)]);
  const element = (type: number, field: string, value: Buffer) => Buffer.concat([Buffer.from([type]), name(field), value]);
  const document = (...elements: Buffer[]) => {
    const body = Buffer.concat(elements);
    return Buffer.concat([int32(body.length + 5), body, Buffer.from([0])]);
  };
  const nanWithPayload = Buffer.from([0x01, 0, 0, 0, 0, 0, 0xf8, 0x7f]);
  return [
    document(element(0x10, "_id", int32(1)), element(0x06, "undefined", Buffer.alloc(0))),
    document(element(0x10, "_id", int32(2)), element(0x0c, "pointer", Buffer.concat([string("db.coll"), Buffer.from("65f000000000000000000003", "hex")]))),
    document(element(0x10, "_id", int32(3)), element(0x01, "nan", nanWithPayload)),
    document(element(0x10, "_id", int32(4)), element(0x10, "twice", int32(1)), element(0x10, "twice", int32(2))),
  ];
}
