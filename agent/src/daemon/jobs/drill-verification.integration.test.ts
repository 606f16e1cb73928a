// A drill that finds the backup itself does not restore fails the backup's verification too, so
// it is never shown Verified nor taken as a point-in-time base (the server skips a failed one).
// The backup holds a unique key twice that its oplog does not resolve: what a dump read while the
// key moved would hold had its window lost the delete. A scripted server stands in for the
// server's download route; the runtime, the drill and the replica-set test server are real.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BSON, type MongoClient, Timestamp } from "mongodb";
import { type AgentMessage, AgentHeaders, agentApi, type ServerMessage } from "../../../../protocol/agent-protocol";
import { startReplicaSetWithClient, stopWithClient } from "../../../../testkit/mongo-server/replica-set/test-support.ts";
import type { MongoTestServer } from "../../../../testkit/mongo-server/server.ts";
import { encodeMasterKey, encryptBuffer } from "../../archive/index.ts";
import { loadConfig } from "../../config.ts";
import { CONSISTENT_POINT_MESSAGE } from "../../dump/builtin/oplog-window.ts";
import { writeMongodumpArchive } from "../../dump/mongodump-archive/index.ts";
import { createDaemonRuntime } from "../runtime.ts";
import { createTrustJobs } from "./trust-jobs.ts";

const KEY = Buffer.alloc(32, 5);
const TOKEN = "agent-token-1";
let rs: { server: MongoTestServer; client: MongoClient };
let dir: string;
let scripted: ReturnType<typeof Bun.serve>;
let configPath: string;
let file: Uint8Array;

async function unrestorableBackup(): Promise<Uint8Array> {
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
    { kind: "document" as const, namespace: "keys.people", bytes: BSON.serialize({ _id: "a", email: "x" }) },
    { kind: "document" as const, namespace: "keys.people", bytes: BSON.serialize({ _id: "y", email: "x" }) },
    {
      kind: "document" as const,
      namespace: ".oplog",
      bytes: BSON.serialize({ op: "n", ns: "", ts: new Timestamp({ t: 1_800_000_000, i: 1 }), o: { msg: CONSISTENT_POINT_MESSAGE } }),
    },
  ];
  const chunks: Uint8Array[] = [];
  for await (const chunk of writeMongodumpArchive(prelude, items)) chunks.push(chunk);
  return encryptBuffer(Buffer.concat(chunks), { masterKey: KEY });
}

beforeAll(async () => {
  rs = await startReplicaSetWithClient();
  dir = await mkdtemp(join(tmpdir(), "dbvault-drill-verify-"));
  file = await unrestorableBackup();
  scripted = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      const url = new URL(request.url);
      if (request.headers.get(AgentHeaders.agentToken) !== TOKEN || url.pathname !== agentApi.download("backup-1")) {
        return Response.json({ message: "not found" }, { status: 404 });
      }
      return new Response(file as Uint8Array<ArrayBuffer>);
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

test("a drill meeting a unique key the backup's oplog does not resolve fails the drill and the backup's verification", async () => {
  const runtime = createDaemonRuntime({ configPath, config: await loadConfig(configPath), hello: { hostname: "test", platform: "linux" }, log: () => {} });
  const delivered: AgentMessage[] = [];
  const jobs = createTrustJobs({ runtime, deliver: (message) => delivered.push(message), send: () => {}, signal: new AbortController().signal });
  const command: Extract<ServerMessage, { type: "drill" }> = {
    type: "drill",
    restoreId: "drill-1",
    backupId: "backup-1",
    databaseName: "keys",
    size: file.byteLength,
    scratchDatabase: "keys_dbvault_drill",
  } as never;
  await jobs.runDrill(command);
  const failed = delivered.find((message) => message.type === "restore.failed") as { error: string } | undefined;
  expect(failed?.error).toMatch(/^drill failed: .*building the index email_1 of keys_dbvault_drill\.people after replaying the backup's oplog failed/);
  const verified = delivered.find((message) => message.type === "backup.verified") as
    | { backupId: string; verification: { status: string; error: string } }
    | undefined;
  expect(verified?.backupId).toBe("backup-1");
  expect(verified?.verification.status).toBe("failed");
  expect(verified?.verification.error).toMatch(/^a restore drill found the backup does not restore: .*E11000/);
  // The drill's scratch database is gone; nothing else was written.
  const names = (await rs.client.db("admin").command({ listDatabases: 1, nameOnly: true })).databases.map((entry: { name: string }) => entry.name);
  expect(names).not.toContain("keys_dbvault_drill");
}, 60_000);
