// A restore into another connection the agent knows (issue 44): the server's restore command names
// the connection by the name it was added under (`db add`) and the target database; the agent
// resolves the name to its own connection string, here a second MongoDB test server, and restores
// there with the staged swap. The backup's own server is left untouched, and a restore that fails
// before its swap leaves the target database as it was. A scripted server stands in for the
// server's download route; the runtime, the restore job and both MongoDB test servers are real.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BSON, type Document, MongoClient } from "mongodb";
import { type AgentMessage, AgentHeaders, agentApi } from "../../../../protocol/agent-protocol";
import { type MongoTestServer, startMongoTestServer } from "../../../../testkit/mongo-server/server.ts";
import { encodeMasterKey, encryptBuffer } from "../../archive/index.ts";
import { loadConfig } from "../../config.ts";
import { writeMongodumpArchive } from "../../dump/mongodump-archive/index.ts";
import { createDaemonRuntime } from "../runtime.ts";
import { runRestoreJob } from "./restore-job.ts";

const KEY = Buffer.alloc(32, 9);
const TOKEN = "agent-token-1";
const ID_INDEX = { v: 2, key: { _id: 1 }, name: "_id_" };
const EMAIL_INDEX = { v: 2, key: { email: 1 }, name: "email_1", unique: true };
let source: { server: MongoTestServer; client: MongoClient };
let other: { server: MongoTestServer; client: MongoClient };
let dir: string;
let scripted: ReturnType<typeof Bun.serve>;
let configPath: string;
const files = new Map<string, Uint8Array>();

/** A backup of shop.orders holding `documents` with `indexes`, as the agent uploads it. */
async function backupOf(documents: Document[], indexes: Document[]): Promise<Uint8Array> {
  const prelude = { collections: [{ db: "shop", collection: "orders", type: "collection", indexes }] };
  const items = documents.map((document) => ({ kind: "document" as const, namespace: "shop.orders", bytes: BSON.serialize(document) }));
  const chunks: Uint8Array[] = [];
  for await (const chunk of writeMongodumpArchive(prelude, items)) chunks.push(chunk);
  return encryptBuffer(Buffer.concat(chunks), { masterKey: KEY });
}

async function startServer() {
  const server = await startMongoTestServer();
  return { server, client: await new MongoClient(server.uri, { serverSelectionTimeoutMS: 5000 }).connect() };
}

beforeAll(async () => {
  source = await startServer();
  other = await startServer();
  await source.client
    .db("shop")
    .collection("orders")
    .insertMany([{ _id: "live-1" as never, email: "live@shop" }]);
  // What the target connection already holds under the target's name: a restore replaces it only when it succeeds.
  await other.client
    .db("shop_restored")
    .collection("orders")
    .insertOne({ _id: "old" as never, email: "old@staging" });
  files.set(
    "good",
    await backupOf(
      [
        { _id: "o1", email: "a@x" },
        { _id: "o2", email: "b@x" },
      ],
      [ID_INDEX, EMAIL_INDEX],
    ),
  );
  // Two orders with one email under a unique index: the index build in staging fails, before any swap.
  files.set(
    "bad",
    await backupOf(
      [
        { _id: "o1", email: "a@x" },
        { _id: "o2", email: "a@x" },
      ],
      [ID_INDEX, EMAIL_INDEX],
    ),
  );
  scripted = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      const url = new URL(request.url);
      const id = [...files.keys()].find((backupId) => url.pathname === agentApi.download(backupId));
      if (request.headers.get(AgentHeaders.agentToken) !== TOKEN || !id) return Response.json({ message: "not found" }, { status: 404 });
      return new Response(files.get(id) as Uint8Array<ArrayBuffer>);
    },
  });
  dir = await mkdtemp(join(tmpdir(), "dbvault-restore-elsewhere-"));
  configPath = join(dir, "agent.json");
  const config = {
    version: 1,
    masterKey: encodeMasterKey(KEY),
    databases: [
      { name: "shop", uri: `${source.server.uri}shop` },
      // The other connection, by its display name; its URI names a database of its own.
      { name: "staging", uri: `${other.server.uri}reports` },
    ],
    tools: { mode: "builtin" },
    server: { url: `http://127.0.0.1:${scripted.port}`, apiKey: "key-1", agentId: "agent-1", agentToken: TOKEN },
  };
  await writeFile(configPath, JSON.stringify(config), { mode: 0o600 });
}, 60_000);

afterAll(async () => {
  scripted?.stop(true);
  for (const peer of [source, other]) {
    await peer?.client.close();
    await peer?.server.stop();
  }
  await rm(dir, { recursive: true, force: true });
});

/** Runs the restore command the server sends for a restore into `targetDatabase` on the connection "staging". */
async function restoreIntoStaging(backupId: string) {
  const runtime = createDaemonRuntime({ configPath, config: await loadConfig(configPath), hello: { hostname: "test", platform: "linux" }, log: () => {} });
  const delivered: AgentMessage[] = [];
  await runRestoreJob(
    { runtime, deliver: (message) => delivered.push(message), send: () => {}, signal: new AbortController().signal },
    { type: "restore", restoreId: `r-${backupId}`, backupId, databaseName: "staging", size: files.get(backupId)!.length, targetDatabase: "shop_restored" },
  );
  return delivered.filter((message) => message.type === "restore.completed" || message.type === "restore.failed");
}

const orders = (peer: { client: MongoClient }, database: string) => peer.client.db(database).collection("orders").find().sort({ _id: 1 }).toArray();
const databaseNames = async (peer: { client: MongoClient }) =>
  ((await peer.client.db("admin").command({ listDatabases: 1, nameOnly: true })).databases as { name: string }[]).map((entry) => entry.name).sort();

describe("a restore into another connection, named as the agent added it", () => {
  test("a failing restore replaces nothing there; a good one restores there, and the backup's own server is untouched", async () => {
    const sourceDatabases = await databaseNames(source);

    const failed = await restoreIntoStaging("bad");
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ type: "restore.failed", restoreId: "r-bad" });
    expect((failed[0] as { error: string }).error).toMatch(/E11000[\s\S]*nothing was changed$/);
    expect(await orders(other, "shop_restored")).toEqual([{ _id: "old", email: "old@staging" }] as never);

    const completed = await restoreIntoStaging("good");
    expect(completed).toEqual([{ type: "restore.completed", restoreId: "r-good", stats: { "shop_restored.orders": { restored: 2, failed: 0 } } }]);
    expect(await orders(other, "shop_restored")).toEqual([
      { _id: "o1", email: "a@x" },
      { _id: "o2", email: "b@x" },
    ] as never);
    const indexes = await other.client.db("shop_restored").collection("orders").listIndexes().toArray();
    expect(indexes.map((index) => index.name).sort()).toEqual(["_id_", "email_1"]);
    // No staging database left behind on the target, and nothing written on the backup's own server.
    expect((await databaseNames(other)).filter((name) => name.startsWith("shop_restored"))).toEqual(["shop_restored"]);
    expect(await databaseNames(source)).toEqual(sourceDatabases);
    expect(await orders(source, "shop")).toEqual([{ _id: "live-1", email: "live@shop" }] as never);
  }, 60_000);
});
