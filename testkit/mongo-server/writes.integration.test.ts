// Writes as a restore performs them: duplicate keys reported in MongoDB's exact shape, ordered and
// unordered batches, and the updates and deletes tests use to set up data.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createConnection } from "node:net";
import { BSON, Double, Int32, ObjectId } from "bson";
import { type Db, MongoBulkWriteError, MongoServerError } from "mongodb";
import { type LooseDocument, type TestConnection, createDatabaseName, openTestConnection } from "./test-support";

let connection: TestConnection;
let db: Db;
beforeAll(async () => {
  connection = await openTestConnection();
  db = connection.client.db(createDatabaseName("writes"));
});
afterAll(async () => {
  await db.dropDatabase();
  await connection.close();
});

describe("duplicate keys", () => {
  test("a second document with the same _id fails with E11000 naming the _id_ index", async () => {
    const collection = db.collection<LooseDocument>("dup-id");
    const id = new ObjectId("65a1b2c3d4e5f60718293a4b");
    await collection.insertOne({ _id: id });
    const failure = await collection.insertOne({ _id: id }).catch((error) => error);
    expect(failure).toBeInstanceOf(MongoServerError);
    expect(failure.code).toBe(11000);
    expect(failure.message).toBe(
      `E11000 duplicate key error collection: ${db.databaseName}.dup-id index: _id_ dup key: { _id: ObjectId('65a1b2c3d4e5f60718293a4b') }`,
    );
    expect(failure.keyPattern).toEqual({ _id: 1 });
    expect(failure.keyValue).toEqual({ _id: id });
  });

  test("numerically equal _ids of different types collide, as in MongoDB", async () => {
    await db.collection<LooseDocument>("dup-numeric").insertOne({ _id: new Int32(1) });
    expect(
      (
        await db
          .collection<LooseDocument>("dup-numeric")
          .insertOne({ _id: new Double(1) })
          .catch((error) => error)
      ).code,
    ).toBe(11000);
  });

  test("a unique index rejects a repeated value and names itself and the value", async () => {
    const collection = db.collection<LooseDocument>("dup-email");
    await collection.createIndex({ email: 1 }, { unique: true });
    await collection.insertOne({ email: "a@example.com" });
    const failure = await collection.insertOne({ email: "a@example.com" }).catch((error) => error);
    expect(failure.code).toBe(11000);
    expect(failure.message).toContain(`collection: ${db.databaseName}.dup-email index: email_1 dup key: { email: "a@example.com" }`);
    expect(failure.keyValue).toEqual({ email: "a@example.com" });
  });

  test("a compound unique index compares the whole key; sparse and partial indexes skip what they exclude", async () => {
    const compound = db.collection<LooseDocument>("dup-compound");
    await compound.createIndex({ tenant: 1, slug: 1 }, { unique: true });
    await compound.insertMany([
      { tenant: 1, slug: "a" },
      { tenant: 2, slug: "a" },
    ]);
    expect((await compound.insertOne({ tenant: 1, slug: "a" }).catch((error) => error)).code).toBe(11000);

    const sparse = db.collection<LooseDocument>("dup-sparse");
    await sparse.createIndex({ handle: 1 }, { unique: true, sparse: true });
    await sparse.insertMany([{ x: 1 }, { x: 2 }]);
    const plain = db.collection<LooseDocument>("dup-missing");
    await plain.createIndex({ handle: 1 }, { unique: true });
    await plain.insertOne({ x: 1 });
    expect((await plain.insertOne({ x: 2 }).catch((error) => error)).message).toContain("dup key: { handle: null }");

    const partial = db.collection<LooseDocument>("dup-partial");
    await partial.createIndex({ code: 1 }, { unique: true, partialFilterExpression: { active: true } });
    await partial.insertMany([
      { code: "x", active: false },
      { code: "x", active: false },
      { code: "x", active: true },
    ]);
    expect((await partial.insertOne({ code: "x", active: true }).catch((error) => error)).code).toBe(11000);
  });

  test("building a unique index over existing duplicates fails and leaves no index", async () => {
    const collection = db.collection<LooseDocument>("dup-build");
    await collection.insertMany([{ k: 1 }, { k: 1 }]);
    const failure = await collection.createIndex({ k: 1 }, { unique: true }).catch((error) => error);
    expect(failure.code).toBe(11000);
    expect((await collection.indexes()).map((index) => index.name)).toEqual(["_id_"]);
  });
});

describe("batches", () => {
  test("an unordered insert keeps going past errors and reports each with its index", async () => {
    const collection = db.collection<LooseDocument>("unordered");
    await collection.insertOne({ _id: 2 });
    const failure = await collection.insertMany([{ _id: 1 }, { _id: 2 }, { _id: 3 }, { _id: 1 }, { _id: 4 }], { ordered: false }).catch((error) => error);
    expect(failure).toBeInstanceOf(MongoBulkWriteError);
    expect(failure.result.insertedCount).toBe(3);
    expect(failure.writeErrors.map((error: { index: number; code: number }) => [error.index, error.code])).toEqual([
      [1, 11000],
      [3, 11000],
    ]);
    expect((await collection.find().toArray()).map((document) => document._id)).toEqual([2, 1, 3, 4]);
  });

  test("an ordered insert stops at the first error", async () => {
    const collection = db.collection<LooseDocument>("ordered");
    const failure = await collection.insertMany([{ _id: 1 }, { _id: 1 }, { _id: 2 }]).catch((error) => error);
    expect(failure.result.insertedCount).toBe(1);
    expect(failure.writeErrors).toHaveLength(1);
    expect(await collection.countDocuments()).toBe(1);
  });

  test("the raw insert reply has MongoDB's shape", async () => {
    await db.collection<LooseDocument>("raw-reply").insertOne({ _id: 1 });
    const reply = await db.command({ insert: "raw-reply", documents: [{ _id: 1 }, { _id: 2 }], ordered: false });
    expect(reply.n).toBe(1);
    expect(reply.ok).toBe(1);
    expect(reply.writeErrors).toHaveLength(1);
    expect(Object.keys(reply.writeErrors[0])).toEqual(["index", "code", "keyPattern", "keyValue", "errmsg"]);
  });
});

describe("updates and deletes", () => {
  test("$set, $inc and $unset change only what they name; numeric types are kept", async () => {
    const collection = db.collection<LooseDocument>("updates");
    await collection.insertOne({ _id: 1, count: new Int32(1), ratio: new Double(1), name: "a", gone: true });
    const result = await collection.updateOne({ _id: 1 }, { $set: { name: "b", "deep.field": 1 }, $inc: { count: 2, ratio: 1 }, $unset: { gone: "" } });
    expect(result).toMatchObject({ matchedCount: 1, modifiedCount: 1 });
    const updated = await collection.findOne({ _id: 1 }, { promoteValues: false });
    expect(updated).toEqual({ _id: new Int32(1), count: new Int32(3), ratio: new Double(2), name: "b", deep: { field: new Int32(1) } });
  });

  test("updateMany, upsert and replaceOne report MongoDB's counts", async () => {
    const collection = db.collection<LooseDocument>("updates-many");
    await collection.insertMany([{ g: 1 }, { g: 1 }, { g: 2 }]);
    expect(await collection.updateMany({ g: 1 }, { $set: { seen: true } })).toMatchObject({ matchedCount: 2, modifiedCount: 2 });
    expect(await collection.updateMany({ g: 1 }, { $set: { seen: true } })).toMatchObject({ matchedCount: 2, modifiedCount: 0 });
    const upsert = await collection.updateOne({ key: "new" }, { $set: { v: 1 }, $setOnInsert: { created: true } }, { upsert: true });
    expect(upsert.upsertedCount).toBe(1);
    expect(await collection.findOne<object>({ _id: upsert.upsertedId! }, { projection: { _id: 0 } })).toEqual({ key: "new", v: 1, created: true });
    await collection.replaceOne({ key: "new" }, { replaced: true });
    expect(await collection.findOne<object>({ _id: upsert.upsertedId! }, { projection: { _id: 0 } })).toEqual({ replaced: true });
  });

  test("an update that would break a unique index fails with E11000 and changes nothing", async () => {
    const collection = db.collection<LooseDocument>("updates-unique");
    await collection.createIndex({ u: 1 }, { unique: true });
    await collection.insertMany([
      { _id: 1, u: "a" },
      { _id: 2, u: "b" },
    ]);
    expect((await collection.updateOne({ _id: 2 }, { $set: { u: "a" } }).catch((error) => error)).code).toBe(11000);
    expect(await collection.findOne({ _id: 2 })).toEqual({ _id: 2, u: "b" });
    expect((await collection.updateOne({ _id: 2 }, { $set: { _id: 3 } }).catch((error) => error)).code).toBe(66);
  });

  test("deleteOne removes one match and deleteMany all of them", async () => {
    const collection = db.collection<LooseDocument>("deletes");
    await collection.insertMany([{ k: 1 }, { k: 1 }, { k: 1 }, { k: 2 }]);
    expect((await collection.deleteOne({ k: 1 })).deletedCount).toBe(1);
    expect((await collection.deleteMany({ k: 1 })).deletedCount).toBe(2);
    expect(await collection.countDocuments()).toBe(1);
  });
});

// mongod reads a message's length first and closes the connection, answering nothing, when it
// passes maxMessageSizeBytes (48,000,000); a message of exactly that size is read. A client that
// sends one insert too big therefore sees the connection drop and nothing inserted.
describe("the message size limit", () => {
  const MAX_MESSAGE_SIZE_BYTES = 48_000_000;

  /** An OP_MSG insert of three documents into `collection`, padded to exactly `bytes` bytes. */
  function frameInsert(collection: string, bytes: number): Buffer {
    const body = Buffer.from(BSON.serialize({ insert: collection, $db: db.databaseName, ordered: false }));
    const fixed = 16 + 4 + 1 + body.length + 1 + 4 + "documents\0".length;
    const fillers = [0, 1, 2].map(() => 0);
    const sizes = () => [0, 1, 2].map((i) => BSON.calculateObjectSize({ _id: i, filler: "x".repeat(fillers[i]!) }));
    const room = bytes - fixed;
    const base = sizes().reduce((sum, size) => sum + size, 0);
    fillers[0] = fillers[1] = Math.floor((room - base) / 3);
    fillers[2] = room - base - fillers[0] - fillers[1];
    const documents = [0, 1, 2].map((i) => Buffer.from(BSON.serialize({ _id: i, filler: "x".repeat(fillers[i]!) })));
    const sequenceSize = Buffer.alloc(4);
    sequenceSize.writeInt32LE(4 + "documents\0".length + documents.reduce((sum, document) => sum + document.length, 0));
    const header = Buffer.alloc(20);
    const message = Buffer.concat([header, Buffer.from([0]), body, Buffer.from([1]), sequenceSize, Buffer.from("documents\0"), ...documents]);
    message.writeInt32LE(message.length, 0);
    message.writeInt32LE(1, 4); // requestID
    message.writeInt32LE(2013, 12); // OP_MSG
    expect(message.length).toBe(bytes);
    return message;
  }

  /** Sends one message on a fresh connection; answers the reply's body, or "closed" when the server hung up first. */
  function sendAlone(message: Buffer): Promise<LooseDocument | "closed"> {
    const { hostname, port } = new URL(connection.target.uri);
    return new Promise((resolve, reject) => {
      const socket = createConnection({ host: hostname, port: Number(port) }, () => socket.write(message));
      const chunks: Buffer[] = [];
      socket.on("data", (chunk: Buffer) => {
        chunks.push(chunk);
        const received = Buffer.concat(chunks);
        if (received.length >= 4 && received.length >= received.readInt32LE(0)) {
          socket.destroy();
          resolve(BSON.deserialize(received.subarray(21, received.readInt32LE(0))) as LooseDocument);
        }
      });
      socket.on("close", () => resolve("closed"));
      socket.on("error", (error: NodeJS.ErrnoException) => (error.code === "ECONNRESET" || error.code === "EPIPE" ? resolve("closed") : reject(error)));
    });
  }

  test("a message of maxMessageSizeBytes + 1 closes the connection unanswered and inserts nothing", async () => {
    expect(await sendAlone(frameInsert("too-big", MAX_MESSAGE_SIZE_BYTES + 1))).toBe("closed");
    expect(await db.collection("too-big").countDocuments()).toBe(0);
  }, 60_000);

  test("a message of exactly maxMessageSizeBytes is read and inserted", async () => {
    const reply = await sendAlone(frameInsert("just-fits", MAX_MESSAGE_SIZE_BYTES));
    expect(reply).toMatchObject({ ok: 1, n: 3 });
    expect(await db.collection("just-fits").countDocuments()).toBe(3);
  }, 60_000);
});
