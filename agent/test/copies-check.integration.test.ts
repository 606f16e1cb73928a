// The daily check of the copies in the customer's own bucket, end to end over loopback: a real
// server (harness) with a webhook receiver, the compiled agent, the MongoDB test server and moto's
// S3 server as the customer's bucket. Someone deletes one copy and overwrites another: the check
// (on demand, and by the running agent once a day) finds both, and the account is alerted once.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { advanceServerClock, startTestServer, type TestServer, type TestUser } from "../../server/test/harness.ts";
import { type MotoServer, startMoto } from "../../testkit/moto-server.ts";
import { waitUntil } from "../../testkit/wait-until";
import { startWebhookReceiver, type WebhookReceiver } from "../../testkit/webhook-receiver.ts";
import { ensureFreshBinary, type RunningAgent, runSetup, startAgentProcess, userApi } from "./support/end-to-end.ts";
import { BINARY_PATH, runAgent } from "./support/run-agent.ts";
import { type AgentTestEnv, openAgentTestEnv } from "./support/test-env.ts";

let env: AgentTestEnv;
let server: TestServer;
let base: string;
let user: TestUser;
let configPath: string;
let agent: RunningAgent | undefined;
let moto: MotoServer;
let receiver: WebhookReceiver;
let bucket: Bun.S3Client;
const copyKeyId = `AKIACHECK${randomBytes(4).toString("hex").toUpperCase()}`;
const copySecret = `check-secret-${randomBytes(12).toString("hex")}`;
type Copy = { destination: string; key: string; status: string; size: number; error: string | null; checkedAt: string | null };
type Backup = { id: string; size: number; sha256: string; copies: Copy[] };
const backups: Backup[] = [];

let api: ReturnType<typeof userApi>;

/** A backup whose copy the agent reported stored. */
async function backUp(): Promise<Backup> {
  advanceServerClock(server, 24 * 3600_000); // past the plan's limit on manual backups
  const created = await api("POST", "/api/backups", { databaseName: "shop" });
  expect(created).toMatchObject({ status: 201 });
  return waitUntil(
    async () => {
      const answer = await api("GET", `/api/backups/${created.body.id}`);
      return answer.body.status === "completed" && answer.body.copies[0]?.status === "stored" ? answer.body : undefined;
    },
    { timeout: 60_000, message: "the backup to complete and its copy to be reported" },
  );
}

const copyOf = async (backup: Backup): Promise<Copy> => (await api("GET", `/api/backups/${backup.id}`)).body.copies[0];
const check = (...args: string[]) => runAgent(["copies", "check", ...args, "--config", configPath], { command: [BINARY_PATH] });
const received = (event: string) => receiver.received.filter((delivery) => delivery.event === event);

beforeAll(async () => {
  await ensureFreshBinary();
  moto = await startMoto();
  env = await openAgentTestEnv();
  receiver = startWebhookReceiver();
  server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE: "true" });
  base = server.listen();
  const source = env.uniqueDatabase("copy_check_src");
  await env.client
    .db(source)
    .collection("orders")
    .insertMany(Array.from({ length: 50 }, (_, i) => ({ i, note: `order ${i}` })));
  user = await server.registerUser();
  api = userApi(base, user.token);
  const hook = await api("POST", "/api/settings/webhooks", { url: `${receiver.url}/copies`, events: ["copy.missing", "copy.changed"] });
  expect(hook.status).toBe(201);
  const setup = await runSetup({
    baseUrl: base,
    apiKey: user.apiKey,
    databases: [{ name: "shop", uri: env.uriFor(source) }],
    directory: await env.makeTempDir(),
  });
  expect(setup.exitCode).toBe(0);
  configPath = setup.configPath;
  await moto.createBucket("customer-checked", { objectLock: false });
  const added = await runAgent(["copies", "add", `s3://customer-checked/offsite?endpoint=${moto.endpoint}&region=us-east-1`, "--config", configPath], {
    command: [BINARY_PATH],
    env: { AWS_ACCESS_KEY_ID: copyKeyId, AWS_SECRET_ACCESS_KEY: copySecret },
  });
  expect(added.exitCode).toBe(0);
  bucket = new Bun.S3Client({ endpoint: moto.endpoint, bucket: "customer-checked", accessKeyId: copyKeyId, secretAccessKey: copySecret, region: "us-east-1" });
  agent = startAgentProcess(configPath);
  await waitUntil(() => agent!.log().includes("connected to the DBVault server"), { timeout: 30_000, message: "the agent to connect" });
  for (let i = 0; i < 3; i++) backups.push(await backUp());
}, 180_000);

afterAll(async () => {
  if (agent) await agent.stop("SIGKILL");
  await server?.close();
  await moto?.stop();
  await env?.close();
  receiver?.close();
});

describe("copies check", () => {
  test("one copy deleted, one overwritten with as many other bytes: found by HEAD (size, ETag), reported, alerted once", async () => {
    const [deleted, overwritten, intact] = backups as [Backup, Backup, Backup];
    await bucket.delete(deleted.copies[0]!.key);
    await bucket.write(overwritten.copies[0]!.key, randomBytes(overwritten.size)); // same size: only the ETag tells
    const run = await check("--json");
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toBe(
      "dbvault-agent: copies check: 2 copies not as written: 1 missing, 1 changed\ndbvault-agent: hint: DBVault has alerted the account; the backups in DBVault are not affected. Check who can delete or overwrite objects in that bucket\n",
    );
    const output = JSON.parse(run.stdout);
    expect(output.checked).toBe(3);
    expect(output.readBack).toBe(1);
    const byBackup = (backup: Backup) => output.results.find((result: { backupId: string }) => result.backupId === backup.id);
    expect(byBackup(deleted)).toMatchObject({
      outcome: "missing",
      readBack: false,
      key: deleted.copies[0]!.key,
      detail: `the bucket has no object ${deleted.copies[0]!.key} (NoSuchKey)`,
    });
    expect(byBackup(overwritten)).toMatchObject({ outcome: "changed", readBack: false });
    expect(byBackup(overwritten).detail).toMatch(/^its ETag is [0-9a-f]{32} instead of [0-9a-f]{32}: other bytes were written over it$/);
    // The one copy still present is the sample: read back whole.
    expect(byBackup(intact)).toMatchObject({ outcome: "present", readBack: true });
    expect(output.notConfigured).toEqual([]);

    expect(await copyOf(deleted)).toMatchObject({ status: "missing", error: `the bucket has no object ${deleted.copies[0]!.key} (NoSuchKey)` });
    expect((await copyOf(overwritten)).status).toBe("changed");
    expect((await copyOf(intact)).status).toBe("stored");
    const missing = await waitUntil(() => received("copy.missing")[0], { message: "the copy.missing webhook" });
    expect(missing.body.copies).toEqual([
      { backupId: deleted.id, databaseName: "shop", destination: deleted.copies[0]!.destination, key: deleted.copies[0]!.key, detail: expect.any(String) },
    ]);
    const changed = await waitUntil(() => received("copy.changed")[0], { message: "the copy.changed webhook" });
    expect(changed.body.copies.map((copy: { backupId: string }) => copy.backupId)).toEqual([overwritten.id]);
    const mail = await waitUntil(() => server.sentMail.find((sent) => sent.subject === 'Backup copies missing: "shop"'), { message: "the mail" });
    expect(mail.to).toBe(user.email);
    expect(server.sentMail.some((sent) => sent.subject === 'Backup copies changed: "shop"')).toBe(true);

    // Again, read as people read it: the same findings, no second alert.
    const again = await check();
    expect(again.exitCode).toBe(1);
    expect(again.stdout).toContain(`missing  ${deleted.copies[0]!.key} in s3://customer-checked/offsite/: the bucket has no object`);
    expect(again.stdout).toContain(`changed  ${overwritten.copies[0]!.key} in s3://customer-checked/offsite/: its ETag is`);
    expect(again.stderr).toStartWith("dbvault-agent: checked 3 copies in 1 bucket, 1 read back whole; reported to DBVault\n");
    expect(received("copy.missing").length + received("copy.changed").length).toBe(2);
    expect(agent!.log()).not.toContain(copySecret);
  }, 120_000);

  test("a copy overwritten where HEAD cannot tell (no ETag recorded by an older agent) is caught by the read-back", async () => {
    const intact = backups[2]!;
    await server.ctx.db.execute(sql`update backup_copies set etag = null where backup_id = ${intact.id}`);
    await bucket.write(intact.copies[0]!.key, randomBytes(intact.size));
    const run = await check("--sample", "all", "--json");
    expect(run.exitCode).toBe(1);
    const result = JSON.parse(run.stdout).results.find((entry: { backupId: string }) => entry.backupId === intact.id);
    expect(result).toMatchObject({ outcome: "changed", readBack: true });
    expect(result.detail).toMatch(
      new RegExp(`^read back whole \\(${intact.size} bytes\\), its SHA-256 is [0-9a-f]{64} instead of the ${intact.sha256} written$`),
    );
    const changed = await waitUntil(() => received("copy.changed").find((delivery) => delivery.body.copies[0].backupId === intact.id), {
      message: "the copy.changed webhook for the read-back",
    });
    expect(changed.body.copies[0].detail).toBe(result.detail);
  }, 120_000);

  test("the running agent checks by itself once a day: a copy deleted since is reported and alerted", async () => {
    const fresh = await backUp();
    await bucket.delete(fresh.copies[0]!.key);
    advanceServerClock(server, 25 * 3600_000); // a day since the last check
    // The agent asks at each connection (and every hour): a restart makes it ask now.
    await agent!.stop("SIGTERM");
    agent = startAgentProcess(configPath);
    const alert = await waitUntil(() => received("copy.missing").find((delivery) => delivery.body.copies[0].backupId === fresh.id), {
      timeout: 60_000,
      message: "the running agent's check to raise copy.missing",
    });
    expect(alert.body.copies[0].key).toBe(fresh.copies[0]!.key);
    expect((await copyOf(fresh)).status).toBe("missing");
    await waitUntil(() => agent!.log().includes("copy check found copies not as written"), { message: "the agent to log its check" });
  }, 120_000);
});
