// The part of issue 27's attack moto cannot play (it takes any PutObjectRetention as asked): the
// thief holds the server's own S3 keys and tries to shorten the COMPLIANCE retention of a stored
// backup's file and manifest, or of an oplog slice, so as to delete them early. On SeaweedFS's S3 gateway, which enforces
// retention changes (testkit/seaweedfs.ts), every shortening is refused, with or without the
// governance bypass header, the lock date stays, deletes are still refused, and every stored
// version is byte-identical. The rest of the Object Lock tests stay on moto.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash, randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { backups } from "@db/schema";
import { findSeaweedFs, type SeaweedFsServer, startSeaweedFs } from "../../testkit/seaweedfs";
import { backupStorage } from "../src/modules/stored-files/keys";
import { startTestServer, type TestServer } from "./harness";
import { uploadSlice, userShippingPitr } from "./pitr-support";
import { registerScriptedAgent } from "./scripted-agent";

const { missing } = findSeaweedFs();
const BUCKET = "dbvault-attacked";
const MINUTE = 60_000;

let s3: SeaweedFsServer;
let server: TestServer;
let base: string;

beforeAll(async () => {
  if (missing) return;
  s3 = await startSeaweedFs();
  server = await startTestServer({ STORAGE_URL: await s3.createBucket(BUCKET), STORAGE_OBJECT_LOCK: "compliance" });
  base = server.listen();
});
afterAll(async () => {
  await server?.close();
  await s3?.stop();
});

const objectUrl = (key: string, query = "") => `${s3.endpoint}/${BUCKET}/${key}${query}`;
const sha256 = (bytes: ArrayBuffer) => createHash("sha256").update(new Uint8Array(bytes)).digest("hex");

/** Every stored version of `key` with the SHA-256 of its bytes and the lock S3 reports on it. */
async function versionsOf(key: string) {
  const listing = await (await s3.s3.fetch(`${s3.endpoint}/${BUCKET}?versions&prefix=${encodeURIComponent(key)}`)).text();
  const versions: { versionId: string; sha256: string; mode: string | null; retainUntil: string | null }[] = [];
  for (const [, block] of listing.matchAll(/<Version>([\s\S]*?)<\/Version>/g)) {
    if (/<Key>([^<]+)<\/Key>/.exec(block!)![1] !== key) continue;
    const versionId = /<VersionId>([^<]+)<\/VersionId>/.exec(block!)![1]!;
    const read = await s3.s3.fetch(objectUrl(key, `?versionId=${encodeURIComponent(versionId)}`));
    expect(read.status).toBe(200);
    versions.push({
      versionId,
      mode: read.headers.get("x-amz-object-lock-mode"),
      retainUntil: read.headers.get("x-amz-object-lock-retain-until-date"),
      sha256: sha256(await read.arrayBuffer()),
    });
  }
  return versions;
}

/** PutObjectRetention on one version, as the thief sends it with the bucket's own keys. */
async function putRetention(key: string, versionId: string, mode: "COMPLIANCE" | "GOVERNANCE", until: Date, headers: Record<string, string> = {}) {
  const body = `<Retention xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Mode>${mode}</Mode><RetainUntilDate>${until.toISOString()}</RetainUntilDate></Retention>`;
  const md5 = createHash("md5").update(body).digest("base64");
  return s3.s3.fetch(objectUrl(key, `?retention&versionId=${encodeURIComponent(versionId)}`), {
    method: "PUT",
    body,
    headers: { "content-md5": md5, "content-type": "application/xml", ...headers },
  });
}

/**
 * Tries every shortening of every version's COMPLIANCE lock of `key`, and a bypassing delete, with
 * the bucket's own keys: each is refused, and every version stays, byte for byte, under its lock.
 */
async function expectEveryShorteningRefused(key: string) {
  const before = await versionsOf(key);
  expect(before.length).toBeGreaterThan(0);
  for (const { versionId, mode, retainUntil } of before) {
    expect(mode).toBe("COMPLIANCE");
    expect(new Date(retainUntil!).getTime()).toBeGreaterThan(Date.now() + 24 * 60 * MINUTE);
    const soon = new Date(Date.now() + MINUTE);
    // Shorter, the same mode; shorter as GOVERNANCE (to then bypass it); both with the bypass header.
    for (const attempt of [
      await putRetention(key, versionId, "COMPLIANCE", soon),
      await putRetention(key, versionId, "GOVERNANCE", soon),
      await putRetention(key, versionId, "COMPLIANCE", soon, { "x-amz-bypass-governance-retention": "true" }),
      await putRetention(key, versionId, "GOVERNANCE", soon, { "x-amz-bypass-governance-retention": "true" }),
    ]) {
      expect(attempt.status).toBe(403);
      expect(await attempt.text()).toContain("AccessDenied");
    }
    const deletion = await s3.s3.fetch(objectUrl(key, `?versionId=${encodeURIComponent(versionId)}`), {
      method: "DELETE",
      headers: { "x-amz-bypass-governance-retention": "true" },
    });
    expect(deletion.status).toBe(403);
  }
  // Every version still there, byte for byte, under the lock it had.
  expect(await versionsOf(key)).toEqual(before);
}

describe.skipIf(missing !== null)(`shortening a COMPLIANCE lock with the server's S3 keys (SeaweedFS)${missing ? `: skipped, ${missing}` : ""}`, () => {
  test("every shortening of a backup's file and manifest lock is refused; the lock, the bytes and the backup stay", async () => {
    const user = await server.registerUser();
    const agent = await registerScriptedAgent(base, user.apiKey, ["orders"]);
    await agent.connect();
    await server.call("POST", "/api/backups", { token: user.token, body: { databaseName: "orders" } });
    const { backupId } = await agent.waitFor("backup");
    await server.ctx.db
      .update(backups)
      .set({ createdAt: new Date(Date.now() - MINUTE) })
      .where(eq(backups.id, backupId));
    expect((await agent.upload(backupId, randomBytes(1000))).status).toBe(200);
    const keys = [backupStorage.file(user.id, backupId), backupStorage.manifest(user.id, backupId)];

    for (const key of keys) await expectEveryShorteningRefused(key);
    expect((await server.call("GET", `/api/backups/${backupId}`, { token: user.token })).body.status).toBe("completed");
    const download = await fetch(`${base}/api/backups/${backupId}/download`, { headers: { authorization: `Bearer ${user.token}` }, redirect: "follow" });
    expect((await download.arrayBuffer()).byteLength).toBe(1000);
  });

  test("every shortening of an oplog slice's lock is refused; the slice stays", async () => {
    const { agent } = await userShippingPitr(server, base, "orders");
    const end = Math.floor(Date.now() / 1000);
    const { storageKey } = await uploadSlice(server.ctx, base, agent, "orders", {
      chain: "d".repeat(32),
      sequence: 0,
      start: `${end - 10},1`,
      end: `${end},1`,
    });
    await expectEveryShorteningRefused(storageKey);
  });
});
