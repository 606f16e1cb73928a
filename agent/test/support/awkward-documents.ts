// The documents of the awkward database (awkward-database.ts): every BSON type, including the
// deprecated ones the JavaScript driver cannot produce (written as raw bytes), and a portable
// variant for servers that store only the common types (FerretDB: no Decimal128, MinKey/MaxKey,
// JavaScript, symbol, undefined, DBPointer, NaN or infinities, nested arrays, "$" field names).
import { Binary, BSONRegExp, BSONSymbol, Code, DBRef, Decimal128, Double, Int32, Long, MaxKey, MinKey, ObjectId, Timestamp, UUID } from "bson";
import type { Document } from "mongodb";

// Fields of the typed document that only servers with every BSON type can store.
const EXOTIC_FIELDS = [
  "negativeZero",
  "infinity",
  "nan",
  "array",
  "code",
  "symbol",
  "codeWithScope",
  "decimal",
  "decimalNaN",
  "decimalNegativeZero",
  "decimalInfinity",
  "min",
  "max",
  "ref",
];

/** The "types" collection: one document of every type plus documents with unusual _ids. */
export function createTypedDocuments(allTypes: boolean): Document[] {
  const documents = createAllTypedDocuments(allTypes);
  if (allTypes) return documents;
  const portable = Object.fromEntries(Object.entries(documents[0]!).filter(([field]) => !EXOTIC_FIELDS.includes(field)));
  portable.array = [new Int32(1), Long.fromNumber(1), new Double(1)];
  return [portable, ...documents.slice(2)];
}

function createAllTypedDocuments(allTypes: boolean): Document[] {
  let deep: Document = { leaf: new Int32(0) };
  // Nested arrays only where the server stores them.
  for (let level = 1; level <= 60; level++) deep = { level: new Int32(level), child: deep, list: [deep.leaf ?? null, allTypes ? [level] : level] };
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
export function createRawDocuments(): Uint8Array[] {
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
