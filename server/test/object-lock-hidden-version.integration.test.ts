// A backup's file hidden in a locked bucket (issue 46 §3): someone holding the server's S3 keys
// puts a delete marker on it, or overwrites it with other bytes. Object Lock keeps the version
// DBVault wrote, and the server now serves that version (GetObject with its versionId) instead of
// answering 410 "missing from storage" or handing out the overwrite. On SeaweedFS with COMPLIANCE
// Object Lock, over real HTTP with a scripted agent.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash, randomBytes } from "node:crypto";
import { backups } from "@db/schema";
import { eq } from "drizzle-orm";
import { agentApi } from "@protocol/agent-protocol";
import { backupStorage } from "../src/modules/stored-files/keys";
import { findSeaweedFs, type SeaweedFsServer, startSeaweedFs } from "../../testkit/seaweedfs";
import { startTestServer, type TestServer, type TestUser } from "./harness";
import { uploadSlice, userShippingPitr } from "./pitr-support";
import { registerScriptedAgent, type ScriptedAgent } from "./scripted-agent";

const { missing } = findSeaweedFs();
const BUCKET = "dbvault-hidden";

let s3: SeaweedFsServer;
let server: TestServer;
let base: string;

beforeAll(async () => {
  if (missing) return;
  s3 = await startSeaweedFs();
  server = await startTestServer({ STORAGE_URL: await s3.createBucket(BUCKET), STORAGE_OBJECT_LOCK: "compliance" });
  base = server.listen();
}, 120_000);
afterAll(async () => {
  await server?.close();
  await s3?.stop();
});

const objectUrl = (key: string) => `${s3.endpoint}/${BUCKET}/${key}`;

/** A completed backup of `bytes`; answers its file's key. */
async function completedBackup(): Promise<{ user: TestUser; agent: ScriptedAgent; backupId: string; bytes: Buffer; key: string }> {
  const user = await server.registerUser();
  const agent = await registerScriptedAgent(base, user.apiKey, ["orders"]);
  await agent.connect();
  await server.call("POST", "/api/backups", { token: user.token, body: { databaseName: "orders" } });
  const { backupId } = await agent.waitFor("backup");
  const bytes = randomBytes(3000);
  expect((await agent.upload(backupId, bytes)).status).toBe(200);
  return { user, agent, backupId, bytes, key: backupStorage.file(user.id, backupId) };
}

const download = (user: TestUser, backupId: string, headers: Record<string, string> = {}) =>
  fetch(`${base}/api/backups/${backupId}/download`, { headers: { authorization: `Bearer ${user.token}`, ...headers }, redirect: "follow" });

describe.skipIf(missing !== null)(`a backup's file hidden through S3 in a locked bucket (SeaweedFS)${missing ? `: skipped, ${missing}` : ""}`, () => {
  test("behind a delete marker: the user's and the agent's downloads get the locked version, whole and by range", async () => {
    const { user, agent, backupId, bytes, key } = await completedBackup();
    const hidden = await s3.s3.fetch(objectUrl(key), { method: "DELETE" });
    expect(hidden.status).toBe(204);
    expect((await s3.s3.fetch(objectUrl(key))).status).toBe(404);

    const whole = await download(user, backupId);
    expect(whole.status).toBe(200);
    expect(Buffer.from(await whole.arrayBuffer()).equals(bytes)).toBe(true);
    const ranged = await download(user, backupId, { range: "bytes=100-199" });
    expect(ranged.status).toBe(206);
    expect(Buffer.from(await ranged.arrayBuffer()).equals(bytes.subarray(100, 200))).toBe(true);
    const byAgent = await fetch(`${base}${agentApi.download(backupId)}`, { headers: agent.headers(), redirect: "follow" });
    expect(Buffer.from(await byAgent.arrayBuffer()).equals(bytes)).toBe(true);
  });

  test("overwritten with other bytes: the download is the locked version DBVault wrote, not the overwrite", async () => {
    const { user, backupId, bytes, key } = await completedBackup();
    const overwritten = await s3.s3.fetch(objectUrl(key), { method: "PUT", body: "not a dbvault backup file" });
    expect(overwritten.status).toBe(200);

    const whole = await download(user, backupId);
    expect(whole.status).toBe(200);
    expect(Buffer.from(await whole.arrayBuffer()).equals(bytes)).toBe(true);
  });

  test("overwritten with as many other bytes: the SHA-256 recorded at upload tells, and the locked version is served", async () => {
    const { user, agent, backupId, bytes, key } = await completedBackup();
    const warnings: unknown[] = [];
    const warn = server.ctx.log.warn;
    server.ctx.log.warn = (message: string, fields?: unknown) => void warnings.push({ message, fields });
    try {
      const overwritten = await s3.s3.fetch(objectUrl(key), { method: "PUT", body: randomBytes(bytes.length) });
      expect(overwritten.status).toBe(200);
      const overwriteVersion = overwritten.headers.get("x-amz-version-id");

      const whole = await download(user, backupId);
      expect(whole.status).toBe(200);
      expect(Buffer.from(await whole.arrayBuffer()).equals(bytes)).toBe(true);
      const ranged = await download(user, backupId, { range: "bytes=10-19" });
      expect(Buffer.from(await ranged.arrayBuffer()).equals(bytes.subarray(10, 20))).toBe(true);
      const byAgent = await fetch(`${base}${agentApi.download(backupId)}`, { headers: agent.headers(), redirect: "follow" });
      expect(Buffer.from(await byAgent.arrayBuffer()).equals(bytes)).toBe(true);
      // The operator is told which version to bring back (docs/restore.md), and it is not the overwrite.
      const named = warnings.find((warning) => (warning as { message: string }).message === "a stored file was hidden in S3; serving its locked version") as
        | { fields: { key: string; versionId: string } }
        | undefined;
      expect(named?.fields.key).toBe(key);
      expect(named?.fields.versionId).not.toBe(overwriteVersion);
    } finally {
      server.ctx.log.warn = warn;
    }
  });

  test("an oplog slice behind a delete marker, and one overwritten with as many bytes: each download is the slice shipped", async () => {
    const { user, agent, databaseId } = await userShippingPitr(server, base, "orders");
    const chain = "c".repeat(32);
    const pos = (t: number) => `${1_800_000_000 + t},1`;
    const marked = await uploadSlice(server.ctx, base, agent, "orders", { chain, sequence: 0, start: pos(0), end: pos(10) });
    const overwritten = await uploadSlice(server.ctx, base, agent, "orders", { chain, sequence: 1, start: pos(10), end: pos(20) });
    expect((await s3.s3.fetch(objectUrl(marked.storageKey), { method: "DELETE" })).status).toBe(204);
    expect((await s3.s3.fetch(objectUrl(overwritten.storageKey), { method: "PUT", body: randomBytes(overwritten.bytes.length) })).status).toBe(200);

    for (const { id, bytes } of [marked, overwritten]) {
      const answer = await fetch(`${base}/api/pitr/databases/${databaseId}/slices/${id}/download`, {
        headers: { authorization: `Bearer ${user.token}` },
        redirect: "follow",
      });
      expect(answer.status).toBe(200);
      expect(Buffer.from(await answer.arrayBuffer()).equals(bytes)).toBe(true);
    }
  });

  test("a newer version of the same size that DBVault recorded (a rewrapped header) is served as it is", async () => {
    const { user, backupId, bytes, key } = await completedBackup();
    const rewritten = randomBytes(bytes.length);
    expect((await s3.s3.fetch(objectUrl(key), { method: "PUT", body: rewritten })).status).toBe(200);
    // What replaceStoredHeader records after writing the file anew.
    const sha256 = createHash("sha256").update(rewritten).digest("hex");
    await server.ctx.db.update(backups).set({ sha256 }).where(eq(backups.id, backupId));

    const whole = await download(user, backupId);
    expect(Buffer.from(await whole.arrayBuffer()).equals(rewritten)).toBe(true);
  });
});
