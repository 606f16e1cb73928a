// The attack issue 27 is for, played whole: the thief holds the user's session (a stolen password
// in use), the database host (the write-only agent's config and credentials) and the server's own
// storage credentials (the S3 keys of the bucket, with Object Lock in COMPLIANCE mode). Every way
// to delete the backups is tried: the API with the session, the agent API with the host's
// credentials, S3 directly (DeleteObject of each version, with and without the governance bypass,
// and PutObject over each file). Then every backup inside its retention is still there, every
// stored version byte-identical, and none opens with what the thief holds; the identity the owner
// kept off the host opens them (so the bytes kept are the backups, not noise).
//
// Real pieces over loopback: the server (harness), the compiled agent with the MongoDB test
// server, moto's S3 server enforcing Object Lock. Shortening a COMPLIANCE retention is played in
// server/test/object-lock-seaweedfs.integration.test.ts, on SeaweedFS: moto 5.2.5 accepts it as
// asked (testkit/moto-server.ts).
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { createHash, randomBytes } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { backupStorage } from "../../server/src/modules/stored-files/keys.ts";
import { protectBackupsOf } from "../../server/test/protect-backups.ts";
import { findMoto, type MotoServer, startMoto } from "../../testkit/moto-server.ts";
import { summarizeArchive } from "../src/dump/mongodump-archive/index.ts";
import { setUpUserWithAgent, useEndToEndWorld, waitForBackupEnd } from "./support/end-to-end-world.ts";
import { BINARY_PATH, runAgent } from "./support/run-agent.ts";

setDefaultTimeout(180_000);

const { missing } = findMoto();
const BUCKET = "dbvault-attacked";
let moto: MotoServer;
let storageUrl = "";

// Before the world's own beforeAll: the server it starts stores in the locked bucket.
beforeAll(async () => {
  if (missing) return;
  moto = await startMoto();
  storageUrl = await moto.createBucket(BUCKET);
});
// Registered before the world's own hooks, so it runs even when the world's teardown fails or is slow.
afterAll(async () => {
  await moto?.stop();
});
const world = useEndToEndWorld({ serverEnv: (): Record<string, string> => (missing ? {} : { STORAGE_URL: storageUrl, STORAGE_OBJECT_LOCK: "compliance" }) });

type StoredVersion = { key: string; versionId: string; sha256: string };

const objectUrl = (key: string, query = "") => `${moto.endpoint}/${BUCKET}/${key}${query}`;
const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** Every version S3 holds under a prefix (delete markers aside), with the SHA-256 of its bytes. */
async function versionsUnder(prefix: string): Promise<StoredVersion[]> {
  const listing = await (await moto.s3.fetch(`${moto.endpoint}/${BUCKET}?versions&prefix=${encodeURIComponent(prefix)}`)).text();
  const versions: StoredVersion[] = [];
  for (const [, block] of listing.matchAll(/<Version>([\s\S]*?)<\/Version>/g)) {
    const key = /<Key>([^<]+)<\/Key>/.exec(block!)![1]!;
    const versionId = /<VersionId>([^<]+)<\/VersionId>/.exec(block!)![1]!;
    versions.push({ key, versionId, sha256: sha256(await readVersion(key, versionId)) });
  }
  return versions;
}

async function readVersion(key: string, versionId: string): Promise<Uint8Array> {
  const response = await moto.s3.fetch(objectUrl(key, `?versionId=${encodeURIComponent(versionId)}`));
  expect(response.status).toBe(200);
  return new Uint8Array(await response.arrayBuffer());
}

test.skipIf(missing !== null)(
  `stolen session + stolen host + the server's storage keys: every kept backup survives, unreadable${missing ? ` (skipped: ${missing})` : ""}`,
  async () => {
    const database = world.env.uniqueDatabase("attacked");
    await world.env.client
      .db(database)
      .collection("orders")
      .insertMany([
        { _id: 1, total: 10 },
        { _id: 2, total: 20 },
      ] as never[]);
    const offline = await world.env.makeTempDir();
    const identity = join(offline, "identity.txt"); // kept off the host by the owner
    const { user, api, configPath, start } = await setUpUserWithAgent(world, database, ["--key-mode", "write-only", "--identity-out", identity]);
    await start();
    // The server's clock, moved past the plan's daily limit on manual backups between the two.
    let offset = 0;
    world.server.ctx.now = () => new Date(Date.now() + offset);
    const ids: string[] = [];
    for (let i = 0; i < 2; i++) {
      if (i > 0) offset += 25 * 3_600_000;
      const created = await api("POST", "/api/backups", { databaseName: "main" });
      expect(created.status).toBe(201);
      expect((await waitForBackupEnd(api, created.body._id, 90_000)).status).toBe("completed");
      ids.push(created.body._id);
    }

    // The owner turns two-factor sign-in and Protect backups on.
    const session = await protectBackupsOf(world.server, user);

    const before = new Map<string, StoredVersion[]>();
    for (const id of ids) {
      const versions = await versionsUnder(backupStorage.prefix(user.id, id));
      expect(versions.map((v) => v.key).sort()).toEqual([backupStorage.file(user.id, id), backupStorage.manifest(user.id, id)]);
      before.set(id, versions);
    }

    // 1. The stolen password and session. The password alone no longer signs in; the session
    //    cannot delete, shorten retention or turn the protection off (that needs the second factor).
    const signIn = await world.server.call("POST", "/api/auth/login", { body: { email: user.email, password: user.password } });
    expect(signIn.body.token).toBeUndefined();
    for (const id of ids) {
      const deletion = await world.server.call("DELETE", `/api/backups/${id}`, { token: session });
      expect(deletion.status).toBe(409);
    }
    // 72 hours is the shortest age rule; GFS would let the newest backups go sooner.
    const shorter = await world.server.call("PUT", "/api/settings", { token: session, body: { retentionMode: "gfs" } });
    expect(shorter.status).toBe(409);
    const turnOff = await world.server.call("POST", "/api/settings/backup-protection/turn-off", { token: session, body: { password: user.password } });
    expect(turnOff.status).toBe(403);

    // 2. The database host: its config holds the API key, the agent's id and token, and a public key.
    const host = JSON.parse(await readFile(configPath, "utf8"));
    expect(host.masterKey).toBeUndefined();
    const agentHeaders = { authorization: `Bearer ${host.server.apiKey}`, "x-agent-id": host.server.agentId, "x-agent-token": host.server.agentToken };
    for (const id of ids) {
      expect((await fetch(`${world.base}/api/backups/${id}`, { method: "DELETE", headers: agentHeaders })).status).toBe(401);
      // A header of noise in place of the stored one: refused (it names no key in the stored layout).
      const noise = await fetch(`${world.base}/api/agent/backups/${id}/header`, {
        method: "PUT",
        headers: { ...agentHeaders, "content-type": "application/octet-stream" },
        body: randomBytes(512),
      });
      expect(noise.status).toBeGreaterThanOrEqual(400);
      expect(noise.status).toBeLessThan(500);
    }
    const copyRemoval = await fetch(`${world.base}/api/agent/copies/removal`, {
      method: "POST",
      headers: { ...agentHeaders, "content-type": "application/json" },
      body: JSON.stringify({ destination: `s3://customer-offsite/dbvault/?region=eu-west-1` }),
    });
    expect(copyRemoval.status).toBe(409);

    // 3. The server's storage credentials, straight to S3.
    for (const versions of before.values()) {
      for (const { key, versionId } of versions) {
        const deleteVersion = await moto.s3.fetch(objectUrl(key, `?versionId=${encodeURIComponent(versionId)}`), { method: "DELETE" });
        expect(deleteVersion.status).toBe(403);
        expect(await deleteVersion.text()).toContain("AccessDenied");
        const bypass = await moto.s3.fetch(objectUrl(key, `?versionId=${encodeURIComponent(versionId)}`), {
          method: "DELETE",
          headers: { "x-amz-bypass-governance-retention": "true" },
        });
        expect(bypass.status).toBe(403);
        // Over the top: a new current version of noise, then a delete marker. Neither touches the locked versions.
        expect((await moto.s3.fetch(objectUrl(key), { method: "PUT", body: randomBytes(64) })).status).toBe(200);
        expect((await moto.s3.fetch(objectUrl(key), { method: "DELETE" })).status).toBe(204);
      }
    }

    // Every backup inside its retention is still there: each version stored before the attack,
    // byte for byte, and the server still lists it completed.
    for (const [id, versions] of before) {
      const after = await versionsUnder(backupStorage.prefix(user.id, id));
      for (const version of versions) expect(after).toContainEqual(version);
      expect((await world.server.call("GET", `/api/backups/${id}`, { token: session })).body.status).toBe("completed");
    }

    // None opens with what the thief holds (the host's config, the session); the identity does.
    const binary = { command: [BINARY_PATH] };
    for (const [id, versions] of before) {
      const file = versions.find((v) => v.key === backupStorage.file(user.id, id))!;
      const stolen = join(offline, `${id}.enc.dbvault`);
      await writeFile(stolen, await readVersion(file.key, file.versionId));
      const attempt = await runAgent(["decrypt", "--in", stolen, "--out", join(offline, `${id}.stolen.archive`), "--config", configPath], binary);
      expect(attempt.stderr).toContain(`holds only the public key its backups are sealed to, which cannot open them`);
      expect(attempt.exitCode).toBe(4);
      const archive = join(offline, `${id}.archive`);
      const owner = await runAgent(["decrypt", "--in", stolen, "--out", archive, "--identity", identity, "--config", configPath], binary);
      expect(owner.exitCode).toBe(0);
      const summary = await summarizeArchive([await readFile(archive)]);
      expect(summary.namespaces.map((n) => [n.namespace, n.documentCount])).toEqual([[`${database}.orders`, 2]]);
    }
  },
);
