// The real path end to end over loopback: a real server (harness), the compiled agent
// (dist/dbvault-agent) and the MongoDB test server. A user's API key sets the agent up, `run`
// connects it, a manual and a scheduled backup go through it with progress seen by a browser
// socket, the download is decrypted by the agent's CLI, and a restore into a fresh database
// brings back every document byte for byte; a webhook receiver on loopback is told of each step,
// signed. Failure paths: end-to-end-failures.integration.test.ts.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { stat, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { announceAgentDisconnection, startTestServer, type TestServer, type TestUser } from "../../server/test/harness.ts";
import { runDueBackups } from "../../server/src/modules/scheduler/service.ts";
import { summarizeArchive } from "../src/dump/mongodump-archive/index.ts";
import { buildAwkwardDatabase } from "./support/awkward-database.ts";
import { snapshotDatabase } from "./support/database-snapshot.ts";
import { ensureFreshBinary, openBrowserSocket, type RunningAgent, runSetup, startAgentProcess } from "./support/end-to-end.ts";
import { BINARY_PATH, runAgent } from "./support/run-agent.ts";
import { type AgentTestEnv, openAgentTestEnv } from "./support/test-env.ts";
import { waitUntil } from "../../testkit/wait-until";
import { isSignedBy, startWebhookReceiver, type WebhookReceiver } from "../../testkit/webhook-receiver";

let env: AgentTestEnv;
let server: TestServer;
let base: string;
let user: TestUser;
let dir: string;
let configPath: string;
let agent: RunningAgent;
let agentId: string;
let source: string;
let socket: Awaited<ReturnType<typeof openBrowserSocket>>;
let backupId: string;
let sourceCounts: Record<string, number>;
let receiver: WebhookReceiver;
let webhookSecret: string;
const binary = { command: [BINARY_PATH] };

async function api(method: string, path: string, body?: unknown) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${user.token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: any = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: response.status, body: parsed };
}

beforeAll(async () => {
  await ensureFreshBinary();
  env = await openAgentTestEnv();
  server = await startTestServer({ WEBHOOK_ALLOW_PRIVATE: "true" });
  base = server.listen();
  receiver = startWebhookReceiver();
  dir = await env.makeTempDir();
  source = env.uniqueDatabase("e2e_src");
  await buildAwkwardDatabase(env.client.db(source), { largeDocuments: false });
  sourceCounts = {};
  for (const info of await env.client.db(source).listCollections().toArray()) {
    sourceCounts[`${source}.${info.name}`] = info.type === "view" ? 0 : await env.client.db(source).collection(info.name).countDocuments();
  }
  user = await server.registerUser();
  const webhook = await server.call("POST", "/api/settings/webhooks", {
    token: user.token,
    body: {
      url: `${receiver.url}/dbvault`,
      events: ["agent.online", "agent.offline", "backup.completed", "backup.failed", "restore.completed", "restore.failed"],
    },
  });
  expect(webhook.status).toBe(201);
  webhookSecret = webhook.body.secret;
});

afterAll(async () => {
  socket?.close();
  if (agent) await agent.stop("SIGKILL");
  receiver?.close();
  await server.close();
  await env.close();
});

describe("setup, run, backup, download, decrypt, restore", () => {
  test("setup tests the database, registers the agent and prints the master key once", async () => {
    const setup = await runSetup({ baseUrl: base, apiKey: user.apiKey, databases: [{ name: "shop", uri: env.uriFor(source) }], directory: dir });
    expect(setup.stderr).toContain(`connected to "shop" at `);
    expect(setup.exitCode).toBe(0);
    configPath = setup.configPath;
    expect((await stat(configPath)).mode & 0o777).toBe(0o600);
    const config = JSON.parse(await readFile(configPath, "utf8"));
    // The server's release signing key is pinned: updates are installed only when it signed them.
    const releaseKey = server.ctx.releaseKey.publicKey;
    expect(config.server).toEqual({ url: base, apiKey: user.apiKey, agentId: expect.any(String), agentToken: expect.stringMatching(/^dbvt_/), releaseKey });
    expect(setup.stderr).toContain(`release signing key ${releaseKey}: updates are installed only when this key signed them`);
    expect(config.databases).toEqual([{ name: "shop", uri: env.uriFor(source) }]);
    agentId = config.server.agentId;
    expect(setup.stdout).toContain(`\n  ${config.masterKey}\n`);
    expect(setup.stdout).toContain("Without it no backup can ever be restored");
    expect(setup.stdout).toContain("dbvault-agent key export");
    expect(setup.stderr).toContain(`registered agent "e2e-agent" (id ${agentId})`);
    for (const output of [setup.stdout, setup.stderr]) {
      expect(output).not.toContain("mongodb://");
      expect(output).not.toContain(user.apiKey);
    }
    const databases = await api("GET", "/api/settings/databases");
    expect(databases.body.map((d: { name: string; isActive: boolean }) => [d.name, d.isActive])).toEqual([["shop", true]]);

    const again = await runSetup({ baseUrl: base, apiKey: user.apiKey, databases: [{ name: "shop", uri: env.uriFor(source) }], directory: dir });
    expect(again.exitCode).toBe(4);
    expect(again.stderr).toContain("is already connected to");
    expect(JSON.parse(await readFile(configPath, "utf8")).masterKey).toBe(config.masterKey);
  });

  test("run connects: the agent shows online with its name, version and platform", async () => {
    agent = startAgentProcess(configPath);
    const status = await waitUntil(
      async () => {
        const response = await api("GET", "/api/settings/system-status");
        return response.body.agents?.[0]?.status === "active" ? response.body : undefined;
      },
      { message: "the agent to be online", timeout: 30_000 },
    );
    const { version } = JSON.parse(await readFile(join(import.meta.dir, "../../package.json"), "utf8"));
    expect(status.agents).toEqual([
      expect.objectContaining({ id: agentId, name: "e2e-agent", version, platform: `${process.platform}-${process.arch}`, status: "active" }),
    ]);
    expect(status.backupService).toBe(true);
    // The server lists the agent active on its hello; the agent logs once the welcome reached it.
    await waitUntil(() => agent.log().includes('"msg":"connected to the DBVault server"'), { message: "the agent to log its connection" });
  });

  test("a manual backup runs on the agent with progress seen by a browser socket", async () => {
    socket = await openBrowserSocket(base, user.token);
    const created = await api("POST", "/api/backups", { databaseName: "shop" });
    expect(created.status).toBe(201);
    backupId = created.body._id ?? created.body.id;
    await socket.waitFor("the completed event", (e) => e.type === "backupProgress" && e.backupId === backupId && e.status === "completed");
    const mine = socket.events.filter((e) => e.backupId === backupId);
    const running = mine.filter((e) => e.status === "in-progress");
    expect(running.length).toBeGreaterThan(0);
    expect(running.at(-1)!.progress).toMatchObject({ percentage: 100, collection: expect.any(String) });
    expect(mine.at(-1)!.status).toBe("completed");
    const backup = await api("GET", `/api/backups/${backupId}`);
    expect(backup.body).toMatchObject({ status: "completed", databaseName: "shop", type: "manual" });
    expect(backup.body.size).toBeGreaterThan(1000);
    // The dump's per-collection counts (names and numbers, no data) come with the completed upload.
    const counts: Record<string, number> = {};
    for (const info of await env.client.db(source).listCollections().toArray()) {
      counts[`${source}.${info.name}`] = info.type === "view" ? 0 : await env.client.db(source).collection(info.name).countDocuments();
    }
    expect(backup.body.collections).toEqual(counts);
  });

  test("a second manual backup before the plan allows answers 429 with nextBackupAvailable", async () => {
    const again = await api("POST", "/api/backups", { databaseName: "shop" });
    expect(again.status).toBe(429);
    expect(again.body.message).toContain("one manual backup every 24 hours");
    expect(Date.parse(again.body.nextBackupAvailable)).toBeGreaterThan(Date.now() + 23 * 3_600_000);
  });

  test("the download is ciphertext that dbvault-agent decrypt turns into the database's mongodump archive", async () => {
    const response = await fetch(`${base}/api/backups/${backupId}/download`, { headers: { authorization: `Bearer ${user.token}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-disposition")).toMatch(/^attachment; filename="backup-shop-.+\.enc\.dbvault"$/);
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(Number(response.headers.get("content-length"))).toBe(bytes.length);
    expect(bytes.includes(Buffer.from("héllo"))).toBe(false); // encrypted, not plaintext
    const file = join(dir, "download.enc.dbvault");
    await writeFile(file, bytes);
    const archive = join(dir, "download.archive");
    const decrypted = await runAgent(["decrypt", "--in", file, "--out", archive, "--config", configPath], binary);
    expect(decrypted.stderr).toContain(`restore it with: mongorestore --archive=${archive}`);
    expect(decrypted.exitCode).toBe(0);
    const summary = await summarizeArchive([await readFile(archive)]);
    expect(Object.fromEntries(summary.namespaces.map((n) => [n.namespace, n.documentCount]))).toEqual(sourceCounts);
  });

  test("a restore into a fresh database brings back every collection, index and document byte for byte", async () => {
    // The server restores a backup over the database of the same name; pointing that name at a
    // new, empty MongoDB database (and asking the agent to reload) makes it a restore into a fresh one.
    const fresh = env.uniqueDatabase("e2e_fresh");
    const config = JSON.parse(await readFile(configPath, "utf8"));
    await writeFile(configPath, JSON.stringify({ ...config, databases: [{ name: "shop", uri: env.uriFor(fresh) }] }), { mode: 0o600 });
    // Until the old socket has closed the server still lists the agent active, so wait for the
    // agent's next welcome before asking for the restore.
    const welcomes = () => agent.log().split("connected to the DBVault server").length - 1;
    const welcomedBefore = welcomes();
    const restart = await api("POST", `/api/agents/manage/${agentId}`, { action: "restart" });
    expect(restart.status).toBe(200);
    await waitUntil(() => agent.log().includes("restart requested"), { message: "the restart", timeout: 30_000 });
    await waitUntil(async () => welcomes() > welcomedBefore && (await api("GET", "/api/settings/system-status")).body.agents[0].status === "active", {
      message: "the agent to reconnect",
      timeout: 30_000,
    });

    const requested = await api("POST", `/api/backups/${backupId}/restore`, { databaseName: "shop" });
    expect(requested.status).toBe(201);
    const restoreId = requested.body.restore._id ?? requested.body.restore.id;
    const done = await socket.waitFor(
      "the restore's end",
      (e) => e.type === "restoreProgress" && e.restoreId === restoreId && ["completed", "failed"].includes(String(e.status)),
    );
    expect(done).toMatchObject({ status: "completed", error: null });
    expect(socket.events.some((e) => e.restoreId === restoreId && e.status === "in-progress")).toBe(true);

    const original = await snapshotDatabase(env.client.db(source));
    const restored = await snapshotDatabase(env.client.db(fresh));
    expect(restored.map((c) => c.name)).toEqual(original.map((c) => c.name));
    for (const [i, collection] of restored.entries()) {
      const before = original[i]!;
      expect({ name: collection.name, options: collection.options, indexes: collection.indexes }).toEqual({
        name: before.name,
        options: before.options,
        indexes: before.indexes,
      });
      expect(collection.documents.length).toBe(before.documents.length);
      collection.documents.forEach((document, j) => {
        if (!document.equals(before.documents[j]!)) throw new Error(`${collection.name}: document ${j} differs after the restore`);
      });
    }
    const history = await api("GET", "/api/backups/restores/all");
    expect(history.body[0]).toMatchObject({ status: "completed", databaseName: "shop" });
  });

  test("a restore as a copy of chosen collections lands beside the database, which stays as it was", async () => {
    const fresh = JSON.parse(await readFile(configPath, "utf8"))
      .databases[0].uri.split("/")
      .pop()
      .split("?")[0];
    const before = await snapshotDatabase(env.client.db(fresh));
    const chosen = before
      .filter((c) => c.type === "collection")
      .map((c) => c.name)
      .slice(0, 2);
    const copy = `${fresh}_copy`;
    const requested = await api("POST", `/api/backups/${backupId}/restore`, { databaseName: copy, targetDatabase: copy, collections: chosen });
    expect(requested.status).toBe(201);
    const restoreId = requested.body.restore._id ?? requested.body.restore.id;
    const done = await socket.waitFor(
      "the copy's end",
      (e) => e.type === "restoreProgress" && e.restoreId === restoreId && ["completed", "failed"].includes(String(e.status)),
    );
    expect(done).toMatchObject({ status: "completed", error: null });
    const copied = await snapshotDatabase(env.client.db(copy));
    expect(copied.map((c) => c.name)).toEqual(chosen);
    const original = await snapshotDatabase(env.client.db(source));
    for (const collection of copied) expect(collection.documents).toEqual(original.find((c) => c.name === collection.name)!.documents);
    expect(await snapshotDatabase(env.client.db(fresh))).toEqual(before);
    const history = await api("GET", "/api/backups/restores/all");
    expect(history.body[0]).toMatchObject({ status: "completed", databaseName: "shop", targetDatabase: copy, collections: chosen });
    expect(Object.keys(history.body[0].stats)).toEqual(chosen.map((name) => `${copy}.${name}`));
  });

  test("a scheduled backup runs through the same agent", async () => {
    const started = await runDueBackups(server.ctx);
    expect(started).toBeGreaterThanOrEqual(1);
    const auto = await waitUntil(
      async () => {
        const list = (await api("GET", "/api/backups?databaseName=shop")).body as { type: string; status: string }[];
        const found = list.find((b) => b.type === "auto");
        return found && found.status !== "pending" && found.status !== "in-progress" ? found : undefined;
      },
      { message: "the scheduled backup to complete", timeout: 30_000 },
    );
    expect(auto).toMatchObject({ status: "completed", type: "auto" });
  });

  test("db add tests and registers a second database; past the plan's limit it is disabled and cannot be backed up", async () => {
    const other = env.uniqueDatabase("e2e_other");
    await env.client
      .db(other)
      .collection("x")
      .insertOne({ _id: 1 } as never);
    const added = await runAgent(["db", "add", "--db", "analytics", "--uri-file", "-", "--config", configPath], {
      ...binary,
      stdin: new TextEncoder().encode(env.uriFor(other)),
    });
    expect(added.stderr).toContain('dbvault-agent: connected to "analytics"');
    expect(added.stderr).toContain(`dbvault-agent: warning: "analytics" is disabled: your plan's database limit is reached`);
    expect(added.exitCode).toBe(0);
    expect(added.stderr).not.toContain("mongodb://");
    const listed = await runAgent(["db", "list", "--config", configPath], binary);
    expect(listed.stdout.split("\n").map((line) => line.split("\t")[0])).toEqual(["shop", "analytics", ""]);
    const refused = await api("POST", "/api/backups", { databaseName: "analytics" });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain("is disabled");
  });

  test("SIGTERM stops the agent cleanly (exit 0, offline) and its log never held a secret", async () => {
    const config = JSON.parse(await readFile(configPath, "utf8"));
    expect(await agent.stop("SIGTERM")).toBe(0);
    expect(agent.log()).toContain('"msg":"stopped"');
    for (const secret of [user.apiKey, config.masterKey, config.server.agentToken, "mongodb://"]) expect(agent.log()).not.toContain(secret);
    await waitUntil(async () => (await api("GET", "/api/settings/system-status")).body.agents[0].status === "offline", {
      message: "the agent to be offline",
      timeout: 30_000,
    });
    await announceAgentDisconnection(server, agentId); // agent.offline, past the grace period
  });

  test("the webhook was told of each step, every delivery signed with its secret", async () => {
    const events = await waitUntil(
      () => {
        const seen = receiver.received.map((delivery) => delivery.event);
        return seen.includes("agent.offline") && seen;
      },
      { message: "the agent.offline delivery" },
    );
    expect(events[0]).toBe("agent.online");
    expect(events.at(-1)).toBe("agent.offline");
    expect(events.filter((event) => event === "backup.completed").length).toBeGreaterThanOrEqual(2); // manual and scheduled
    expect(events.filter((event) => event === "restore.completed").length).toBeGreaterThanOrEqual(2);
    expect(events).not.toContain("backup.failed");
    for (const delivery of receiver.received) expect(isSignedBy(webhookSecret, delivery.rawBody, delivery.signature)).toBe(true);
    const manual = receiver.received.find((delivery) => delivery.body.backup?.id === backupId);
    expect(manual?.body).toMatchObject({ event: "backup.completed", backup: { databaseName: "shop", status: "completed", collections: sourceCounts } });
  });
});
