// Documents in and out: exact bytes for every BSON type, batching across getMores by count and by
// the 16 MiB budget, queries, sorting, projection and counting.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Binary, BSON, BSONRegExp, BSONSymbol, Code, DBRef, Decimal128, Double, Int32, Long, MaxKey, MinKey, ObjectId, Timestamp, UUID } from "bson";
import type { CommandSucceededEvent, Db } from "mongodb";
import { type LooseDocument, type TestConnection, createDatabaseName, openTestConnection } from "./test-support";

let connection: TestConnection;
let db: Db;
const replies: CommandSucceededEvent[] = [];
beforeAll(async () => {
  connection = await openTestConnection({ monitorCommands: true });
  connection.client.on("commandSucceeded", (event) => replies.push(event));
  db = connection.client.db(createDatabaseName("documents"));
});
afterAll(async () => {
  await db.dropDatabase();
  await connection.close();
});

function createEveryTypeDocument(): Record<string, unknown> {
  return {
    _id: new ObjectId(),
    double: new Double(1.5),
    negativeZero: new Double(-0),
    notANumber: new Double(Number.NaN),
    infinity: new Double(Number.NEGATIVE_INFINITY),
    wholeDouble: new Double(3),
    int32: new Int32(-7),
    int64: Long.fromString("9007199254740993"),
    decimal: Decimal128.fromString("1234.5678901234567890123456789012"),
    string: "héllo ✓ 𝄞",
    empty: "",
    binary: new Binary(Buffer.from([0, 1, 2, 255]), 0),
    oldBinary: new Binary(Buffer.from("abc"), 2),
    uuid: new UUID(),
    md5: new Binary(Buffer.alloc(16, 7), 5),
    userBinary: new Binary(Buffer.from("x"), 0x80),
    yes: true,
    before1970: new Date(Date.UTC(1901, 0, 1)),
    farFuture: new Date(8.64e15),
    nothing: null,
    regex: new BSONRegExp("^a.*z$", "imsx"),
    code: new Code("function () { return 1; }"),
    codeWithScope: new Code("x + 1", { x: 1 }),
    symbol: new BSONSymbol("sym"),
    timestamp: new Timestamp({ t: 1_700_000_000, i: 42 }),
    min: new MinKey(),
    max: new MaxKey(),
    ref: new DBRef("people", new ObjectId(), "other"),
    nested: { z: 1, a: { b: { c: [new Int32(1), { d: new Double(2) }, []] } } },
    emptyDocument: {},
    mixed: [new Int32(1), new Double(1), Long.fromInt(1), "1", null, [1, [2]]],
  };
}

describe("exact bytes", () => {
  test("a document holding every BSON type comes back byte for byte", async () => {
    const document = createEveryTypeDocument();
    const sent = Buffer.from(BSON.serialize(document));
    await db.collection<LooseDocument>("types").insertOne(document);
    const [raw] = await db
      .collection<LooseDocument>("types")
      .find({ _id: document._id as ObjectId }, { raw: true })
      .toArray();
    expect(Buffer.from(raw as unknown as Uint8Array).equals(sent)).toBe(true);
    const typed = BSON.deserialize(raw as unknown as Uint8Array, { promoteValues: false, bsonRegExp: true });
    expect(typed.wholeDouble).toBeInstanceOf(Double);
    expect(typed.int64).toEqual(Long.fromString("9007199254740993"));
    expect(typed.before1970.getTime()).toBe(Date.UTC(1901, 0, 1));
    expect(Object.keys(typed.nested)).toEqual(["z", "a"]);
  });

  test("many typed documents survive a batched read unchanged", async () => {
    const documents = Array.from({ length: 300 }, createEveryTypeDocument);
    await db.collection<LooseDocument>("types-many").insertMany(documents);
    const raws = await db.collection<LooseDocument>("types-many").find({}, { raw: true, batchSize: 7 }).toArray();
    expect(raws.map((raw) => Buffer.from(raw as unknown as Uint8Array).toString("base64"))).toEqual(
      documents.map((document) => Buffer.from(BSON.serialize(document)).toString("base64")),
    );
  });

  test("an _id sent after other fields is moved first, as mongod stores it", async () => {
    await db.collection<LooseDocument>("id-order").insertOne({ b: 1, a: 2, _id: "late" });
    const [raw] = await db.collection<LooseDocument>("id-order").find({}, { raw: true }).toArray();
    expect(Object.keys(BSON.deserialize(raw as unknown as Uint8Array))).toEqual(["_id", "b", "a"]);
  });
});

function countReplies(commandName: string, since: number): number {
  return replies.slice(since).filter((event) => event.commandName === commandName).length;
}

describe("cursors", () => {
  test("several thousand documents arrive in order through many getMores", async () => {
    const documents = Array.from({ length: 5000 }, (_, i) => ({ _id: i, payload: `doc-${i}` }));
    await db.collection<LooseDocument>("thousands").insertMany(documents);
    const before = replies.length;
    const found = await db.collection<LooseDocument>("thousands").find({}, { batchSize: 100 }).toArray();
    expect(found.map((document) => document._id)).toEqual(documents.map((document) => document._id));
    // 49 getMores after a first batch of 100; a real mongod may need one more, empty, to see the end.
    expect(countReplies("getMore", before)).toBeGreaterThanOrEqual(49);
    expect(countReplies("getMore", before)).toBeLessThanOrEqual(50);
    expect(await db.collection<LooseDocument>("thousands").estimatedDocumentCount()).toBe(5000);
    expect(await db.collection<LooseDocument>("thousands").countDocuments({ _id: { $gte: 4000 } })).toBe(1000);
    expect(await db.collection<LooseDocument>("thousands").countDocuments({}, { skip: 10, limit: 25 })).toBe(25);
  });

  test("documents near 16 MiB are stored whole and sent one a batch", async () => {
    const fill = (size: number, byte: number) => new Binary(Buffer.alloc(size, byte));
    const almostMax = 16 * 1024 * 1024 - 64;
    const large = [1, 2, 3].map((n) => ({ _id: n, blob: fill(almostMax, n) }));
    await db.collection<LooseDocument>("large").insertMany(large);
    const before = replies.length;
    const found = await db.collection<LooseDocument>("large").find({}, { raw: true }).toArray();
    expect(found).toHaveLength(3);
    found.forEach((raw, i) => expect(Buffer.from(raw as unknown as Uint8Array).equals(Buffer.from(BSON.serialize(large[i]!)))).toBe(true));
    // Two documents of almost 16 MiB never share a batch: at least one getMore per later document.
    expect(countReplies("getMore", before)).toBeGreaterThanOrEqual(2);
    expect(countReplies("getMore", before)).toBeLessThanOrEqual(3);
    const exactlyMax = { _id: "max", blob: fill(16 * 1024 * 1024 - 29, 9) };
    expect(BSON.calculateObjectSize(exactlyMax)).toBe(16 * 1024 * 1024);
    await db.collection<LooseDocument>("large").insertOne(exactlyMax);
    expect(((await db.collection<LooseDocument>("large").findOne({ _id: "max" }))!.blob as Binary).length()).toBe(16 * 1024 * 1024 - 29);
    await db.collection<LooseDocument>("large").drop();
  });

  test("limit, skip, singleBatch and an early close leave no cursor behind", async () => {
    const collection = db.collection<LooseDocument>("thousands");
    expect((await collection.find({}).skip(10).limit(5).toArray()).map((document) => document._id)).toEqual([10, 11, 12, 13, 14]);
    const cursor = collection.find({}, { batchSize: 10 });
    await cursor.next();
    await cursor.close();
    const reply = await db.command({ find: "thousands", batchSize: 3, singleBatch: true });
    expect(reply.cursor.firstBatch).toHaveLength(3);
    expect(Number(reply.cursor.id)).toBe(0);
    const stale = await db.command({ getMore: Long.fromNumber(12345), collection: "thousands" }).catch((error) => error);
    expect(stale.code).toBe(43);
  });
});

describe("queries", () => {
  beforeAll(async () => {
    await db.collection<LooseDocument>("people").insertMany([
      { _id: 3, name: "Cleo", age: 41, address: { city: "Lyon" }, tags: ["admin", "ops"] },
      { _id: 1, name: "Ana", age: 29, address: { city: "Porto" }, tags: ["dev"] },
      { _id: 2, name: "Bo", age: new Double(35), address: { city: "Lyon" } },
      { _id: 4, name: "Dee", nickname: null },
    ]);
  });

  test("filters on top-level and dotted fields with comparison, $in and $exists", async () => {
    const people = db.collection<LooseDocument>("people");
    const ids = async (filter: object) => (await people.find(filter).toArray()).map((person) => person._id);
    expect(await ids({ "address.city": "Lyon" })).toEqual([3, 2]);
    expect(await ids({ age: { $gte: 35, $lt: 41 } })).toEqual([2]);
    expect(await ids({ name: { $in: ["Ana", "Dee"] } })).toEqual([1, 4]);
    expect(await ids({ age: { $exists: false } })).toEqual([4]);
    expect(await ids({ nickname: null })).toEqual([3, 1, 2, 4]);
    expect(await ids({ tags: "ops" })).toEqual([3]);
    expect(await ids({ _id: 2 })).toEqual([2]);
    expect(await ids({ _id: new Double(2) })).toEqual([2]);
  });

  test("sorts by _id and by other fields, both directions", async () => {
    const people = db.collection<LooseDocument>("people");
    expect((await people.find().sort({ _id: 1 }).toArray()).map((person) => person._id)).toEqual([1, 2, 3, 4]);
    expect((await people.find().sort({ age: -1 }).toArray()).map((person) => person._id)).toEqual([3, 2, 1, 4]);
  });

  test("$natural order both ways, with skip and limit (the oplog's first and last entry)", async () => {
    const people = db.collection<LooseDocument>("people");
    const natural = (await people.find().toArray()).map((person) => person._id);
    const read = async (direction: 1 | -1, skip: number, limit: number) =>
      (await people.find({}, { sort: { $natural: direction }, skip, limit }).toArray()).map((person) => person._id);
    expect(await read(1, 0, 1)).toEqual(natural.slice(0, 1));
    expect(await read(-1, 0, 1)).toEqual(natural.slice(-1));
    expect(await read(-1, 1, 2)).toEqual(natural.toReversed().slice(1, 3));
    expect(await read(1, 2, 10)).toEqual(natural.slice(2));
    expect(await read(-1, 0, 0)).toEqual(natural.toReversed());
  });

  test("top-level projection keeps or drops fields", async () => {
    expect(await db.collection<LooseDocument>("people").findOne({ _id: 1 }, { projection: { name: 1 } })).toEqual({ _id: 1, name: "Ana" });
    expect(await db.collection<LooseDocument>("people").findOne<object>({ _id: 1 }, { projection: { _id: 0, tags: 0, address: 0 } })).toEqual({
      name: "Ana",
      age: 29,
    });
  });

  test("aggregate handles $match, $sort, $count and $group; a view reads through its pipeline", async () => {
    const grouped = await db
      .collection<LooseDocument>("people")
      .aggregate([{ $group: { _id: "$address.city", n: { $sum: 1 } } }, { $sort: { _id: 1 } }])
      .toArray();
    expect(grouped).toEqual([
      { _id: null, n: 1 },
      { _id: "Lyon", n: 2 },
      { _id: "Porto", n: 1 },
    ]);
    expect(
      await db
        .collection<LooseDocument>("people")
        .aggregate([{ $match: { age: { $gt: 30 } } }, { $count: "older" }])
        .toArray(),
    ).toEqual([{ older: 2 }]);
    await db.createCollection("lyon", { viewOn: "people", pipeline: [{ $match: { "address.city": "Lyon" } }] });
    expect(
      (
        await db
          .collection<LooseDocument>("lyon")
          .find({ age: { $gt: 40 } })
          .toArray()
      ).map((person) => person.name),
    ).toEqual(["Cleo"]);
    const unknown = await db
      .collection<LooseDocument>("people")
      .aggregate([{ $bogus: {} }])
      .toArray()
      .catch((error) => error);
    expect(unknown.code).toBe(40324);
  });

  test("distinct returns each value once", async () => {
    expect((await db.collection<LooseDocument>("people").distinct("address.city")).sort()).toEqual(["Lyon", "Porto"]);
  });
});
