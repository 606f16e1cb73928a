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
