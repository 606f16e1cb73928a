// Object Lock on the copies in the customer's bucket, against moto's S3 server (which enforces it:
// a DELETE of a locked version answers AccessDenied) and a real DBVault server (harness) for the
// account's retention. `copies add --object-lock` refuses a bucket without versioning or Object
// Lock, without a default retention to read, or with a lock shorter than backups are kept, naming
// what is missing; the copies the agent then writes are locked and cannot be deleted.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createHash, randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BackupCopied } from "../../protocol/agent-protocol.ts";
import { startTestServer, type TestServer } from "../../server/test/harness.ts";
import { registerScriptedAgent, type ScriptedAgent } from "../../server/test/scripted-agent.ts";
import { type MotoServer, startMoto } from "../../testkit/moto-server.ts";
import type { CopyEntry } from "../src/copies/copy-destination.ts";
import { writeBackupCopies } from "../src/copies/copy-writer.ts";
import { runAgent } from "./support/run-agent.ts";

setDefaultTimeout(60_000);

let moto: MotoServer;
let server: TestServer;
let agent: ScriptedAgent;
let apiKey: string;
let dir: string;
const keys = { AWS_ACCESS_KEY_ID: "AKIALOCKED", AWS_SECRET_ACCESS_KEY: "locked-secret" };
const DAY = 86_400_000;

beforeAll(async () => {
  moto = await startMoto();
  server = await startTestServer();
  const user = await server.registerUser();
  apiKey = user.apiKey;
  agent = await registerScriptedAgent(server.listen(), apiKey, ["orders"]);
  dir = await mkdtemp(join(tmpdir(), "dbvault-copies-lock-"));
}, 60_000);
afterAll(async () => {
  await moto?.stop();
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

const url = (bucket: string) => `s3://${bucket}/dbvault?endpoint=${moto.endpoint}&region=us-east-1`;
const normalized = (bucket: string) => `s3://${bucket}/dbvault/?endpoint=${encodeURIComponent(moto.endpoint)}&region=us-east-1`;
let configs = 0;

/** A config connected to the server as setup leaves it (the default retention: 72 hours, so 3 days). */
async function connectedConfig(): Promise<string> {
  const path = join(dir, `agent-${++configs}.json`);
  const server_ = { url: server.listen(), apiKey, agentId: agent.agentId, agentToken: agent.agentToken };
  await writeFile(path, JSON.stringify({ version: 1, databases: [], server: server_ }), { mode: 0o600 });
  return path;
}

async function defaultRetention(bucket: string, mode: "GOVERNANCE" | "COMPLIANCE", days: number) {
  const body = `<ObjectLockConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><ObjectLockEnabled>Enabled</ObjectLockEnabled><Rule><DefaultRetention><Mode>${mode}</Mode><Days>${days}</Days></DefaultRetention></Rule></ObjectLockConfiguration>`;
  const md5 = createHash("md5").update(body).digest("base64");
  const answer = await moto.s3.fetch(`${moto.endpoint}/${bucket}?object-lock`, { method: "PUT", body, headers: { "Content-MD5": md5 } });
  expect(answer.status).toBe(200);
}

const add = async (bucket: string, ...options: string[]) =>
  runAgent(["copies", "add", url(bucket), ...options, "--config", await connectedConfig()], { env: keys });

describe("copies add --object-lock", () => {
  test("a bucket without versioning or Object Lock is refused, naming what it lacks", async () => {
    await moto.createBucket("plain-bucket", { objectLock: false });
    const plain = await add("plain-bucket", "--object-lock", "compliance", "--retain-days", "30");
    expect(plain.stderr).toBe(
      `dbvault-agent: copies add: ${normalized("plain-bucket")} cannot lock copies: the bucket has no versioning and no Object Lock\ndbvault-agent: hint: use a bucket created with Object Lock enabled (that turns versioning on; most services cannot add it later), e.g. aws s3api create-bucket --object-lock-enabled-for-bucket\n`,
    );
    expect(plain.exitCode).toBe(2);
    await moto.createBucket("versioned-bucket", { objectLock: false, versioning: true });
    const versioned = await add("versioned-bucket", "--object-lock", "governance", "--retain-days", "30");
    expect(versioned.stderr).toStartWith(`dbvault-agent: copies add: ${normalized("versioned-bucket")} cannot lock copies: the bucket has no Object Lock\n`);
    expect(versioned.exitCode).toBe(2);
  });

  test("a locked bucket without a default retention needs --retain-days; a lock shorter than backups are kept is refused", async () => {
    await moto.createBucket("locked-no-default");
    const noDefault = await add("locked-no-default", "--object-lock", "compliance");
    expect(noDefault.stderr).toBe(
      `dbvault-agent: copies add: the bucket of ${normalized("locked-no-default")} has no default retention to lock the copies for\ndbvault-agent: hint: say how long: --retain-days N (at least as long as DBVault keeps your backups), or give the bucket a default retention\n`,
    );
    expect(noDefault.exitCode).toBe(2);
    const short = await add("locked-no-default", "--object-lock", "compliance", "--retain-days", "2");
    expect(short.stderr).toBe(
      "dbvault-agent: copies add: a lock of 2 days is too short: backups are kept 3 days (Settings → General), so a copy could be deleted while DBVault still keeps its backup\ndbvault-agent: hint: lock the copies at least 3 days: --retain-days 3\n",
    );
    expect(short.exitCode).toBe(2);

    await moto.createBucket("locked-short-default");
    await defaultRetention("locked-short-default", "GOVERNANCE", 1);
    const shortDefault = await add("locked-short-default", "--object-lock", "governance");
    expect(shortDefault.stderr).toBe(
      "dbvault-agent: copies add: the bucket's default retention (1 days) is too short: backups are kept 3 days (Settings → General), so a copy could be deleted while DBVault still keeps its backup\ndbvault-agent: hint: lock the copies at least 3 days: --retain-days 3, or raise the bucket's default retention\n",
    );
    expect(shortDefault.exitCode).toBe(2);
  });

  test("bad option values are usage errors", async () => {
    const mode = await add("locked-no-default", "--object-lock", "forever");
    expect(mode.stderr).toStartWith("dbvault-agent: copies add: --object-lock must be compliance or governance\n");
    expect(mode.exitCode).toBe(2);
    const days = await add("locked-no-default", "--object-lock", "compliance", "--retain-days", "0");
    expect(days.stderr).toStartWith("dbvault-agent: copies add: --retain-days must be a whole number of days from 1 to 36500\n");
    const alone = await add("locked-no-default", "--retain-days", "30");
    expect(alone.stderr).toStartWith("dbvault-agent: copies add: --retain-days needs --object-lock compliance or governance\n");
  });

  test("accepted with the bucket's default retention; the copies written are locked and their delete is refused", async () => {
    await moto.createBucket("locked-copies");
    await defaultRetention("locked-copies", "GOVERNANCE", 10);
    const config = await connectedConfig();
    const added = await runAgent(["copies", "add", url("locked-copies"), "--object-lock", "compliance", "--config", config], { env: keys });
    expect(added.stderr).toBe(
      `dbvault-agent: wrote and deleted a test object in ${normalized("locked-copies")}\ndbvault-agent: added ${normalized("locked-copies")} to ${config}; a running agent (dbvault-agent run) copies each backup there (each locked in compliance mode for 10 days) from its next one\n`,
    );
    expect(added.exitCode).toBe(0);
    const [entry] = JSON.parse(await readFile(config, "utf8")).copies as CopyEntry[];
    expect(entry!.objectLock).toEqual({ mode: "compliance", retainDays: 10 });

    // The writer the daemon runs after each backup, on a file as it would be uploaded.
    const path = join(dir, "backup.enc.dbvault");
    const bytes = randomBytes(4096);
    await writeFile(path, bytes);
    const delivered: BackupCopied[] = [];
    const before = Date.now();
    const job = { backupId: "b1", databaseName: "orders", fileName: "backup-orders-1.enc.dbvault", path, size: bytes.length, sha256: "ab".repeat(32) };
    await writeBackupCopies([entry!], job, { attempts: 1, deliver: (message) => void delivered.push(message), log: () => {} });
    expect(delivered).toMatchObject([{ status: "stored", key: "dbvault/orders/backup-orders-1.enc.dbvault", etag: expect.any(String) }]);
    const objectUrl = `${moto.endpoint}/locked-copies/dbvault/orders/backup-orders-1.enc.dbvault`;
    const head = await moto.s3.fetch(objectUrl, { method: "HEAD" });
    expect(head.headers.get("x-amz-object-lock-mode")).toBe("COMPLIANCE");
    const until = new Date(head.headers.get("x-amz-object-lock-retain-until-date")!).getTime();
    expect(until).toBeGreaterThanOrEqual(before + 10 * DAY - 1000);
    expect(until).toBeLessThanOrEqual(Date.now() + 10 * DAY + 1000);
    expect(new Date(delivered[0]!.lockedUntil!).getTime()).toBe(until); // reported, for the web's listing
    // With the bucket's own credentials (what a thief of this machine holds): the locked version stays.
    const versionId = head.headers.get("x-amz-version-id")!;
    const deleted = await moto.s3.fetch(`${objectUrl}?versionId=${encodeURIComponent(versionId)}`, { method: "DELETE" });
    expect(deleted.status).toBe(403);
    expect(await deleted.text()).toContain("AccessDenied");
    expect((await moto.s3.fetch(`${objectUrl}?versionId=${encodeURIComponent(versionId)}`)).status).toBe(200);
  });
});
