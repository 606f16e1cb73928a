// Connecting with the official driver, server-level commands, the legacy OP_QUERY handshake,
// authentication and the CLI entry point.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { BSON } from "bson";
import { MongoClient, MongoServerError } from "mongodb";
import { mongoTestTarget, startMongoTestServer } from "./index";
import { type TestConnection, createDatabaseName, openTestConnection } from "./test-support";

let connection: TestConnection;
beforeAll(async () => {
  connection = await openTestConnection();
});
afterAll(() => connection.close());

describe("driver handshake and server commands", () => {
  test("the driver connects and ping answers ok: 1", async () => {
    expect(await connection.client.db("admin").command({ ping: 1 })).toEqual({ ok: 1 });
  });

  test("hello describes a writable standalone with MongoDB 7.0's limits", async () => {
    const hello = await connection.client.db("admin").command({ hello: 1 });
    expect(hello.isWritablePrimary).toBe(true);
    expect(hello.setName).toBeUndefined();
    expect(hello.maxBsonObjectSize).toBe(16 * 1024 * 1024);
    expect(hello.maxMessageSizeBytes).toBe(48_000_000);
    expect(hello.maxWriteBatchSize).toBe(100_000);
    expect(hello.maxWireVersion).toBeGreaterThanOrEqual(21);
    expect(hello.logicalSessionTimeoutMinutes).toBe(30);
    const build = await connection.client.db("admin").command({ buildInfo: 1 });
    expect(build.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(build.versionArray[0]).toBeGreaterThanOrEqual(7);
  });

  test("an unknown command fails with MongoDB's CommandNotFound shape", async () => {
    const failure = await connection.client
      .db("admin")
      .command({ frobnicate: 1 })
      .catch((error) => error);
    expect(failure).toBeInstanceOf(MongoServerError);
    expect(failure.errorResponse).toMatchObject({ ok: 0, errmsg: "no such command: 'frobnicate'", code: 59, codeName: "CommandNotFound" });
  });

  test("listDatabases lists databases with collections, with sizes, and only on admin", async () => {
    const name = createDatabaseName("listdb");
    await connection.client.db(name).collection("c").insertOne({ x: 1 });
    const listing = await connection.client.db("admin").admin().listDatabases();
    const entry = listing.databases.find((database) => database.name === name);
    expect(entry).toMatchObject({ name, empty: false });
    expect(Number(entry!.sizeOnDisk)).toBeGreaterThan(0);
    const names = await connection.client.db("admin").command({ listDatabases: 1, nameOnly: true, filter: { name } });
    expect(names.databases).toEqual([{ name }]);
    const elsewhere = await connection.client
      .db(name)
      .command({ listDatabases: 1 })
      .catch((error) => error);
    expect(elsewhere.code).toBe(13);
    await connection.client.db(name).dropDatabase();
    const after = await connection.client.db("admin").admin().listDatabases({ nameOnly: true });
    expect(after.databases.map((database) => database.name)).not.toContain(name);
  });

  test("transactions are refused as on a standalone mongod", async () => {
    const session = connection.client.startSession();
    const name = createDatabaseName("txn");
    try {
      session.startTransaction();
      const failure = await connection.client
        .db(name)
        .collection("c")
        .insertOne({ a: 1 }, { session })
        .catch((error) => error);
      // The driver turns mongod's code 20 answer into this advice, as it does for a real standalone.
      expect(failure.message).toContain("does not support retryable writes");
    } finally {
      await session.endSession();
    }
  });

  test("many clients at once each see their own writes and everyone else's", async () => {
    const name = createDatabaseName("concurrent");
    const clients = await Promise.all(Array.from({ length: 8 }, () => new MongoClient(connection.target.uri).connect()));
    try {
      await connection.client.db(name).collection("c").createIndex({ slot: 1 }, { unique: true, sparse: true });
      await Promise.all(
        clients.map(async (client, worker) => {
          const collection = client.db(name).collection("c");
          for (let batch = 0; batch < 5; batch++) {
            await collection.insertMany(Array.from({ length: 50 }, (_, i) => ({ worker, batch, i })));
          }
          expect(await collection.countDocuments({ worker })).toBe(250);
        }),
      );
      const race = await Promise.allSettled(clients.map((client) => client.db(name).collection("c").insertOne({ slot: "only-one" })));
      expect(race.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(1);
      expect(await connection.client.db(name).collection("c").countDocuments()).toBe(8 * 250 + 1);
    } finally {
      await connection.client.db(name).dropDatabase();
      await Promise.all(clients.map((client) => client.close()));
    }
  });
});

function sendLegacyQuery(port: number, namespace: string, command: object): Promise<Record<string, unknown>> {
  const query = Buffer.from(BSON.serialize(command));
  const name = Buffer.from(`${namespace}\0`);
  const header = Buffer.alloc(20);
  header.writeInt32LE(20 + name.length + 8 + query.length, 0);
  header.writeInt32LE(42, 4);
  header.writeInt32LE(2004, 12); // OP_QUERY
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write(Buffer.concat([header, name, Buffer.alloc(8), query])));
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      const reply = Buffer.concat(chunks);
      if (reply.length < 4 || reply.length < reply.readInt32LE(0)) return;
      socket.end();
      expect(reply.readInt32LE(8)).toBe(42); // responseTo
      expect(reply.readInt32LE(12)).toBe(1); // OP_REPLY
      resolve(BSON.deserialize(reply.subarray(36)));
    });
    socket.on("error", reject);
  });
}

describe("legacy OP_QUERY", () => {
  test("answers isMaster on admin.$cmd with an OP_REPLY, and refuses other legacy commands", async () => {
    const server = await startMongoTestServer();
    try {
      const hello = await sendLegacyQuery(server.port, "admin.$cmd", { isMaster: 1, helloOk: true });
      expect(hello).toMatchObject({ ismaster: true, helloOk: true, maxWireVersion: 21, ok: 1 });
      const find = await sendLegacyQuery(server.port, "test.$cmd", { find: "c" });
      expect(find).toMatchObject({ ok: 0, code: 352 });
    } finally {
      await server.stop();
    }
  });

  test("an unacknowledged (w: 0) insert is applied without a reply being sent", async () => {
    const name = createDatabaseName("w0");
    await connection.client
      .db(name)
      .collection("c")
      .insertOne({ fireAndForget: true }, { writeConcern: { w: 0 } });
    expect(await connection.client.db(name).collection("c").countDocuments({ fireAndForget: true })).toBe(1);
    await connection.client.db(name).dropDatabase();
  });
});

describe("authentication (SCRAM-SHA-256)", () => {
  test("the right password connects, a wrong one fails with AuthenticationFailed, no credentials are Unauthorized", async () => {
    const server = await startMongoTestServer({ users: [{ username: "agent", password: "s3cret pass" }] });
    const base = `mongodb://%s@127.0.0.1:${server.port}/?authSource=admin&serverSelectionTimeoutMS=3000`;
    try {
      const good = await new MongoClient(base.replace("%s", "agent:s3cret%20pass")).connect();
      expect(await good.db("x").command({ ping: 1 })).toEqual({ ok: 1 });
      expect((await good.db("admin").command({ connectionStatus: 1 })).authInfo.authenticatedUsers).toEqual([{ user: "agent", db: "admin" }]);
      await good.close();
      const wrong = await new MongoClient(base.replace("%s", "agent:nope")).connect().catch((error) => error);
      expect(wrong.code).toBe(18);
      expect(wrong.message).toContain("Authentication failed");
      const anonymous = await new MongoClient(`mongodb://127.0.0.1:${server.port}/`).connect();
      const refused = await anonymous
        .db("x")
        .collection("c")
        .findOne({})
        .catch((error) => error);
      expect(refused.code).toBe(13);
      await anonymous.close();
    } finally {
      await server.stop();
    }
  });
});

describe("entry points", () => {
  test("the CLI prints a working URI on its first stdout line", async () => {
    const child = Bun.spawn([process.execPath, `${import.meta.dir}/main.ts`, "--port", "0"], { stdout: "pipe", stderr: "inherit" });
    try {
      const reader = child.stdout.getReader();
      let text = "";
      while (!text.includes("\n")) {
        const { value, done } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
      const uri = text.split("\n")[0]!;
      expect(uri).toMatch(/^mongodb:\/\/127\.0\.0\.1:\d+\/$/);
      const client = await new MongoClient(uri).connect();
      expect(await client.db("admin").command({ ping: 1 })).toEqual({ ok: 1 });
      await client.close();
    } finally {
      child.kill();
      await child.exited;
    }
  });

  test("the CLI refuses an unknown argument with a hint and exit code 2", async () => {
    const child = Bun.spawn([process.execPath, `${import.meta.dir}/main.ts`, "--bogus"], { stdout: "pipe", stderr: "pipe" });
    expect(await child.exited).toBe(2);
    const stderr = await new Response(child.stderr).text();
    expect(stderr).toContain("mongo-test-server: unknown argument '--bogus'");
    expect(stderr).toContain("hint: usage:");
    expect(await new Response(child.stdout).text()).toBe("");
  });

  test("mongoTestTarget uses MONGODB_TEST_URI when set and never stops that server", async () => {
    const saved = process.env.MONGODB_TEST_URI;
    const server = await startMongoTestServer();
    try {
      process.env.MONGODB_TEST_URI = server.uri;
      const target = await mongoTestTarget();
      expect(target).toMatchObject({ uri: server.uri, kind: "real" });
      await target.stop();
      const client = await new MongoClient(server.uri).connect();
      expect(await client.db("admin").command({ ping: 1 })).toEqual({ ok: 1 });
      await client.close();
      delete process.env.MONGODB_TEST_URI;
      const own = await mongoTestTarget();
      expect(own.kind).toBe("test-server");
      expect(own.uri).not.toBe(server.uri);
      await own.stop();
    } finally {
      if (saved === undefined) delete process.env.MONGODB_TEST_URI;
      else process.env.MONGODB_TEST_URI = saved;
      await server.stop();
    }
  });
});
