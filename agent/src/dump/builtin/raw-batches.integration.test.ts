// Raw batches against the test server over loopback: the archive built from whole batches must
// be byte for byte the one built from the driver's documents, every getMore must ride the find's
// session, and a reader stopped early must release the server's cursor.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Binary, Decimal128, Long, MongoClient, ObjectId, Timestamp } from "mongodb";
import { startMongoTestServer, type MongoTestServer } from "../../../../testkit/mongo-server/index.ts";
import type { LooseDocument } from "../../../../testkit/mongo-server/test-support.ts";
import { ArchiveEncoder } from "../mongodump-archive/index.ts";
import { ProgressTracker } from "../progress-tracker.ts";
import { dumpWithDriver } from "./dump.ts";
import { canReadRawBatches, readRawBatches } from "./raw-batches.ts";

let server: MongoTestServer;
let client: MongoClient;
const prelude = { header: { serverVersion: "7.0.14", concurrentCollections: 1 }, collections: [{ db: "raw", collection: "mixed" }] };

beforeAll(async () => {
  server = await startMongoTestServer();
  client = await new MongoClient(server.uri).connect();
  const documents = Array.from({ length: 2_345 }, (_, i) => ({
    _id: i % 3 === 0 ? new ObjectId() : i,
    text: "é".repeat(i % 40),
    long: Long.fromNumber(i * 1e9),
    decimal: Decimal128.fromString(`${i}.25`),
    at: new Timestamp({ t: i, i: 1 }),
    bytes: new Binary(new Uint8Array(i % 300)),
    nested: { list: [i, { deeper: [null, true] }] },
  }));
  await client.db("raw").collection<LooseDocument>("mixed").insertMany(documents);
});

afterAll(async () => {
  await client?.close();
  await server?.stop();
});

function encode(write: (encoder: ArchiveEncoder) => Promise<void>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  const encoder = new ArchiveEncoder(prelude, { chunkBytes: 4096 }, (chunk) => void chunks.push(chunk.slice()), true);
  return write(encoder).then(() => {
    encoder.finish();
    return Buffer.concat(chunks);
  });
}

describe("raw batches", () => {
  test("the archive from whole batches equals the one from the driver's documents, byte for byte", async () => {
    expect(await canReadRawBatches(client)).toBe(true);
    const fromDriver = await encode(async (encoder) => {
      for await (const document of client.db("raw").collection("mixed").find({}, { raw: true })) {
        encoder.writeDocument("raw.mixed", document as unknown as Uint8Array);
      }
    });
    let documents = 0;
    let batches = 0;
    const session = client.startSession();
    const fromBatches = await encode(async (encoder) => {
      for await (const batch of readRawBatches(client.db("raw"), "mixed", session, 1000)) {
        documents += encoder.writeBatch("raw.mixed", batch.bytes, batch.start, batch.end);
        batches++;
      }
    });
    await session.endSession();
    expect(documents).toBe(2_345);
    expect(batches).toBe(3);
    expect(Buffer.compare(fromBatches, fromDriver)).toBe(0);
  });

  test("a batch's reply is freed once the next batch is asked for, not left to the collector", async () => {
    const session = client.startSession();
    try {
      const batches = readRawBatches(client.db("raw"), "mixed", session, 1000);
      const first = (await batches.next()).value!;
      expect(first.bytes.buffer.byteLength).toBeGreaterThan(64 * 1024);
      const second = (await batches.next()).value!;
      expect(first.bytes.buffer.byteLength).toBe(0);
      expect(second.end - second.start).toBeGreaterThan(0);
      await batches.return();
    } finally {
      await session.endSession();
    }
  });

  test("every getMore runs in the find's session, and stopping early kills the cursor", async () => {
    const seen: { name: string; lsid: unknown }[] = [];
    server.intercept(({ name, body }) => void seen.push({ name, lsid: (body.lsid as { id?: Binary } | undefined)?.id?.toString("hex") }));
    const session = client.startSession();
    try {
      const batches = readRawBatches(client.db("raw"), "mixed", session, 500);
      await batches.next();
      await batches.next();
      await batches.return();
    } finally {
      server.intercept(undefined);
      await session.endSession();
    }
    const cursorCommands = seen.filter((command) => ["find", "getMore", "killCursors"].includes(command.name));
    expect(cursorCommands.map((command) => command.name)).toEqual(["find", "getMore", "killCursors"]);
    expect(new Set(cursorCommands.map((command) => command.lsid)).size).toBe(1);
    expect(cursorCommands[0]!.lsid).toBeDefined();
    expect(server.cursors.openCount).toBe(0);
  });
});

describe("the dump's two ways of reading", () => {
  async function dump(uri: string): Promise<Buffer> {
    const chunks: Uint8Array[] = [];
    const counts: Record<string, number> = {};
    const request = { uri, database: "raw", signal: undefined, tracker: new ProgressTracker(undefined), counts, usersAndRoles: false };
    await dumpWithDriver(request, (bytes) => void chunks.push(bytes.slice()));
    expect(counts).toEqual({ "raw.mixed": 2_345 });
    return Buffer.concat(chunks);
  }

  test("where a getMore could reach another server the driver's cursor reads, into the same archive", async () => {
    const elsewhere = `${server.uri}?readPreference=secondaryPreferred`;
    const secondary = await new MongoClient(elsewhere).connect();
    try {
      expect(await canReadRawBatches(secondary)).toBe(false);
    } finally {
      await secondary.close();
    }
    expect(Buffer.compare(await dump(elsewhere), await dump(server.uri))).toBe(0);
  });

  test("the read concern of the connection string reaches the raw find, as it reaches the driver's", async () => {
    const finds: unknown[] = [];
    server.intercept(({ name, body }) => void (name === "find" && finds.push(body.readConcern)));
    try {
      await dump(`${server.uri}?readConcernLevel=majority`);
      await dump(server.uri);
    } finally {
      server.intercept(undefined);
    }
    expect(finds).toEqual([{ level: "majority" }, undefined]);
  });
});
