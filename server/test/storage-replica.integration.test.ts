// STORAGE_REPLICA_URL end to end: the primary storage (S3) goes down while a backup uploads; the
// backup still completes on the replica (a folder), /metrics counts the primary's misses, the
// download is served from the replica, and once S3 is back the repair pass copies the backup to it.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { UPLOAD_PART_SIZE } from "@protocol/agent-protocol";
import { type S3Server, startS3Server } from "../../testkit/s3-server";
import { runReplicaRepair } from "../src/modules/storage-replica/service";
import { createStorage, ReplicatedStorage } from "../src/storage";
import { startTestServer, type TestServer } from "./harness";
import { registerScriptedAgent } from "./scripted-agent";

const TOKEN = "metrics-token-for-replica-tests-01";
const replicaDir = mkdtempSync(join(tmpdir(), "dbvault-replica-"));
let s3: S3Server;
let server: TestServer;
let base: string;

beforeAll(async () => {
  s3 = await startS3Server();
  server = await startTestServer({ STORAGE_URL: s3.url, STORAGE_REPLICA_URL: `file://${replicaDir}`, METRICS_TOKEN: TOKEN });
  base = server.listen();
});
afterAll(async () => {
  await server?.close();
  await s3?.stop();
  rmSync(replicaDir, { recursive: true, force: true });
});

const metric = async (name: string, labels: string) => {
  const text = await (await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
  const line = text.split("\n").find((l) => l.startsWith(`${name}{${labels}}`));
  return line ? Number(line.split(" ").at(-1)) : null;
};

test("a backup made while the primary S3 is down completes on the replica, is counted, downloads, and is repaired onto S3", async () => {
  expect(server.ctx.storage).toBeInstanceOf(ReplicatedStorage);
  expect(await metric("dbvault_storage_replica_failures_total", 'side="primary",operation="put"')).toBe(0);
  const user = await server.registerUser();
  const agent = await registerScriptedAgent(base, user.apiKey, ["orders"]);
  await agent.connect();
  expect((await server.call("POST", "/api/backups", { token: user.token, body: { databaseName: "orders" } })).status).toBe(201);
  const { backupId } = await agent.waitFor("backup");

  // The S3 server cuts every connection from now on, as one that was stopped would.
  await s3.injectFaults([{ drop: true, times: 1_000_000 }]);
  const bytes = randomBytes(UPLOAD_PART_SIZE + 12_345);
  const uploaded = await agent.upload(backupId, bytes);
  expect({ status: uploaded.status, body: uploaded.status === 200 ? null : await uploaded.text() }).toEqual({ status: 200, body: null });
  const backup = (await server.call("GET", `/api/backups/${backupId}`, { token: user.token })).body;
  expect(backup).toMatchObject({ status: "completed", size: bytes.byteLength });

  const replica = createStorage(`file://${replicaDir}`);
  const fileKey = `backups/${user.id}/${backupId}/backup.enc.dbvault`;
  expect((await replica.stat(fileKey))?.size).toBe(bytes.byteLength);
  expect(await replica.stat(`backups/${user.id}/${backupId}/manifest.json`)).not.toBeNull();
  expect(await metric("dbvault_storage_replica_failures_total", 'side="primary",operation="put"')).toBeGreaterThanOrEqual(2);
  expect(await metric("dbvault_storage_replica_missing_objects", 'side="primary"')).toBeGreaterThanOrEqual(2);
  expect(await metric("dbvault_storage_replica_missing_objects", 'side="replica"')).toBe(0);

  // The admin console says which side is down and what it lacks.
  const admin = await server.registerAdmin();
  const status = await server.call("GET", "/api/admin/stats/storage", { token: admin.token });
  expect(status.status).toBe(200);
  expect(status.body.replica.primary).toMatchObject({ ok: false, missingObjects: 2 });
  expect(status.body.replica.primary.failures).toBeGreaterThanOrEqual(2);
  expect(status.body.replica.replica).toEqual({ ok: true, problem: null, missingObjects: 0, failures: 0 });
  expect((await server.call("GET", "/api/admin/stats/storage", { token: user.token })).status).toBe(403);

  // Downloaded from the replica while S3 is still down.
  const download = await fetch(`${base}/api/backups/${backupId}/download`, { headers: { authorization: `Bearer ${user.token}` } });
  expect(download.status).toBe(200);
  expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);

  // S3 is back: the repair pass copies the backup (file and manifest) onto it.
  await s3.injectFaults([]);
  const report = await runReplicaRepair(server.ctx, { force: true });
  expect(report).toMatchObject({ copiedToPrimary: 2, missingOnPrimary: 0, missingOnReplica: 0 });
  const primary = createStorage(s3.url);
  expect((await primary.stat(fileKey))?.size).toBe(bytes.byteLength);
  expect(Buffer.from(await new Response(await primary.get(fileKey)).arrayBuffer()).equals(bytes)).toBe(true);
  expect(await metric("dbvault_storage_replica_missing_objects", 'side="primary"')).toBe(0);
}, 120_000);

test("the scheduled repair pass runs once per period across instances", async () => {
  const first = await runReplicaRepair(server.ctx);
  const second = await runReplicaRepair(server.ctx);
  expect([first === null, second === null].sort()).toEqual([false, true]);
});
