// A storage failure says what failed (issue 46 §4): the 503 that refuses an agent's part names the
// cause (the S3 endpoint refused the connection; S3 answered SlowDown), which the agent puts in the
// backup's error, its e-mail and its webhook (agent/test/storage-failure-reason.integration.test.ts
// shows it on a full disk). Never the endpoint, the bucket, a key or the access keys. Over real
// HTTP against the s3rver test server, stopped or answering errors.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
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

/** A backup the agent was told to start; `part()` uploads its first part and answers status and body. */
async function runningBackup() {
  const user = await server.registerUser();
  const agent = await registerScriptedAgent(base, user.apiKey, ["orders"]);
  await agent.connect();
  expect((await server.call("POST", "/api/backups", { token: user.token, body: { databaseName: "orders" } })).status).toBe(201);
  const { backupId } = await agent.waitFor("backup");
  const part = async () => {
    const answer = await agent.uploadPart(backupId, 0, randomBytes(4000));
    const text = await answer.text();
    return { status: answer.status, text, message: (JSON.parse(text) as { message: string }).message };
  };
  return { backupId, part };
}

/** Nothing that locates or opens the storage: its address, bucket, access keys, the object's key. */
function expectNothingInternal(text: string, backupId: string) {
  for (const internal of [new URL(s3.endpoint).host, s3.bucket, s3.accessKeyId, s3.secretAccessKey, backupId]) expect(text).not.toContain(internal);
}

describe("S3 failing under a part upload", () => {
  test("throttling: the 503 says S3 answered SlowDown", async () => {
    const { backupId, part } = await runningBackup();
    await s3.injectFaults([{ method: "PUT", status: 503, code: "SlowDown", times: 5 }]);
    const refused = await part();
    await s3.injectFaults([]);
    expect(refused.status).toBe(503);
    expect(refused.message).toBe("Backup storage is temporarily unavailable on the server: S3 answered SlowDown. Please try again later.");
    expectNothingInternal(refused.text, backupId);
  });

  test("refused credentials: the 503 says so, naming S3's code only", async () => {
    const { backupId, part } = await runningBackup();
    await s3.injectFaults([{ method: "PUT", status: 403, code: "InvalidAccessKeyId", times: 5 }]);
    const refused = await part();
    await s3.injectFaults([]);
    expect(refused.message).toBe(
      "Backup storage is temporarily unavailable on the server: S3 does not know the server's access key (InvalidAccessKeyId). Please try again later.",
    );
    expectNothingInternal(refused.text, backupId);
  });

  // Last: the S3 server stays stopped.
  test("the S3 endpoint stopped: the 503 says it refused the connection", async () => {
    const { backupId, part } = await runningBackup();
    await s3.stop();
    const refused = await part();
    expect(refused.status).toBe(503);
    expect(refused.message).toBe("Backup storage is temporarily unavailable on the server: the S3 endpoint refused the connection. Please try again later.");
    expectNothingInternal(refused.text, backupId);
  });
});
