// Copies in the customer's own bucket, end to end over loopback: a real server (harness), the
// compiled agent, the MongoDB test server and moto's S3 server as the customer's bucket. After a
// backup the same encrypted bytes are in the bucket and the server records key, size and SHA-256,
// but never the bucket's credentials; a bucket that is down never fails the DBVault backup.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash, randomBytes } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { advanceServerClock, startTestServer, type TestServer, type TestUser } from "../../server/test/harness.ts";
import { type MotoServer, startMoto } from "../../testkit/moto-server.ts";
import { waitUntil } from "../../testkit/wait-until";
import { ensureFreshBinary, type RunningAgent, runSetup, startAgentProcess, userApi } from "./support/end-to-end.ts";
import { BINARY_PATH, runAgent } from "./support/run-agent.ts";
import { formatBytes } from "../src/ui/format.ts";
import { type AgentTestEnv, openAgentTestEnv } from "./support/test-env.ts";

let env: AgentTestEnv;
let server: TestServer;
let base: string;
let user: TestUser;
let dir: string;
let configPath: string;
let agent: RunningAgent | undefined;
let moto: MotoServer;
const serverLog: string[] = [];
// moto takes any credentials: a unique secret can then be looked for everywhere on the server's side.
const copySecret = `copy-secret-${randomBytes(12).toString("hex")}`;
const copyKeyId = `AKIACOPY${randomBytes(6).toString("hex").toUpperCase()}`;

let api: ReturnType<typeof userApi>;

async function addCopy(bucket: string) {
  const destination = `s3://${bucket}/offsite?endpoint=${moto.endpoint}&region=us-east-1`;
  const run = await runAgent(["copies", "add", destination, "--config", configPath], {
    command: [BINARY_PATH],
    env: { AWS_ACCESS_KEY_ID: copyKeyId, AWS_SECRET_ACCESS_KEY: copySecret },
  });
  expect(run.stderr).toContain("wrote and deleted a test object");
  expect(run.exitCode).toBe(0);
}

async function backUp(): Promise<any> {
  const created = await api("POST", "/api/backups", { databaseName: "shop" });
  expect(created.status).toBe(201);
  return waitUntil(
    async () => {
      const answer = await api("GET", `/api/backups/${created.body.id}`);
      return answer.body.status === "completed" && answer.body.copies.length > 0 ? answer.body : undefined;
    },
    { timeout: 60_000, message: "the backup to complete and its copy to be reported" },
  );
}

beforeAll(async () => {
  await ensureFreshBinary();
  moto = await startMoto();
  env = await openAgentTestEnv();
  server = await startTestServer();
  // The server's own logger, recording what it would write (the harness silences it).
  for (const level of ["debug", "info", "warn", "error"] as const) {
    server.ctx.log[level] = (message: string, fields?: unknown) => void serverLog.push(`${message} ${JSON.stringify(fields ?? {})}`);
  }
  base = server.listen();
  dir = await env.makeTempDir();
  const source = env.uniqueDatabase("copies_src");
  await env.client
    .db(source)
    .collection("orders")
    .insertMany(Array.from({ length: 200 }, (_, i) => ({ i, note: `order ${i}` })));
  user = await server.registerUser();
  api = userApi(base, user.token);
  const setup = await runSetup({ baseUrl: base, apiKey: user.apiKey, databases: [{ name: "shop", uri: env.uriFor(source) }], directory: dir });
  expect(setup.exitCode).toBe(0);
  configPath = setup.configPath;
  agent = startAgentProcess(configPath);
});

afterAll(async () => {
  if (agent) await agent.stop("SIGKILL");
  await server?.close();
  await moto?.stop();
  await env?.close();
});

describe("a backup with a copy in the customer's bucket", () => {
  test("the bucket holds the same bytes under prefix/database/file; the server records key, size and SHA-256", async () => {
    await moto.createBucket("customer-offsite", { objectLock: false });
    await addCopy("customer-offsite");
    const backup = await backUp();
    const [copy] = backup.copies;
    expect(copy).toEqual({
      destination: `s3://customer-offsite/offsite/?endpoint=${encodeURIComponent(moto.endpoint)}&region=us-east-1`,
      key: `offsite/shop/backup-shop-${backup.createdAt}.enc.dbvault`,
      status: "stored",
      size: backup.size,
      sha256: backup.sha256,
      error: null,
      checkedAt: expect.any(String), // its write counts as its first check
      lockedUntil: null,
    });
    const download = await fetch(`${base}/api/backups/${backup.id}/download`, { headers: { authorization: `Bearer ${user.token}` } });
    const stored = new Uint8Array(await download.arrayBuffer());
    const bucket = new Bun.S3Client({
      endpoint: moto.endpoint,
      bucket: "customer-offsite",
      accessKeyId: copyKeyId,
      secretAccessKey: copySecret,
      region: "us-east-1",
    });
    const copied = new Uint8Array(await bucket.file(copy.key).arrayBuffer());
    expect(Buffer.from(copied).equals(Buffer.from(stored))).toBe(true);
    expect(createHash("sha256").update(copied).digest("hex")).toBe(copy.sha256);

    const listed = await api("GET", "/api/backups");
    expect(listed.body.find((row: { id: string }) => row.id === backup.id).copies).toEqual([copy]);
  }, 120_000);

  test("the copy's credentials reach neither the server's database, nor its logs, nor its storage", async () => {
    const tables = await server.ctx.db.execute(sql`select table_name from information_schema.tables where table_schema = 'public'`);
    const names = ((tables as any).rows ?? tables).map((row: { table_name: string }) => row.table_name);
    expect(names).toContain("backup_copies");
    let everything = "";
    for (const name of names) {
      const rows = await server.ctx.db.execute(sql.raw(`select row_to_json(t)::text as row from "${name}" t`));
      everything += ((rows as any).rows ?? rows).map((row: { row: string }) => row.row).join("\n");
    }
    expect(everything).toContain("customer-offsite"); // the label is there: the search does read the copies
    for (const secret of [copySecret, copyKeyId]) {
      expect(agent!.log()).not.toContain(secret); // nor the agent's own log
      expect(everything).not.toContain(secret);
      expect(serverLog.join("\n")).not.toContain(secret);
    }
    const dataDir = server.ctx.config.dataDir;
    const files = (await readdir(dataDir, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile());
    for (const file of files) {
      const text = (await readFile(join(file.parentPath, file.name))).toString("latin1");
      expect(text).not.toContain(copySecret);
    }
  });

  test("a bucket that is down: the DBVault backup still completes, the copy is reported failed", async () => {
    await moto.createBucket("customer-gone", { objectLock: false });
    await addCopy("customer-gone");
    advanceServerClock(server, 24 * 3600_000); // past the plan's limit on manual backups
    await moto.s3.fetch(`${moto.endpoint}/customer-gone`, { method: "DELETE" }); // the bucket vanishes
    const backup = await backUp();
    expect(backup.status).toBe("completed");
    type Copy = { destination: string; status: string; error: string | null };
    const copies: Copy[] = await waitUntil(
      async () => {
        const answer = await api("GET", `/api/backups/${backup.id}`);
        return answer.body.copies.length === 2 ? answer.body.copies : undefined;
      },
      { timeout: 60_000, message: "both copies of the backup to be reported" },
    );
    const failed = copies.find((copy) => copy.destination.includes("customer-gone"))!;
    expect(failed.status).toBe("failed");
    expect(failed.error).toMatch(/^could not write the copy after 4 tries: NoSuchBucket/);
    // The other destination still got its copy of this backup.
    expect(copies.find((copy) => copy.destination.includes("customer-offsite"))!.status).toBe("stored");
  }, 120_000);

  test("offline, restore and decrypt --from-copy read the file from the bucket, not from DBVault", async () => {
    const [backup] = (await api("GET", "/api/backups")).body;
    const { key } = backup.copies.find((copy: { destination: string }) => copy.destination.includes("customer-offsite"));
    await server.close(); // DBVault is gone; the config's copy and master key are all there is
    server = undefined as unknown as TestServer;
    const archive = join(dir, "from-copy.archive");
    // Two destinations share the prefix "offsite/": the bucket is named to choose.
    const ambiguous = await runAgent(["decrypt", "--from-copy", "--in", key, "--out", archive, "--config", configPath], { command: [BINARY_PATH] });
    expect(ambiguous.stderr).toBe(
      `dbvault-agent: decrypt: cannot tell which copy destination holds ${key}\ndbvault-agent: hint: name the bucket too: --in s3://BUCKET/KEY, with one of: s3://customer-offsite/offsite/, s3://customer-gone/offsite/\n`,
    );
    expect(ambiguous.exitCode).toBe(2);
    const decrypted = await runAgent(["decrypt", "--from-copy", "--in", `s3://customer-offsite/${key}`, "--out", archive, "--config", configPath], {
      command: [BINARY_PATH],
    });
    // The size read, not "0 Bytes".
    expect(decrypted.stderr).toStartWith(`dbvault-agent: read ${key} (${formatBytes(backup.size)}) from s3://customer-offsite/`);
    expect(decrypted.exitCode).toBe(0);
    expect((await readFile(archive)).length).toBeGreaterThan(0);

    const target = env.uniqueDatabase("from_copy");
    const restored = await runAgent(
      ["restore", "--from-copy", "--in", `s3://customer-offsite/${key}`, "--db", "shop", "--to-db", target, "--config", configPath],
      {
        command: [BINARY_PATH],
      },
    );
    expect(restored.stderr).toStartWith(`dbvault-agent: read ${key} (${formatBytes(backup.size)}) from s3://customer-offsite/`);
    expect(restored.stderr).toContain("restored 200 documents into 1 collection");
    expect(restored.exitCode).toBe(0);
    expect(await env.client.db(target).collection("orders").countDocuments()).toBe(200);

    const missing = await runAgent(
      ["decrypt", "--from-copy", "--in", "s3://customer-offsite/offsite/shop/nope.enc.dbvault", "--out", join(dir, "nope"), "--config", configPath],
      {
        command: [BINARY_PATH],
      },
    );
    expect(missing.stderr).toMatch(
      /^dbvault-agent: cannot read offsite\/shop\/nope\.enc\.dbvault from s3:\/\/customer-offsite\/offsite\/\S+ \(NoSuchKey\)\ndbvault-agent: hint: /,
    );
    expect(missing.exitCode).toBe(1);
  }, 120_000);
});
