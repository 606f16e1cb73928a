// A backup with an oplog window is Verified only when it restores: the agent's ordinary
// verification (after each upload, and when the server asks again) replays the window into a
// scratch database as a restore would, unique indexes built after it. Two backups read while the
// application moved a unique key (delete A{x}, insert B{x}, change B to z, insert C{x}): one whose
// window holds the moves (restorable), one whose window lost the delete (x twice for good). Each
// must be either restorable or not Verified. A scripted server stands in for the server's download
// route; the runtime, the verification, the restore and the replica-set test server are real.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BSON, type Document, type MongoClient, Timestamp } from "mongodb";
import { type AgentMessage, AgentHeaders, agentApi } from "../../../../protocol/agent-protocol";
import { startReplicaSetWithClient, stopWithClient } from "../../../../testkit/mongo-server/replica-set/test-support.ts";
import type { MongoTestServer } from "../../../../testkit/mongo-server/server.ts";
import { encodeMasterKey, encryptBuffer } from "../../archive/index.ts";
import { loadConfig } from "../../config.ts";
import { CONSISTENT_POINT_MESSAGE } from "../../dump/builtin/oplog-window.ts";
import { writeMongodumpArchive } from "../../dump/mongodump-archive/index.ts";
import { createDaemonRuntime } from "../runtime.ts";
import { createTrustJobs } from "./trust-jobs.ts";

const KEY = Buffer.alloc(32, 7);
const TOKEN = "agent-token-1";
let rs: { server: MongoTestServer; client: MongoClient };
let dir: string;
let scripted: ReturnType<typeof Bun.serve>;
let configPath: string;
const files = new Map<string, Uint8Array>();

const NS = "keys.people";
let tick = 0;
const entry = (fields: Document) => BSON.serialize({ ts: new Timestamp({ t: 1_800_000_000, i: ++tick }), t: 1, v: 2, wall: new Date(), ns: NS, ...fields });

/** A backup of keys.people (unique email) holding `documents`, with `window` as its oplog. */
async function backupOf(documents: Document[], window: Document[]): Promise<Uint8Array> {
  const prelude = {
    collections: [
      {
        db: "keys",
        collection: "people",
        type: "collection",
        indexes: [
          { v: 2, key: { _id: 1 }, name: "_id_" },
          { v: 2, key: { email: 1 }, name: "email_1", unique: true },
        ],
      },
      { db: "", collection: "oplog" },
    ],
  };
  const items = [
    ...documents.map((document) => ({ kind: "document" as const, namespace: NS, bytes: BSON.serialize(document) })),
    ...[...window.map(entry), entry({ op: "n", ns: "", o: { msg: CONSISTENT_POINT_MESSAGE } })].map((bytes) => ({
      kind: "document" as const,
      namespace: ".oplog",
      bytes,
    })),
  ];
  const chunks: Uint8Array[] = [];
  for await (const chunk of writeMongodumpArchive(prelude, items)) chunks.push(chunk);
  return encryptBuffer(Buffer.concat(chunks), { masterKey: KEY });
}

// The dump read A{x} before the delete, B after its change to z, C after its insert.
const READ = [
  { _id: "a", email: "x" },
  { _id: "b", email: "z" },
  { _id: "c", email: "x" },
];
const MOVES = [
  { op: "d", o: { _id: "a" } },
  { op: "i", o: { _id: "b", email: "x" } },
  { op: "u", o: { $v: 2, diff: { u: { email: "z" } } }, o2: { _id: "b" } },
  { op: "i", o: { _id: "c", email: "x" } },
];

beforeAll(async () => {
  rs = await startReplicaSetWithClient();
  dir = await mkdtemp(join(tmpdir(), "dbvault-verify-replay-"));
  files.set("moved", await backupOf(READ, MOVES));
  files.set("lost-delete", await backupOf(READ, MOVES.slice(1)));
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
    databases: [{ name: "keys", uri: `${rs.server.uri}keys` }],
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
  await jobs.verifyBackup(backupId, "keys", { [NS]: READ.length });
  const reports = delivered.filter((message) => message.type === "backup.verified");
  expect(reports).toHaveLength(1);
  const restore = runtime
    .restore("keys", new Response(files.get(backupId) as Uint8Array<ArrayBuffer>).body!, {
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
    expect(verification).toEqual({ status: "ok", namespaces: { [NS]: 3, ".oplog": 5 } });
    expect(restore).toBe("restored");
    const people = await rs.client.db("restored_moved").collection(NS.split(".")[1]!).find().sort({ _id: 1 }).toArray();
    expect(people).toEqual([
      { _id: "b", email: "z" },
      { _id: "c", email: "x" },
    ] as never);
    expect(await databaseNames()).not.toContain("keys_dbvault_drill");
  }, 60_000);

  test("its window lost the delete: the verification fails naming the duplicate key, as the restore does", async () => {
    const { verification, restore } = await verify("lost-delete");
    expect(verification.status).toBe("failed");
    expect(verification.error).toMatch(
      /^the backup does not restore: building the index email_1 of keys_dbvault_drill\.people after replaying the backup's oplog failed.*E11000/,
    );
    expect(restore).toMatch(/building the index email_1 of restored_lost_delete\.people after replaying the backup's oplog failed.*E11000/);
    // The scratch database is gone; the database the backup came from was never touched.
    const names = await databaseNames();
    expect(names).not.toContain("keys_dbvault_drill");
    expect(names).not.toContain("keys");
  }, 60_000);
});
