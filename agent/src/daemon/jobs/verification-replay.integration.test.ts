// A backup with an oplog window is Verified only when it restores: the agent's ordinary
// verification (after each upload, and when the server asks again) replays the window into a
// scratch database as a restore would, unique indexes built after it. Two backups read while the
// application moved a unique key (delete A{x}, insert B{x}, change B to z, insert C{x}) on the
// replica-set test server, their windows read from its real oplog as the built-in dump reads them:
// one whole (restorable), one whose window lost the delete (x twice for good). Each must be either
// restorable or not Verified. The dump cannot be paused between two documents from here, so the
// collection is read as a dump's cursor interleaves with the writes (in _id order: a and m before
// them, the rest after). A scripted server stands in for the server's download route; the runtime,
// the verification, the restore and the replica-set test server are real.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BSON, type Document, type MongoClient } from "mongodb";
import { type AgentMessage, AgentHeaders, agentApi } from "../../../../protocol/agent-protocol";
import { startReplicaSetWithClient, stopWithClient } from "../../../../testkit/mongo-server/replica-set/test-support.ts";
import type { MongoTestServer } from "../../../../testkit/mongo-server/server.ts";
import { encodeMasterKey, encryptBuffer } from "../../archive/index.ts";
import { loadConfig } from "../../config.ts";
import { readOplogWindow } from "../../dump/builtin/oplog-window.ts";
import { writeMongodumpArchive } from "../../dump/mongodump-archive/index.ts";
import { readOplogStart } from "../../oplog/read-oplog.ts";
import { createDaemonRuntime } from "../runtime.ts";
import { createTrustJobs } from "./trust-jobs.ts";

const KEY = Buffer.alloc(32, 7);
const TOKEN = "agent-token-1";
let rs: { server: MongoTestServer; client: MongoClient };
let dir: string;
let scripted: ReturnType<typeof Bun.serve>;
let configPath: string;
const files = new Map<string, Uint8Array>();

const NS = "moving.people";

/** A backup of moving.people holding `documents` with `indexes`, and `window` (raw oplog entries, the consistent point last) as its oplog. */
async function backupOf(documents: Document[], indexes: Document[], window: Uint8Array[]): Promise<Uint8Array> {
  const prelude = {
    collections: [
      { db: "moving", collection: "people", type: "collection", indexes },
      { db: "", collection: "oplog" },
    ],
  };
  const items = [
    ...documents.map((document) => ({ kind: "document" as const, namespace: NS, bytes: BSON.serialize(document) })),
    ...window.map((bytes) => ({ kind: "document" as const, namespace: ".oplog", bytes })),
  ];
  const chunks: Uint8Array[] = [];
  for await (const chunk of writeMongodumpArchive(prelude, items)) chunks.push(chunk);
  return encryptBuffer(Buffer.concat(chunks), { masterKey: KEY });
}

/** Reads moving.people while the application moves a unique key, as a dump interleaves with it; answers the two backups. */
async function readWhileTheKeyMoves() {
  const people = rs.client.db("moving").collection<{ _id: string; email: string }>("people");
  await people.createIndex({ email: 1 }, { unique: true, name: "email_1" });
  await people.insertMany([
    { _id: "a", email: "x" },
    { _id: "m", email: "m" },
  ]);
  const start = await readOplogStart(rs.client);
  const readBefore = await people.find({}, { sort: { _id: 1 } }).toArray();
  await people.deleteOne({ _id: "a" });
  await people.insertOne({ _id: "b", email: "x" });
  await people.updateOne({ _id: "b" }, { $set: { email: "z" } });
  await people.insertOne({ _id: "y", email: "x" });
  const readAfter = await people.find({ _id: { $gt: "m" } }, { sort: { _id: 1 } }).toArray();
  const window: Uint8Array[] = [];
  const entries = readOplogWindow(rs.client, { kind: "replica-set", start }, "moving", rs.server.uri);
  for (let step = await entries.next(); !step.done; step = await entries.next()) window.push(...step.value);
  const documents = [...readBefore, ...readAfter];
  // The read holds x twice (A and C): only the window's replay resolves it.
  expect(documents.filter((document) => document.email === "x").map((document) => document._id)).toEqual(["a", "y"]);
  const indexes = await people.listIndexes().toArray();
  const lostDelete = window.filter((entry) => BSON.deserialize(entry).op !== "d");
  expect(lostDelete).toHaveLength(window.length - 1);
  return { moved: await backupOf(documents, indexes, window), lostDelete: await backupOf(documents, indexes, lostDelete), windowLength: window.length };
}

let windowLength = 0;

beforeAll(async () => {
  rs = await startReplicaSetWithClient();
  dir = await mkdtemp(join(tmpdir(), "dbvault-verify-replay-"));
  const backups = await readWhileTheKeyMoves();
  files.set("moved", backups.moved);
  files.set("lost-delete", backups.lostDelete);
  windowLength = backups.windowLength;
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
  configPath = join(dir, "agent.json");
  const config = {
    version: 1,
    masterKey: encodeMasterKey(KEY),
    databases: [{ name: "moving", uri: `${rs.server.uri}moving` }],
    tools: { mode: "builtin" },
    server: { url: `http://127.0.0.1:${scripted.port}`, apiKey: "key-1", agentId: "agent-1", agentToken: TOKEN },
  };
  await writeFile(configPath, JSON.stringify(config), { mode: 0o600 });
}, 60_000);
afterAll(async () => {
  scripted?.stop(true);
  await stopWithClient(rs);
  await rm(dir, { recursive: true, force: true });
});

async function verify(backupId: string) {
  const runtime = createDaemonRuntime({ configPath, config: await loadConfig(configPath), hello: { hostname: "test", platform: "linux" }, log: () => {} });
  const delivered: AgentMessage[] = [];
  const jobs = createTrustJobs({ runtime, deliver: (message) => delivered.push(message), send: () => {}, signal: new AbortController().signal });
  await jobs.verifyBackup(backupId, "moving", { [NS]: 3 });
  const reports = delivered.filter((message) => message.type === "backup.verified");
  expect(reports).toHaveLength(1);
  const restore = runtime
    .restore("moving", new Response(files.get(backupId) as Uint8Array<ArrayBuffer>).body!, {
      onProgress: () => {},
      signal: new AbortController().signal,
      targetDatabase: `restored_${backupId.replace("-", "_")}`,
    })
    .then(
      () => "restored",
      (error: Error) => error.message,
    );
  return { verification: (reports[0] as Extract<AgentMessage, { type: "backup.verified" }>).verification, restore: await restore };
}

const databaseNames = async () =>
  (await rs.client.db("admin").command({ listDatabases: 1, nameOnly: true })).databases.map((entry: { name: string }) => entry.name);

describe("a backup read while a unique key moved is either restorable or not Verified", () => {
  test("its window holds the moves: Verified, and it restores", async () => {
    const { verification, restore } = await verify("moved");
    expect(verification).toEqual({ status: "ok", namespaces: { [NS]: 3, ".oplog": windowLength } });
    expect(restore).toBe("restored");
    const people = await rs.client.db("restored_moved").collection(NS.split(".")[1]!).find().sort({ _id: 1 }).toArray();
    expect(people).toEqual([
      { _id: "b", email: "z" },
      { _id: "m", email: "m" },
      { _id: "y", email: "x" },
    ] as never);
    expect(await databaseNames()).not.toContain("moving_dbvault_drill");
  }, 60_000);

  test("its window lost the delete: the verification fails naming the duplicate key, as the restore does", async () => {
    const { verification, restore } = await verify("lost-delete");
    expect(verification.status).toBe("failed");
    expect(verification.error).toMatch(
      /^the backup does not restore: building the index email_1 of moving_dbvault_drill\.people after replaying the backup's oplog failed.*E11000/,
    );
    expect(restore).toMatch(/building the index email_1 of restored_lost_delete\.people after replaying the backup's oplog failed.*E11000/);
    // The scratch database is gone.
    expect(await databaseNames()).not.toContain("moving_dbvault_drill");
  }, 60_000);
});
