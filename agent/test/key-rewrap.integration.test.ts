// key rotate --rewrap against the real server over loopback (issue 27 §5): every stored backup's
// data key is rewrapped to the new master key by swapping its header on the server; the data
// after the header stays byte for byte; a rewrap killed half-way leaves every backup readable with
// the keyring, and key rewrap finishes it. Also the server route's refusals of bad headers.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { backups } from "../../db/schema";
import { backupStorage } from "../../server/src/modules/stored-files/keys";
import { startTestServer, type TestServer, type TestUser } from "../../server/test/harness";
import { waitUntil } from "../../testkit/wait-until";
import { decodeMasterKey, decryptBuffer, deriveKeyId, encryptBuffer, generateMasterKey, readArchiveHeader, WrongKeyError } from "../src/archive/index.ts";
import { createServerClient } from "../src/transport/server-client.ts";
import { SOURCE_COMMAND } from "./support/run-agent.ts";

const GOLDEN = new URL("../test-data/golden/", import.meta.url).pathname;
const OLD_KEY_TEXT = (await readFile(join(GOLDEN, "test-key.txt"), "utf8")).trim();
const OLD_KEY = decodeMasterKey(OLD_KEY_TEXT);
const PLAINTEXT = await readFile(join(GOLDEN, "plaintext.mongodump-archive"));

let server: TestServer;
let base: string;
let dir: string;
beforeAll(async () => {
  server = await startTestServer();
  base = server.listen();
  dir = await mkdtemp(join(tmpdir(), "dbvault-key-rewrap-"));
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

type Seeded = { id: string; file: Buffer };

/** A user, a registered agent running "shop", its config file, and completed backups stored as an upload would leave them. */
async function setUp(name: string, formats: (1 | 2)[]) {
  const user = await server.registerUser();
  const registering = createServerClient({ url: base, apiKey: user.apiKey });
  const { agentId, agentToken } = await registering.register({ name, hostname: name, platform: "linux-x64", version: "1.2.3", databases: ["shop"] });
  const configPath = join(dir, `${name}.json`);
  const config = { version: 1, masterKey: OLD_KEY_TEXT, databases: [], server: { url: base, apiKey: user.apiKey, agentId, agentToken } };
  await writeFile(configPath, JSON.stringify(config), { mode: 0o600 });
  await chmod(configPath, 0o600);
  const seeded: Seeded[] = [];
  for (const [index, formatVersion] of formats.entries()) {
    const file = await encryptBuffer(PLAINTEXT, { masterKey: OLD_KEY, chunkSize: 256, formatVersion });
    seeded.push({ id: await storeBackup(user, agentId, file, index), file });
  }
  return { user, agentId, agentToken, configPath, seeded };
}

async function storeBackup(user: TestUser, agentId: string, file: Buffer, index: number): Promise<string> {
  const sha256 = createHash("sha256").update(file).digest("hex");
  const [row] = await server.ctx.db
    .insert(backups)
    .values({
      organizationId: user.id,
      databaseName: "shop",
      agentId,
      status: "completed",
      size: file.length,
      sha256,
      keyId: deriveKeyId(OLD_KEY),
      createdAt: new Date(Date.now() - (10 - index) * 60_000),
      completedAt: new Date(),
    })
    .returning({ id: backups.id });
  await server.ctx.storage.put(backupStorage.file(user.id, row!.id), file);
  const manifest = { format: "dbvault-backup-manifest", version: 1, backupId: row!.id, size: file.length, sha256 };
  await server.ctx.storage.put(backupStorage.manifest(user.id, row!.id), new TextEncoder().encode(JSON.stringify(manifest)));
  return row!.id;
}

async function storedFile(user: TestUser, backupId: string): Promise<Buffer> {
  return Buffer.from(await new Response(await server.ctx.storage.get(backupStorage.file(user.id, backupId))).arrayBuffer());
}

function spawnAgent(args: string[], env: Record<string, string> = {}) {
  const child = Bun.spawn([...SOURCE_COMMAND, ...args], {
    env: { PATH: process.env.PATH, HOME: "/nonexistent-home", ...env } as Record<string, string>,
    stdout: "pipe",
    stderr: "pipe",
  });
  let stderr = "";
  const decoder = new TextDecoder();
  const reading = (async () => {
    for await (const chunk of child.stderr) stderr += decoder.decode(chunk, { stream: true });
  })();
  const done = async () => {
    const exitCode = await child.exited;
    await reading;
    return { exitCode, stderr };
  };
  return { child, stderr: () => stderr, done };
}

const bodyOf = (file: Buffer) => file.subarray(readArchiveHeader(file).headerLength);

describe("key rotate --rewrap", () => {
  test("rewraps every version 2 backup to the new key; the data after each header is untouched; version 1 keeps its key", async () => {
    const { user, configPath, seeded } = await setUp("rewrap-all", [2, 2, 1]);
    const run = await spawnAgent(["key", "rotate", "--rewrap", "--config", configPath]).done();
    const config = JSON.parse(await readFile(configPath, "utf8"));
    const newKey = decodeMasterKey(config.masterKey);
    const newId = deriveKeyId(newKey);
    // The warning says what a rewrap adds (an older export no longer opens the rewrapped backups) and how to save the keyring again.
    expect(run.stderr).toBe(
      `dbvault-agent: rotated the master key of ${configPath}: new backups use key id ${newId} from now on; the old key ${deriveKeyId(OLD_KEY)} stays in the keyring to open the backups made with it\n` +
        "dbvault-agent: warning: save the keyring away from this machine now (dbvault-agent key export --all prints it): without it neither the backups made from now on nor the older backups this rewraps can be restored, since a keyring exported before this rotation no longer opens them\n" +
        "dbvault-agent: told the DBVault server the key ids of this keyring: restores of backups made with its keys go to this agent at once, without restarting dbvault-agent run\n" +
        `dbvault-agent: rewrapping the data keys of 3 stored backups to key id ${newId} (their data is not re-encrypted)\n` +
        `dbvault-agent: rewrapped 2 backups to key id ${newId}\n` +
        "dbvault-agent: 1 backups in the older file format (version 1) keep the key they were made with: their key is not wrapped, so only a new backup replaces them; the keyring keeps opening them\n",
    );
    expect(run.exitCode).toBe(0);
    for (const { id, file } of seeded) {
      const stored = await storedFile(user, id);
      const version = readArchiveHeader(file).version;
      expect(bodyOf(stored).equals(bodyOf(file))).toBe(true);
      expect(stored.length).toBe(file.length);
      const row = (await server.ctx.db.select().from(backups).where(eq(backups.id, id)))[0]!;
      expect(row.sha256).toBe(createHash("sha256").update(stored).digest("hex"));
      if (version === 2) {
        expect(readArchiveHeader(stored).keyId).toBe(newId);
        // The header it replaced is kept: put back before the data, it gives the original file.
        const kept = await server.ctx.storage.get(backupStorage.replacedHeader(user.id, id, createHash("sha256").update(file).digest("hex")));
        const original = Buffer.concat([Buffer.from(await new Response(kept).arrayBuffer()), bodyOf(stored)]);
        expect(original.equals(file)).toBe(true);
        expect(row.keyId).toBe(newId);
        // The new key alone opens it; the old key no longer does.
        expect((await decryptBuffer(stored, { masterKey: newKey })).plaintext.equals(PLAINTEXT)).toBe(true);
        expect(await decryptBuffer(stored, { masterKey: OLD_KEY }).catch((error) => error)).toBeInstanceOf(WrongKeyError);
        // The web shows the fingerprint.
        expect((await server.call("GET", `/api/backups/${id}`, { token: user.token })).body.keyId).toBe(newId);
      } else {
        expect(stored.equals(file)).toBe(true);
        expect((await decryptBuffer(stored, { masterKey: [newKey, OLD_KEY] })).plaintext.equals(PLAINTEXT)).toBe(true);
      }
    }
  }, 60_000);

  test("killed half-way, every backup stays readable with the keyring; key rewrap finishes", async () => {
    const { user, configPath, seeded } = await setUp("rewrap-killed", [2, 2, 2, 2]);
    const run = spawnAgent(["key", "rotate", "--rewrap", "--config", configPath], { DBVAULT_TEST_PAUSE_AT: "header-rewrapped#2" });
    let exited = false;
    void run.child.exited.then(() => (exited = true));
    await waitUntil(() => run.stderr().includes("dbvault-test-paused-at header-rewrapped") || exited, {
      timeout: 30_000,
      message: "the rewrap to pause after its second header",
    });
    expect(exited).toBe(false);
    run.child.kill("SIGKILL");
    await run.child.exited;
    const keyring = JSON.parse(await readFile(configPath, "utf8")) as { masterKey: string; oldKeys: string[] };
    const newKey = decodeMasterKey(keyring.masterKey);
    expect(keyring.oldKeys).toEqual([OLD_KEY_TEXT]);
    const keyIds: string[] = [];
    for (const { id, file } of seeded) {
      const stored = await storedFile(user, id);
      keyIds.push(readArchiveHeader(stored).keyId);
      expect(bodyOf(stored).equals(bodyOf(file))).toBe(true);
      expect((await decryptBuffer(stored, { masterKey: [newKey, OLD_KEY] })).plaintext.equals(PLAINTEXT)).toBe(true);
    }
    expect(keyIds).toEqual([deriveKeyId(newKey), deriveKeyId(newKey), deriveKeyId(OLD_KEY), deriveKeyId(OLD_KEY)]);

    const finish = await spawnAgent(["key", "rewrap", "--config", configPath]).done();
    expect(finish.stderr).toContain(`dbvault-agent: rewrapped 2 backups to key id ${deriveKeyId(newKey)}; 2 already used it\n`);
    expect(finish.exitCode).toBe(0);
    for (const { id } of seeded) {
      expect((await decryptBuffer(await storedFile(user, id), { masterKey: newKey })).plaintext.equals(PLAINTEXT)).toBe(true);
    }

    // Stopped after a header was swapped but before the server recorded it: the same header is
    // sent again, which only records its key id and checksum.
    const lagging = seeded[0]!.id;
    await server.ctx.db
      .update(backups)
      .set({ keyId: deriveKeyId(OLD_KEY), sha256: null })
      .where(eq(backups.id, lagging));
    const before = await storedFile(user, lagging);
    const again = await spawnAgent(["key", "rewrap", "--config", configPath]).done();
    expect(again.stderr).toContain(`dbvault-agent: rewrapped 0 backups to key id ${deriveKeyId(newKey)}; 4 already used it\n`);
    expect(again.exitCode).toBe(0);
    const [row] = await server.ctx.db.select().from(backups).where(eq(backups.id, lagging));
    expect(row).toMatchObject({ keyId: deriveKeyId(newKey), sha256: createHash("sha256").update(before).digest("hex") });
    expect((await storedFile(user, lagging)).equals(before)).toBe(true);
  }, 60_000);
});

describe("key rewrap and a backup whose key the keyring lacks", () => {
  test("rewraps the others, names the backup and the key id it needs, and exits 3", async () => {
    const { user, agentId, configPath, seeded } = await setUp("rewrap-foreign", [2]);
    const foreign = generateMasterKey();
    const foreignFile = await encryptBuffer(PLAINTEXT, { masterKey: foreign, chunkSize: 256 });
    const foreignId = await storeBackup(user, agentId, foreignFile, 5);
    const run = await spawnAgent(["key", "rotate", "--rewrap", "--config", configPath]).done();
    const newId = deriveKeyId(decodeMasterKey(JSON.parse(await readFile(configPath, "utf8")).masterKey));
    const [row] = await server.ctx.db.select({ createdAt: backups.createdAt }).from(backups).where(eq(backups.id, foreignId));
    expect(run.stderr).toContain(`dbvault-agent: rewrapped 1 backups to key id ${newId}\n`);
    expect(run.stderr).toEndWith(
      `dbvault-agent: the backup of shop from ${row!.createdAt.toISOString()} needs key id ${deriveKeyId(foreign)}, which the keyring lacks\n` +
        `dbvault-agent: 1 backups were not rewrapped: no key of the keyring of ${configPath} opens them\n` +
        "dbvault-agent: hint: import their key (dbvault-agent key import --add) from the keyring export of the machine that made them, then run dbvault-agent key rewrap\n",
    );
    expect(run.exitCode).toBe(3);
    expect((await storedFile(user, foreignId)).equals(foreignFile)).toBe(true);
    expect(readArchiveHeader(await storedFile(user, seeded[0]!.id)).keyId).toBe(newId);
  }, 60_000);
});

describe("the header route refuses what is not a rewrap of the stored header", () => {
  test("wrong length, changed fields, malformed stanzas, a version 1 file, too large, another account's backup", async () => {
    const { user, agentId, agentToken, seeded } = await setUp("route-checks", [2, 1]);
    const [v2, v1] = seeded as [Seeded, Seeded];
    const headers = { "x-agent-id": agentId, "x-agent-token": agentToken, authorization: `Bearer ${user.apiKey}`, "content-type": "application/octet-stream" };
    const put = (id: string, body: Uint8Array, extra: Record<string, string> = {}) =>
      fetch(`${base}/api/agent/backups/${id}/header`, { method: "PUT", headers: { ...headers, ...extra }, body: body as Uint8Array<ArrayBuffer> });
    const header = v2.file.subarray(0, readArchiveHeader(v2.file).headerLength);
    const refusals: [string, Uint8Array, number, string][] = [
      ["shorter", header.subarray(0, header.length - 1), 400, `The new header must be exactly ${header.length} bytes`],
      ["changed chunk size", Buffer.concat([header.subarray(0, 14), Buffer.from([0, 0, 2, 0]), header.subarray(18)]), 400, "changes more than its key stanzas"],
      ["stanza overrun", Buffer.concat([header.subarray(0, 28), Buffer.from([0xff, 0xff]), header.subarray(30)]), 400, "key stanzas are malformed"],
      ["not a header", Buffer.from("hello"), 400, "must be the new header"],
    ];
    for (const [what, body, status, message] of refusals) {
      const answer = await put(v2.id, body);
      expect([what, answer.status]).toEqual([what, status]);
      expect((await answer.json()).message).toContain(message);
    }
    const v1Answer = await put(v1.id, v1.file.subarray(0, 104));
    expect(v1Answer.status).toBe(409);
    expect((await v1Answer.json()).message).toContain("format version 1");
    expect((await put(v2.id, new Uint8Array(70_000))).status).toBe(413);
    const other = await setUp("route-other", [2]);
    expect((await put(other.seeded[0]!.id, header)).status).toBe(404);
    expect((await fetch(`${base}/api/agent/backups/${other.seeded[0]!.id}/header`, { headers })).status).toBe(404);
    // Nothing was changed by any of them.
    expect((await storedFile(user, v2.id)).equals(v2.file)).toBe(true);
    expect((await storedFile(other.user, other.seeded[0]!.id)).equals(other.seeded[0]!.file)).toBe(true);
  }, 60_000);
});
