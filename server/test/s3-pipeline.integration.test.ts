// The backup pipeline with its backups in S3 (the s3rver test server) instead of the data
// directory: parts go through the server's streamed ingest into staged S3 objects, complete into
// one multipart-uploaded object, and download intact. The rest of the pipeline tests use the
// filesystem backend; this file checks the same path end to end on the other one.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { UPLOAD_PART_SIZE } from "@protocol/agent-protocol";
import { type S3Server, startS3Server } from "../../testkit/s3-server";
import { startTestServer, type TestServer } from "./harness";
import { registerScriptedAgent } from "./scripted-agent";

let s3: S3Server;
let server: TestServer;
let base: string;

beforeAll(async () => {
  s3 = await startS3Server();
  server = await startTestServer({ STORAGE_URL: s3.url });
  base = server.listen();
});
afterAll(async () => {
  await server?.close();
  await s3?.stop();
});

test("a multi-part backup lands in S3 byte for byte, and downloads whole and by range", async () => {
  const user = await server.registerUser();
  const agent = await registerScriptedAgent(base, user.apiKey, ["orders"]);
  await agent.connect();
  expect((await server.call("POST", "/api/backups", { token: user.token, body: { databaseName: "orders" } })).status).toBe(201);
  const command = await agent.waitFor("backup");
  // Parts of 8 MiB cross the S3 backend's 5 MiB part boundary, and chunks straddle it.
  const bytes = randomBytes(2 * UPLOAD_PART_SIZE + 777_777);
  expect((await agent.upload(command.backupId, bytes)).status).toBe(200);

  const backup = (await server.call("GET", `/api/backups/${command.backupId}`, { token: user.token })).body;
  expect(backup).toMatchObject({ status: "completed", size: bytes.byteLength });
  expect(backup.sha256).toBe(new Bun.CryptoHasher("sha256").update(bytes).digest("hex"));
  expect(await s3.pendingUploads()).toEqual([]);

  const auth = { authorization: `Bearer ${user.token}` };
  const whole = await fetch(`${base}/api/backups/${command.backupId}/download`, { headers: auth });
  expect(whole.status).toBe(200);
  expect(Buffer.from(await whole.arrayBuffer()).equals(bytes)).toBe(true);
  const start = UPLOAD_PART_SIZE - 10;
  const ranged = await fetch(`${base}/api/backups/${command.backupId}/download`, { headers: { ...auth, range: `bytes=${start}-${start + 19}` } });
  expect(Buffer.from(await ranged.arrayBuffer()).equals(bytes.subarray(start, start + 20))).toBe(true);
});

test("S3 failing while a part is stored or the parts are joined: the agent gets 503 with Retry-After, storage used stays right, and its retries complete the backup whole", async () => {
  const user = await server.registerUser();
  const agent = await registerScriptedAgent(base, user.apiKey, ["orders"]);
  await agent.connect();
  expect((await server.call("POST", "/api/backups", { token: user.token, body: { databaseName: "orders" } })).status).toBe(201);
  const { backupId } = await agent.waitFor("backup");
  const bytes = randomBytes(UPLOAD_PART_SIZE + 5000);
  const storageUsed = async () => (await server.call("GET", "/api/user/profile", { token: user.token })).body.storageUsed;

  // S3 throttles the part's PUT (the multipart upload's first part, every retry): nothing is counted.
  await s3.injectFaults([{ method: "PUT", pathIncludes: `.uploads/${backupId}/part-000000`, status: 503, code: "SlowDown", times: 10 }]);
  const throttled = await agent.uploadPart(backupId, 0, bytes.subarray(0, UPLOAD_PART_SIZE));
  expect(throttled.status).toBe(503);
  expect(throttled.headers.get("retry-after")).toMatch(/^\d+$/);
  expect(((await throttled.json()) as { message: string }).message).toContain("storage is temporarily unavailable");
  expect(await storageUsed()).toBe(0);
  await s3.injectFaults([]);
  expect((await agent.uploadPart(backupId, 0, bytes.subarray(0, UPLOAD_PART_SIZE))).status).toBe(200);
  expect((await agent.uploadPart(backupId, 1, bytes.subarray(UPLOAD_PART_SIZE))).status).toBe(200);

  // The connection to S3 dies while the server reads the second part back to join them.
  await s3.injectFaults([{ method: "GET", pathIncludes: `.uploads/${backupId}/part-000001`, cutAfterBytes: 1000, times: 1 }]);
  const cut = await agent.complete(backupId, bytes, 2);
  expect(cut.status).toBe(503);
  expect(cut.headers.get("retry-after")).toMatch(/^\d+$/);
  await s3.injectFaults([]);
  expect((await server.call("GET", `/api/backups/${backupId}`, { token: user.token })).body.status).toBe("in-progress");

  expect((await agent.complete(backupId, bytes, 2)).status).toBe(200);
  expect((await server.call("GET", `/api/backups/${backupId}`, { token: user.token })).body).toMatchObject({ status: "completed", size: bytes.byteLength });
  expect(await storageUsed()).toBe(bytes.byteLength);
  const download = await fetch(`${base}/api/backups/${backupId}/download`, { headers: { authorization: `Bearer ${user.token}` } });
  expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);
  expect(await s3.pendingUploads()).toEqual([]);
});

test("a download asked for while S3 does not answer gets 503 with Retry-After, then the redirect once S3 is back", async () => {
  const user = await server.registerUser();
  const agent = await registerScriptedAgent(base, user.apiKey, ["orders"]);
  await agent.connect();
  expect((await server.call("POST", "/api/backups", { token: user.token, body: { databaseName: "orders" } })).status).toBe(201);
  const { backupId } = await agent.waitFor("backup");
  const bytes = randomBytes(10_000);
  expect((await agent.upload(backupId, bytes)).status).toBe(200);

  const auth = { authorization: `Bearer ${user.token}` };
  await s3.injectFaults([{ method: "HEAD", status: 503, code: "SlowDown", times: 20 }]);
  const refused = await fetch(`${base}/api/backups/${backupId}/download`, { headers: auth, redirect: "manual" });
  await s3.injectFaults([]);
  expect(refused.status).toBe(503);
  expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
  const redirected = await fetch(`${base}/api/backups/${backupId}/download`, { headers: auth, redirect: "manual" });
  expect(redirected.status).toBe(302);
  expect(Buffer.from(await (await fetch(redirected.headers.get("location")!)).arrayBuffer()).equals(bytes)).toBe(true);
});
