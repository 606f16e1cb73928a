// The moment a backup holds, through the running agent and the server: a backup of a replica set
// records consistentAt (T1 as a time and as the oplog timestamp {t, i}, within the dump's oplog
// window), a backup of a standalone server records that it is not point-in-time consistent, and
// the backups API returns both. An agent report whose time contradicts its timestamp is refused.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { MongoClient, type Timestamp } from "mongodb";
import { type MongoTestServer, startMongoTestServer } from "../../testkit/mongo-server/index.ts";
import type { LooseDocument } from "../../testkit/mongo-server/test-support.ts";
import { waitUntil } from "../../testkit/wait-until.ts";
import { startAgentProcess, runSetup } from "./support/end-to-end.ts";
import { useEndToEndWorld, waitForBackupEnd } from "./support/end-to-end-world.ts";
import { apiFor } from "./support/server-faults.ts";

const world = useEndToEndWorld();
let replicaSet: MongoTestServer;
beforeAll(async () => {
  replicaSet = await startMongoTestServer({ replicaSet: { name: "rs0" } });
});
afterAll(async () => {
  await replicaSet.stop();
});

async function newestOplogTimestamp(uri: string): Promise<Timestamp> {
  const client = await new MongoClient(uri, { serverSelectionTimeoutMS: 5000 }).connect();
  try {
    const entry = await client
      .db("local")
      .collection("oplog.rs")
      .findOne({}, { sort: { $natural: -1 } });
    return entry!.ts as Timestamp;
  } finally {
    await client.close();
  }
}

/** A new user whose running agent backs up `uri` once; the backup as the API returns it, and the user's API. */
async function backUpThroughAgent(uri: string) {
  const user = await world.server.registerUser();
  const api = apiFor(world.base, user.token);
  const setup = await runSetup({ baseUrl: world.base, apiKey: user.apiKey, databases: [{ name: "main", uri }], directory: await world.env.makeTempDir() });
  expect(setup.exitCode).toBe(0);
  world.agents.push(startAgentProcess(setup.configPath));
  await waitUntil(async () => (await api("GET", "/api/settings/system-status")).body.agents[0]?.status === "active", {
    message: "the agent to be online",
    timeout: 30_000,
  });
  const created = await api("POST", "/api/backups", { databaseName: "main" });
  expect(created.status).toBe(201);
  return { backup: await waitForBackupEnd(api, created.body._id, 60_000), api };
}

test("a backup of a replica set records T1 as consistentAt, within the oplog of the backup's time", async () => {
  const client = await new MongoClient(replicaSet.uri, { serverSelectionTimeoutMS: 5000 }).connect();
  await client.db("shop").collection<LooseDocument>("orders").insertOne({ _id: 1 });
  await client.close();
  const before = await newestOplogTimestamp(replicaSet.uri);
  const { backup, api } = await backUpThroughAgent(replicaSet.uri.replace(/\/?(\?|$)/, "/shop$1"));
  const after = await newestOplogTimestamp(replicaSet.uri);
  expect(backup.status).toBe("completed");
  expect(backup.consistency).toBe("point-in-time");
  const { t, i } = backup.consistentAt.ts;
  // T1 is an entry of the oplog between what it held before the backup and after it.
  expect(t * 2 ** 32 + i).toBeGreaterThanOrEqual(before.high * 2 ** 32 + before.low);
  expect(t * 2 ** 32 + i).toBeLessThanOrEqual(after.high * 2 ** 32 + after.low);
  expect(backup.consistentAt.time).toBe(new Date(t * 1000).toISOString());
  // The oplog namespace the archive now holds reads back like any other.
  const verified = await waitUntil(async () => (await api("GET", `/api/backups/${backup.id}`)).body.verification, {
    message: "the backup to be verified",
    timeout: 30_000,
  });
  expect(verified.status).toBe("ok");
  expect(Object.keys(verified.namespaces)).toContain(".oplog");
  const listed = (await api("GET", "/api/backups")).body;
  expect(JSON.stringify(listed)).toContain(JSON.stringify({ consistency: "point-in-time", consistentAt: backup.consistentAt }).slice(1, -1));
}, 120_000);

test("a backup of a standalone server records that it is not point-in-time consistent", async () => {
  const database = world.env.uniqueDatabase("standalone");
  await world.env.client.db(database).collection<LooseDocument>("orders").insertOne({ _id: 1 });
  const { backup } = await backUpThroughAgent(world.env.uriFor(database));
  expect(backup.status).toBe("completed");
  expect({ consistency: backup.consistency, consistentAt: backup.consistentAt }).toEqual({ consistency: "standalone", consistentAt: null });
}, 120_000);
