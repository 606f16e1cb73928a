// The server side of the backup pipeline over real HTTP and WebSockets: agent registration and
// socket, manual backups with multi-part uploads, downloads, restores, limits and failures.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { eq, sql } from "drizzle-orm";
import { agents, auditLogs, backups, databases, plans, restores, organizations } from "@db/schema";
import { AgentHeaders, agentApi, UPLOAD_PART_SIZE } from "@protocol/agent-protocol";
import { QUEUED_LIMIT_MS } from "../src/modules/agent-jobs/lease-rules";
import { releasePendingBackupData } from "../src/modules/backups/service";
import { StorageUnavailableError } from "../src/storage/errors";
import { stagedUploadPath } from "../src/storage/file-uploads";
import { runDueBackups } from "../src/modules/scheduler/service";
import { expireLeases, STALLED_RESTORE_MESSAGE } from "../src/modules/agent-jobs/lease-rules";
import { waitUntil } from "../../testkit/wait-until";
import { startTestServer, type TestServer, type TestUser } from "./harness";
import { registerScriptedAgent, type ScriptedAgent } from "./scripted-agent";

let server: TestServer;
let base: string;

beforeAll(async () => {
  server = await startTestServer();
  base = server.listen();
});
afterAll(() => server.close());

async function auditActions(userId: string) {
  const rows = await server.ctx.db.select().from(auditLogs).where(eq(auditLogs.organizationId, userId));
  return rows.map((r) => r.action);
}

/** A browser-side realtime client, authenticated with the user's token. */
async function openBrowserSocket(token: string) {
  const events: Record<string, unknown>[] = [];
  const socket = new WebSocket(`${base.replace(/^http/, "ws")}/api/ws`);
  await new Promise<void>((resolve) => (socket.onopen = () => resolve()));
  const ready = new Promise<void>((resolve) => {
    socket.onmessage = (event) => {
      const data = JSON.parse(String(event.data)) as Record<string, unknown>;
      if (data.type === "ready") resolve();
      else events.push(data);
    };
  });
  socket.send(JSON.stringify({ type: "auth", token }));
  await ready;
  return { events, close: () => socket.close() };
}

async function waitUntilOffline(user: TestUser) {
  await waitUntil(async () => (await server.call("GET", "/api/settings/system-status", { token: user.token })).body.agents[0]?.status === "offline", {
    message: "the agent to show as offline",
  });
}

async function setupUserWithAgent(databases = ["orders"]) {
  const user = await server.registerUser();
  const agent = await registerScriptedAgent(base, user.apiKey, databases);
  await agent.connect();
  return { user, agent };
}

async function trigger(user: TestUser, databaseName: string) {
  return server.call("POST", "/api/backups", { token: user.token, body: { databaseName } });
}

/** A user with an agent, and a manual backup of "orders" the agent was told to start. */
async function runningBackup() {
  const { user, agent } = await setupUserWithAgent();
  await trigger(user, "orders");
  const { backupId } = await agent.waitFor("backup");
  return { user, agent, backupId };
}

async function completedBackup(user: TestUser, agent: ScriptedAgent, bytes: Uint8Array, databaseName = "orders") {
  const created = await trigger(user, databaseName);
  expect(created.status).toBe(201);
  const command = await agent.waitFor("backup");
  const done = await agent.upload(command.backupId, bytes);
  expect(done.status).toBe(200);
  return command.backupId;
}

describe("agents", () => {
  test("registration records the agent and its databases; the first dbLimit are active", async () => {
    const user = await server.registerUser();
    const agent = await registerScriptedAgent(base, user.apiKey, ["orders", "analytics"]);
    const dbs = await server.call("GET", "/api/settings/databases", { token: user.token });
    expect(dbs.body.map((d: { name: string; isActive: boolean }) => [d.name, d.isActive])).toEqual([
      ["orders", true],
      ["analytics", false],
    ]);
    expect(await auditActions(user.id)).toContain("AGENT_REGISTERED");
    let status = await server.call("GET", "/api/settings/system-status", { token: user.token });
    expect(status.body.agents).toEqual([expect.objectContaining({ id: agent.agentId, name: "test-agent", status: "offline" })]);
    expect(status.body.backupService).toBe(true);
    await agent.connect();
    await waitUntil(
      async () => {
        status = await server.call("GET", "/api/settings/system-status", { token: user.token });
        expect(status.body.agents[0]).toMatchObject({ status: "active", version: "1.0.0", platform: "linux-x64" });
        return true;
      },
      { message: "the agent to show as online with its hello" },
    );
    await agent.disconnect();
    // The close handler marks the agent offline at once; the announcement waits a grace period
    // (agent-disconnect-grace.integration.test.ts).
    await waitUntilOffline(user);
  });

  test("a bad API key or agent token cannot register or connect", async () => {
    const bad = await fetch(`${base}${agentApi.register}`, {
      method: "POST",
      headers: { authorization: "Bearer dbv_not-a-key", "content-type": "application/json" },
      body: JSON.stringify({ name: "x", hostname: "h", platform: "p", version: "1", databases: [] }),
    });
    expect(bad.status).toBe(401);
    const { user, agent } = await setupUserWithAgent();
    const forged = await fetch(`${base}${agentApi.databases}`, {
      method: "POST",
      headers: { ...agent.headers(), "x-agent-token": "dbvt_forged", "content-type": "application/json" },
      body: JSON.stringify({ name: "more" }),
    });
    expect(forged.status).toBe(401);
    expect(user.id).toBeString();
  });

  test("a registration that fails part-way leaves no agent, database or audit entry behind", async () => {
    const user = await server.registerUser();
    // A real failure inside the database on the second insert (the databases row), not a mock.
    await server.ctx.db.execute(
      sql.raw(`
      create or replace function refuse_doomed_database() returns trigger language plpgsql as $$
      begin if new.name = 'doomed' then raise exception 'refused by the test'; end if; return new; end $$`),
    );
    await server.ctx.db.execute(
      sql.raw("create trigger refuse_doomed_database before insert on databases for each row execute function refuse_doomed_database()"),
    );
    try {
      const answer = await fetch(`${base}${agentApi.register}`, {
        method: "POST",
        headers: { authorization: `Bearer ${user.apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "half", hostname: "h", platform: "linux-x64", version: "1.0.0", databases: ["doomed"] }),
      });
      expect(answer.status).toBe(500);
    } finally {
      await server.ctx.db.execute(sql.raw("drop trigger refuse_doomed_database on databases"));
      await server.ctx.db.execute(sql.raw("drop function refuse_doomed_database()"));
    }
    const left = await Promise.all([
      server.ctx.db.select().from(agents).where(eq(agents.organizationId, user.id)),
      server.ctx.db.select().from(databases).where(eq(databases.organizationId, user.id)),
      server.ctx.db.select().from(auditLogs).where(eq(auditLogs.organizationId, user.id)),
    ]);
    expect(left.map((rows) => rows.length)).toEqual([0, 0, 0]);
  });

  test("regenerating the API key leaves the agent running on its own credentials; the old key registers nothing", async () => {
    const { user, agent } = await setupUserWithAgent();
    const oldKey = user.apiKey;
    expect((await server.call("POST", "/api/settings/regenerate-api-key", { token: user.token, body: { password: user.password } })).status).toBe(200);
    // Still sending the old key, as an agent set up before does: its id and token are what count.
    const again = await fetch(`${base}${agentApi.databases}`, {
      method: "POST",
      headers: { ...agent.headers(), "content-type": "application/json" },
      body: JSON.stringify({ name: "more" }),
    });
    expect(again.status).toBe(200);
    expect(agent.received.some((message) => message.type === "close")).toBe(false);
    await expect(registerScriptedAgent(base, oldKey, ["orders"])).rejects.toThrow("register failed: 401");
  });

  test("manage: restart and update reach the agent; reset replaces its token; offline agents get 409", async () => {
    const { user, agent } = await setupUserWithAgent();
    const manage = (action: string, agentId = agent.agentId) => server.call("POST", `/api/agents/manage/${agentId}`, { token: user.token, body: { action } });
    expect((await manage("restart")).body.message).toBe("Restart command sent to agent");
    await agent.waitFor("restart");
    expect((await manage("update")).body.message).toBe("Update check command sent to agent");
    await agent.waitFor("update");
    const reset = await manage("reset");
    expect(reset.body.message).toContain("new connection credentials");
    const { agentToken } = await agent.waitFor("reset");
    const oldToken = agent.agentToken;
    agent.agentToken = agentToken;
    const withNew = await fetch(`${base}${agentApi.databases}`, {
      method: "POST",
      headers: { ...agent.headers(), "content-type": "application/json" },
      body: JSON.stringify({ name: "extra" }),
    });
    expect(withNew.status).toBe(200);
    agent.agentToken = oldToken;
    expect((await fetch(`${base}${agentApi.uploadStatus("x")}`, { headers: agent.headers() })).status).toBe(401);
    expect((await manage("explode")).status).toBe(400);
    const other = await server.registerUser();
    expect((await server.call("POST", `/api/agents/manage/${agent.agentId}`, { token: other.token, body: { action: "restart" } })).status).toBe(404);
    await agent.disconnect();
    await waitUntilOffline(user);
    expect((await manage("restart")).status).toBe(409);
  });

  test("the public service check answers ok", async () => {
    const res = await fetch(`${base}/api/agents/server-status`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ ok: true, status: "ok" });
  });
});

describe("backups", () => {
  test("a manual backup uploads in parts, completes, and is announced live and by mail", async () => {
    const { user, agent } = await setupUserWithAgent();
    const browser = await openBrowserSocket(user.token);
    const bytes = randomBytes(2 * UPLOAD_PART_SIZE + 12345);
    const created = await trigger(user, "orders");
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ databaseName: "orders", status: "pending", type: "manual" });
    expect(created.body._id).toMatch(/^[0-9a-f]{24}$/);
    const command = await agent.waitFor("backup");
    expect(command).toMatchObject({ backupId: created.body._id, databaseName: "orders" });
    agent.send({ type: "backup.progress", backupId: command.backupId, progress: { current: 50, total: 100, percentage: 50, collection: "orders.items" } });
    await waitUntil(
      async () => {
        expect((await server.call("GET", `/api/backups/${command.backupId}`, { token: user.token })).body).toMatchObject({
          status: "in-progress",
          progress: { current: 50, total: 100, percentage: 50, collection: "orders.items" },
        });
        return true;
      },
      { message: "the reported progress to show" },
    );
    expect((await agent.upload(command.backupId, bytes)).status).toBe(200);

    const backup = (await server.call("GET", `/api/backups/${command.backupId}`, { token: user.token })).body;
    expect(backup).toMatchObject({ status: "completed", size: bytes.byteLength });
    expect(backup.sha256).toBe(new Bun.CryptoHasher("sha256").update(bytes).digest("hex"));
    expect((await server.call("GET", "/api/user/profile", { token: user.token })).body.storageUsed).toBe(bytes.byteLength);
    expect(await auditActions(user.id)).toEqual(expect.arrayContaining(["BACKUP_CREATED", "BACKUP_COMPLETED"]));
    await server.ctx.pendingWork.settled(); // mail goes out through the outbox, in the background
    expect(server.sentMail.some((m) => m.to === user.email && m.subject === "Backup completed: orders")).toBe(true);
    await waitUntil(() => browser.events.length >= 3, { message: "three realtime events in the browser" });
    expect(browser.events.map((e) => `${e.type}:${e.status}`)).toEqual(["backupProgress:pending", "backupProgress:in-progress", "backupProgress:completed"]);
    // The completed event carries the stored size: the row never shows '0 Bytes' until a refetch.
    expect(browser.events.at(-1)).toMatchObject({ status: "completed", size: bytes.byteLength });
    browser.close();

    const list = await server.call("GET", "/api/backups", { token: user.token });
    expect(list.body.map((b: { _id: string }) => b._id)).toEqual([command.backupId]);
  });

  test("download streams the whole file with its name, and byte ranges", async () => {
    const { user, agent } = await setupUserWithAgent();
    const bytes = randomBytes(UPLOAD_PART_SIZE + 1000);
    const backupId = await completedBackup(user, agent, bytes);
    const auth = { authorization: `Bearer ${user.token}` };
    const whole = await fetch(`${base}/api/backups/${backupId}/download`, { headers: auth });
    expect(whole.status).toBe(200);
    expect(whole.headers.get("content-length")).toBe(String(bytes.byteLength));
    const [row] = await server.ctx.db.select().from(backups).where(eq(backups.id, backupId));
    expect(whole.headers.get("content-disposition")).toBe(`attachment; filename="backup-orders-${row!.createdAt.toISOString()}.enc.dbvault"`);
    expect(Buffer.from(await whole.arrayBuffer()).equals(bytes)).toBe(true);

    // A range across the part boundary.
    const start = UPLOAD_PART_SIZE - 10;
    const ranged = await fetch(`${base}/api/backups/${backupId}/download`, { headers: { ...auth, range: `bytes=${start}-${start + 19}` } });
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get("content-range")).toBe(`bytes ${start}-${start + 19}/${bytes.byteLength}`);
    expect(Buffer.from(await ranged.arrayBuffer()).equals(bytes.subarray(start, start + 20))).toBe(true);
    const tail = await fetch(`${base}/api/backups/${backupId}/download`, { headers: { ...auth, range: "bytes=-5" } });
    expect(Buffer.from(await tail.arrayBuffer()).equals(bytes.subarray(bytes.byteLength - 5))).toBe(true);
    const outside = await fetch(`${base}/api/backups/${backupId}/download`, { headers: { ...auth, range: `bytes=${bytes.byteLength}-` } });
    expect(outside.status).toBe(416);
  });

  test("a second manual backup before the plan allows answers 429 with the next time", async () => {
    const { user, agent } = await setupUserWithAgent();
    await completedBackup(user, agent, randomBytes(1000));
    const again = await trigger(user, "orders");
    expect(again.status).toBe(429);
    expect(again.body.message).toBe("Your Free plan allows one manual backup every 24 hours.");
    expect(Date.parse(again.body.nextBackupAvailable)).toBeGreaterThan(Date.now() + 23 * 3_600_000);
  });

  test("only active, existing databases of the user with an online agent can be backed up", async () => {
    const { user, agent } = await setupUserWithAgent(["orders", "analytics"]);
    expect((await trigger(user, "analytics")).status).toBe(403);
    expect((await trigger(user, "nope")).status).toBe(404);
    expect((await server.call("POST", "/api/backups", { token: user.token, body: {} })).status).toBe(400);
    await agent.disconnect();
    await waitUntilOffline(user);
    const offline = await trigger(user, "orders");
    expect(offline.status).toBe(409);
    expect(offline.body.message).toContain("No agent is online");
  });

  test("a dropped upload resumes from the parts already received, counted once", async () => {
    const { user, agent, backupId } = await runningBackup();
    const bytes = randomBytes(UPLOAD_PART_SIZE + 500);
    expect((await agent.uploadPart(backupId, 0, bytes.subarray(0, UPLOAD_PART_SIZE))).status).toBe(200);
    const status = await fetch(`${base}${agentApi.uploadStatus(backupId)}`, { headers: agent.headers() });
    expect(await status.json()).toEqual({ parts: [{ partNumber: 0, size: UPLOAD_PART_SIZE }], uploadedBytes: UPLOAD_PART_SIZE });
    // The agent was not sure part 0 arrived and sends it again: still counted once.
    expect((await agent.uploadPart(backupId, 0, bytes.subarray(0, UPLOAD_PART_SIZE))).status).toBe(200);
    expect((await agent.uploadPart(backupId, 1, bytes.subarray(UPLOAD_PART_SIZE))).status).toBe(200);
    expect((await agent.complete(backupId, bytes, 2)).status).toBe(200);
    expect((await server.call("GET", "/api/user/profile", { token: user.token })).body.storageUsed).toBe(bytes.byteLength);
  });

  test("two parts in flight that wait for upload.go: each gets its go in turn, the file is whole and hashed as it arrived", async () => {
    const { user, agent, backupId } = await runningBackup();
    const bytes = randomBytes(UPLOAD_PART_SIZE + 1234);
    const gone: number[] = [];
    const sayGo: Record<number, () => void> = {};
    const goes: Record<number, Promise<void>> = Object.fromEntries([0, 1].map((n) => [n, new Promise<void>((resolve) => (sayGo[n] = resolve))]));
    // Part 0's body is held 100 ms past its go: part 1 must not be told to send meanwhile. A
    // window of time on purpose: what is checked is that nothing happens during it.
    let toldDuringPart0: number[] = [];
    goes[0] = goes[0]!.then(async () => {
      await Bun.sleep(100);
      toldDuringPart0 = [...gone];
    });
    agent.intercept = (message) => {
      if (message.type !== "upload.go" || message.backupId !== backupId) return false;
      gone.push(message.partNumber);
      sayGo[message.partNumber]?.();
      return true;
    };
    // As dbvault-agent sends them: both requests at once, each body held back until its go.
    const put = (partNumber: number, part: Uint8Array) =>
      fetch(`${base}${agentApi.part(backupId, partNumber)}`, {
        method: "PUT",
        headers: { ...agent.headers(), "content-length": String(part.byteLength), [AgentHeaders.awaitGo]: "1" },
        body: new ReadableStream<Uint8Array>({
          async pull(controller) {
            await goes[partNumber];
            controller.enqueue(part);
            controller.close();
          },
        }),
        duplex: "half",
      } as RequestInit);
    const answers = await Promise.all([put(0, bytes.subarray(0, UPLOAD_PART_SIZE)), put(1, bytes.subarray(UPLOAD_PART_SIZE))]);
    expect(answers.map((res) => res.status)).toEqual([200, 200]);
    // Part 1's go came only after part 0's body was stored: the whole-file hash takes them in order.
    expect(toldDuringPart0).toEqual([0]);
    expect(gone).toEqual([0, 1]);
    const done = await agent.complete(backupId, bytes, 2);
    expect(done.status).toBe(200);
    expect((await done.json()).sha256).toBe(createHash("sha256").update(bytes).digest("hex"));
    const download = await fetch(`${base}/api/backups/${backupId}/download`, { headers: { authorization: `Bearer ${user.token}` } });
    expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);
  });

  test("an incomplete upload or a wrong checksum never becomes a completed backup", async () => {
    const { user, agent, backupId } = await runningBackup();
    const bytes = randomBytes(3000);
    await agent.uploadPart(backupId, 0, bytes);
    const incomplete = await agent.complete(backupId, bytes, 2);
    expect(incomplete.status).toBe(409);
    const corrupt = await agent.complete(backupId, randomBytes(3000), 1);
    expect(corrupt.status).toBe(422);
    const backup = (await server.call("GET", `/api/backups/${backupId}`, { token: user.token })).body;
    expect(backup.status).toBe("failed");
    expect(backup.error).toContain("checksum");
    expect((await server.call("GET", "/api/user/profile", { token: user.token })).body.storageUsed).toBe(0);
    expect((await fetch(`${base}/api/backups/${backupId}/download`, { headers: { authorization: `Bearer ${user.token}` } })).status).toBe(409);
  });

  test("a completion asked again after storage published the file (its manifest write failed) completes the backup, not fails it as lost", async () => {
    const { user, agent, backupId } = await runningBackup();
    const bytes = randomBytes(3000);
    expect((await agent.uploadPart(backupId, 0, bytes)).status).toBe(200);
    // The file is put together, then storage fails once (S3 answering 500 for the manifest, say).
    const storage = server.ctx.storage;
    const put = storage.put.bind(storage);
    storage.put = async () => {
      storage.put = put;
      throw new Error("storage answered 500");
    };
    expect((await agent.complete(backupId, bytes, 1)).status).toBe(500);
    // The agent asks again, as it does after a 5xx.
    expect((await agent.complete(backupId, bytes, 1)).status).toBe(200);
    const backup = (await server.call("GET", `/api/backups/${backupId}`, { token: user.token })).body;
    expect(backup).toMatchObject({ status: "completed", error: null, size: 3000, sha256: createHash("sha256").update(bytes).digest("hex") });
    const download = await fetch(`${base}/api/backups/${backupId}/download`, { headers: { authorization: `Bearer ${user.token}` } });
    expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);
    expect((await server.call("GET", "/api/user/profile", { token: user.token })).body.storageUsed).toBe(3000);
  });

  test("two manual backups of one database asked at the same instant: one starts, the other is refused", async () => {
    const { user, agent } = await setupUserWithAgent();
    const answers = await Promise.all([trigger(user, "orders"), trigger(user, "orders")]);
    // The plan's one manual backup per period is the first check the second request meets.
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 429]);
    expect(answers.find((answer) => answer.status === 429)!.body.message).toMatch(/plan allows one manual backup every/);
    expect((await server.call("GET", "/api/backups", { token: user.token })).body).toHaveLength(1);
    await agent.disconnect();
  });

  test("two completions of one upload at once (a retry while the first still runs) both answer completed; it counts once", async () => {
    for (let round = 0; round < 5; round++) {
      const { user, agent, backupId } = await runningBackup();
      const bytes = randomBytes(3000 + round);
      expect((await agent.uploadPart(backupId, 0, bytes)).status).toBe(200);
      const answers = await Promise.all([agent.complete(backupId, bytes, 1), agent.complete(backupId, bytes, 1)]);
      const sha256 = createHash("sha256").update(bytes).digest("hex");
      for (const answer of answers) {
        expect({ status: answer.status, body: await answer.json() }).toEqual({ status: 200, body: { status: "completed", size: bytes.byteLength, sha256 } });
      }
      const backup = (await server.call("GET", `/api/backups/${backupId}`, { token: user.token })).body;
      expect(backup).toMatchObject({ status: "completed", error: null, size: bytes.byteLength, sha256 });
      expect((await server.call("GET", "/api/user/profile", { token: user.token })).body.storageUsed).toBe(bytes.byteLength);
      await agent.disconnect();
    }
  });

  test("a backup past the plan's storage fails with STORAGE_LIMIT_EXCEEDED and frees what it used", async () => {
    const { user, agent } = await setupUserWithAgent();
    const [tiny] = await server.ctx.db
      .insert(plans)
      .values({ name: `Tiny ${Date.now()}`, price: 0, storageLimit: UPLOAD_PART_SIZE + 100, dbLimit: 1, retentionLimit: 168, frequencyLimit: 24 })
      .returning();
    await server.ctx.db.update(organizations).set({ planId: tiny!.id }).where(eq(organizations.id, user.id));
    await trigger(user, "orders");
    const { backupId } = await agent.waitFor("backup");
    expect((await agent.uploadPart(backupId, 0, randomBytes(UPLOAD_PART_SIZE))).status).toBe(200);
    const over = await agent.uploadPart(backupId, 1, randomBytes(1000));
    expect(over.status).toBe(413);
    expect(((await over.json()) as { code: string }).code).toBe("STORAGE_LIMIT_EXCEEDED");
    const backup = (await server.call("GET", `/api/backups/${backupId}`, { token: user.token })).body;
    expect(backup).toMatchObject({ status: "failed" });
    expect(backup.error).toContain("Storage limit exceeded");
    expect(await auditActions(user.id)).toEqual(expect.arrayContaining(["STORAGE_LIMIT_EXCEEDED", "BACKUP_FAILED"]));
    expect((await server.call("GET", "/api/user/profile", { token: user.token })).body.storageUsed).toBe(0);
    await server.ctx.pendingWork.settled(); // mail goes out through the outbox, in the background
    expect(server.sentMail.some((m) => m.to === user.email && m.subject === "Backup failed: orders")).toBe(true);
  });

  test("delete removes the file and frees storage; running backups cannot be deleted", async () => {
    const { user, agent } = await setupUserWithAgent();
    const backupId = await completedBackup(user, agent, randomBytes(5000));
    const del = await server.call("DELETE", `/api/backups/${backupId}`, { token: user.token });
    expect(del.status).toBe(200);
    expect(del.body.message).toBe("Backup deleted successfully");
    expect((await server.call("GET", `/api/backups/${backupId}`, { token: user.token })).status).toBe(404);
    expect((await server.call("GET", "/api/user/profile", { token: user.token })).body.storageUsed).toBe(0);
    expect(await server.ctx.storage.list(`backups/${user.id}/${backupId}/`)).toEqual([]);
    expect(await auditActions(user.id)).toContain("BACKUP_DELETED_MANUAL");

    await server.ctx.db.update(backups).set({ createdAt: new Date(Date.now() - 48 * 3_600_000) });
    await trigger(user, "orders");
    const { backupId: running } = await agent.waitFor("backup");
    expect((await server.call("DELETE", `/api/backups/${running}`, { token: user.token })).status).toBe(409);
  });

  test("another user's backup is invisible: read, download, delete and restore all 404", async () => {
    const { user, agent } = await setupUserWithAgent();
    const backupId = await completedBackup(user, agent, randomBytes(100));
    const other = await server.registerUser();
    for (const [method, path, body] of [
      ["GET", `/api/backups/${backupId}`],
      ["GET", `/api/backups/${backupId}/download`],
      ["DELETE", `/api/backups/${backupId}`],
      ["POST", `/api/backups/${backupId}/restore`, { databaseName: "orders" }],
    ] as const) {
      expect((await server.call(method, path, { token: other.token, body })).status).toBe(404);
    }
    expect((await server.call("GET", "/api/backups", { token: other.token })).body).toEqual([]);
    const otherAgent = await registerScriptedAgent(base, other.apiKey, ["orders"]);
    const stolen = await fetch(`${base}${agentApi.download(backupId)}`, { headers: otherAgent.headers() });
    expect(stolen.status).toBe(404);
  });

  test("a backup failed while storage is down keeps none of its data for good: the scheduler deletes it once storage is back", async () => {
    const { user, agent, backupId } = await runningBackup();
    expect((await agent.uploadPart(backupId, 0, randomBytes(3000))).status).toBe(200);
    const staged = stagedUploadPath(fileURLToPath(server.ctx.config.storageUrl), backupId);
    expect(existsSync(staged)).toBe(true);
    const storage = server.ctx.storage;
    const abortUpload = storage.abortUpload.bind(storage);
    storage.abortUpload = async () => {
      throw new StorageUnavailableError("storage directory: down for the test");
    };
    try {
      agent.send({ type: "backup.failed", backupId, error: "the upload kept failing" });
      await waitUntil(async () => (await server.ctx.db.select().from(backups).where(eq(backups.id, backupId)))[0]?.dataReleasePending === true, {
        message: "the failed backup to be marked for a later clean-up",
      });
      expect(existsSync(staged)).toBe(true);
      expect(await releasePendingBackupData(server.ctx)).toBe(0); // still down: kept for the next pass
    } finally {
      storage.abortUpload = abortUpload;
    }
    expect(await releasePendingBackupData(server.ctx)).toBe(1);
    expect(existsSync(staged)).toBe(false);
    const [row] = await server.ctx.db.select().from(backups).where(eq(backups.id, backupId));
    expect(row).toMatchObject({ status: "failed", dataReleasePending: false });
    expect((await server.call("GET", "/api/user/profile", { token: user.token })).body.storageUsed).toBe(0);
  });

  test("a backup whose agent goes silent is failed with the reason", async () => {
    const { user, agent, backupId } = await runningBackup();
    await server.ctx.db
      .update(backups)
      .set({ lastActivityAt: new Date(Date.now() - 3_600_000) })
      .where(eq(backups.id, backupId));
    await expireLeases(server.ctx);
    const backup = (await server.call("GET", `/api/backups/${backupId}`, { token: user.token })).body;
    expect(backup.status).toBe("failed");
    expect(backup.error).toContain("did not start the backup");
  });

  test("a restore whose agent goes silent midway is failed saying what state its collections can be in; a drill's says less", async () => {
    const user = await server.registerUser();
    const silentSince = new Date(Date.now() - 3_600_000);
    const [restore, drill] = await server.ctx.db
      .insert(restores)
      .values([
        { organizationId: user.id, databaseName: "orders", status: "in-progress" as const, lastActivityAt: silentSince },
        { organizationId: user.id, databaseName: "orders", status: "in-progress" as const, lastActivityAt: silentSince, kind: "drill" as const },
      ])
      .returning({ id: restores.id });
    await expireLeases(server.ctx);
    const rows = await server.ctx.db.select().from(restores).where(eq(restores.organizationId, user.id));
    const errorOf = (id: string) => rows.find((row) => row.id === id)?.error;
    expect(rows.every((row) => row.status === "failed")).toBe(true);
    expect(errorOf(restore!.id)).toBe(STALLED_RESTORE_MESSAGE);
    expect(errorOf(restore!.id)).toContain("Collections it had swapped in hold the backup's data and the others their data from before");
    expect(errorOf(drill!.id)).toBe("The agent stopped reporting during the restore.");
  });
});

describe("backup list", () => {
  test("pages newest first, filters by database, and summarises", async () => {
    const user = await server.registerUser();
    const hour = 3_600_000;
    await server.ctx.db.insert(backups).values(
      Array.from({ length: 250 }, (_, i) => ({
        organizationId: user.id,
        databaseName: i % 5 === 0 ? "billing" : "orders",
        status: i % 10 === 0 ? ("failed" as const) : ("completed" as const),
        size: 1000,
        createdAt: new Date(Date.now() - i * hour),
      })),
    );
    const first = await server.call("GET", "/api/backups", { token: user.token });
    expect(first.body).toHaveLength(100);
    const times = first.body.map((b: { createdAt: string }) => Date.parse(b.createdAt));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    const last = await server.call("GET", "/api/backups?page=3&limit=100", { token: user.token });
    expect(last.body).toHaveLength(50);
    const billing = await server.call("GET", "/api/backups?databaseName=billing&limit=500", { token: user.token });
    expect(billing.body).toHaveLength(50);
    expect((await server.call("GET", "/api/backups?limit=501", { token: user.token })).status).toBe(400);
    for (const query of ["limit=1.5", "page=2.5", "limit=abc"]) {
      const answer = await server.call("GET", `/api/backups?${query}`, { token: user.token });
      expect([query, answer.status]).toEqual([query, 400]);
    }
    const summary = await server.call("GET", "/api/backups/summary", { token: user.token });
    expect(summary.body).toEqual({
      totalCount: 250,
      completedCount: 225,
      failedCount: 25,
      successRate: 90,
      lastBackupAt: first.body[0].createdAt,
    });
  });

  test("the success rate counts finished backups only: one running beside three completed reads 100%", async () => {
    const user = await server.registerUser();
    await server.ctx.db.insert(backups).values([
      ...[1, 2, 3].map((i) => ({
        organizationId: user.id,
        databaseName: "orders",
        status: "completed" as const,
        size: 1000,
        createdAt: new Date(Date.now() - i * 3_600_000),
      })),
      { organizationId: user.id, databaseName: "orders", status: "in-progress" as const },
    ]);
    const summary = await server.call("GET", "/api/backups/summary", { token: user.token });
    expect(summary.body).toMatchObject({ totalCount: 4, completedCount: 3, failedCount: 0, successRate: 100 });
  });
});

describe("restores", () => {
  test("two restores of one database asked at the same instant: one starts, the other is told one is running", async () => {
    const { user, agent } = await setupUserWithAgent();
    const backupId = await completedBackup(user, agent, randomBytes(5000));
    const ask = () => server.call("POST", `/api/backups/${backupId}/restore`, { token: user.token, body: { databaseName: "orders" } });
    const answers = await Promise.all([ask(), ask()]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 409]);
    expect(answers.find((answer) => answer.status === 409)!.body.message).toBe('A restore of "orders" is already running.');
    expect((await server.call("GET", "/api/backups/restores/all", { token: user.token })).body).toHaveLength(1);
    await agent.disconnect();
  });

  test("the agent gets the restore command, downloads the file, and its progress reaches the history", async () => {
    const { user, agent } = await setupUserWithAgent();
    const bytes = randomBytes(70_000);
    const backupId = await completedBackup(user, agent, bytes);
    const browser = await openBrowserSocket(user.token);

    const wrong = await server.call("POST", `/api/backups/${backupId}/restore`, { token: user.token, body: { databaseName: "Orders" } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toBe("Please type 'orders' to confirm");

    const requested = await server.call("POST", `/api/backups/${backupId}/restore`, { token: user.token, body: { databaseName: "orders" } });
    expect(requested.status).toBe(201);
    const command = await agent.waitFor("restore");
    expect(command).toMatchObject({ backupId, databaseName: "orders", size: bytes.byteLength });
    const download = await fetch(`${base}${agentApi.download(backupId)}`, { headers: agent.headers() });
    expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);

    const duplicate = await server.call("POST", `/api/backups/${backupId}/restore`, { token: user.token, body: { databaseName: "orders" } });
    expect(duplicate.status).toBe(409);

    agent.send({ type: "restore.started", restoreId: command.restoreId });
    agent.send({ type: "restore.progress", restoreId: command.restoreId, progress: { current: 10, total: 20, percentage: 50, collection: "orders.items" } });
    agent.send({ type: "restore.completed", restoreId: command.restoreId, stats: { "orders.items": { restored: 20, failed: 0 } } });
    const history = await waitUntil(
      async () => {
        const answer = await server.call("GET", "/api/backups/restores/all", { token: user.token });
        return answer.body[0]?.status === "completed" && answer;
      },
      { message: "the restore to be recorded completed" },
    );
    expect(history.body[0]).toMatchObject({ _id: command.restoreId, databaseName: "orders", status: "completed", error: null });
    expect(history.body[0].completedAt).toBeString();
    expect(await auditActions(user.id)).toEqual(expect.arrayContaining(["RESTORE_REQUESTED", "RESTORE_INITIATED", "RESTORE_COMPLETED"]));
    const restoreEvents = () => browser.events.filter((e) => e.type === "restoreProgress").map((e) => e.status);
    await waitUntil(() => restoreEvents().includes("completed"), { message: "the completed restore event in the browser" });
    expect(restoreEvents()).toEqual(["pending", "in-progress", "in-progress", "completed"]);
    const mail = await waitUntil(() => server.sentMail.find((m) => m.to === user.email && m.subject === "Restore completed: orders"), {
      message: "the restore mail",
    });
    expect(mail.text).toContain('Replaced 1 collection(s): orders.items. Nothing else in "orders" was changed.');
    browser.close();
  });

  test("a restore the agent reports failed keeps its reason", async () => {
    const { user, agent } = await setupUserWithAgent();
    const backupId = await completedBackup(user, agent, randomBytes(100));
    await server.call("POST", `/api/backups/${backupId}/restore`, { token: user.token, body: { databaseName: "orders" } });
    const { restoreId } = await agent.waitFor("restore");
    agent.send({ type: "restore.failed", restoreId, error: "wrong key: this file was encrypted with key 3f2a…, the agent has 91bc…" });
    const restore = await waitUntil(
      async () => {
        const [row] = (await server.call("GET", "/api/backups/restores/all", { token: user.token })).body;
        return row?.status === "failed" && row;
      },
      { message: "the restore to be recorded failed" },
    );
    expect(restore).toMatchObject({ status: "failed", error: expect.stringContaining("wrong key") });
    expect(await auditActions(user.id)).toContain("RESTORE_FAILED");
    const mail = await waitUntil(() => server.sentMail.find((m) => m.to === user.email && m.subject === "Restore failed: orders"), {
      message: "the restore mail",
    });
    expect(mail.text).toContain("Reason: wrong key: this file was encrypted with key 3f2a…");
  });
});

describe("jobs waiting in an agent's queue", () => {
  /** Makes the agent's databases due and runs the scheduler: a scheduled backup is sent to it. */
  async function runDueBackupsAgain(agentId: string) {
    await server.ctx.db
      .update(databases)
      .set({ nextBackupAt: new Date(0) })
      .where(eq(databases.agentId, agentId));
    await runDueBackups(server.ctx);
  }

  test("a heartbeat naming a queued restore and backup keeps them pending past the timeout; other rows are not touched", async () => {
    const { user, agent } = await setupUserWithAgent();
    const backupId = await completedBackup(user, agent, randomBytes(10_000));
    const other = await setupUserWithAgent();
    const otherBackupId = await completedBackup(other.user, other.agent, randomBytes(10_000));
    expect((await server.call("POST", `/api/backups/${backupId}/restore`, { token: user.token, body: { databaseName: "orders" } })).status).toBe(201);
    const { restoreId } = await agent.waitFor("restore");
    expect((await server.call("POST", `/api/backups/${otherBackupId}/restore`, { token: other.user.token, body: { databaseName: "orders" } })).status).toBe(
      201,
    );
    const { restoreId: otherRestoreId } = await other.agent.waitFor("restore");
    // A scheduled backup comes due while the restore waits.
    await runDueBackupsAgain(agent.agentId);
    const { backupId: queuedBackupId } = await agent.waitFor("backup");
    // And one that has waited past the limit (its agent's running job hung, say).
    await runDueBackupsAgain(agent.agentId);
    const { backupId: overdueBackupId } = await agent.waitFor("backup");
    await server.ctx.db
      .update(backups)
      .set({ createdAt: new Date(Date.now() - QUEUED_LIMIT_MS) })
      .where(eq(backups.id, overdueBackupId));

    // Three minutes pass; the agent names what it holds, and also (wrongly) the other user's restore.
    const later = new Date(Date.now() + 3 * 60_000);
    const realNow = server.ctx.now;
    server.ctx.now = () => later;
    try {
      agent.send({ type: "heartbeat", queued: { backupIds: [queuedBackupId, overdueBackupId], restoreIds: [restoreId, otherRestoreId] } });
      await waitUntil(
        async () => {
          const [row] = await server.ctx.db.select({ lastSeen: agents.lastSeen }).from(agents).where(eq(agents.id, agent.agentId));
          return row!.lastSeen!.getTime() === later.getTime();
        },
        { message: "the heartbeat to be recorded" },
      );
      await expireLeases(server.ctx);
    } finally {
      server.ctx.now = realNow;
    }
    const restoreOf = async (token: string) => (await server.call("GET", "/api/backups/restores/all", { token })).body[0];
    expect(await restoreOf(user.token)).toMatchObject({ _id: restoreId, status: "pending", error: null });
    expect((await server.call("GET", `/api/backups/${queuedBackupId}`, { token: user.token })).body).toMatchObject({ status: "pending" });
    expect((await server.call("GET", `/api/backups/${overdueBackupId}`, { token: user.token })).body).toMatchObject({
      status: "failed",
      error: expect.stringContaining("did not start the backup"),
    });
    expect(await restoreOf(other.user.token)).toMatchObject({ _id: otherRestoreId, status: "failed", error: "The agent did not start the restore." });
  });
});

describe("a part sent again", () => {
  const sha = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

  test("with other bytes after later parts: the checksum is the stored file's, so the agent's old one is refused", async () => {
    const { user, agent, backupId } = await runningBackup();
    const first = randomBytes(UPLOAD_PART_SIZE);
    const last = randomBytes(1000);
    const replaced = Buffer.from(first);
    replaced[0] = replaced[0]! ^ 0xff;
    expect((await agent.uploadPart(backupId, 0, first)).status).toBe(200);
    expect((await agent.uploadPart(backupId, 1, last)).status).toBe(200);
    expect((await agent.uploadPart(backupId, 0, replaced)).status).toBe(200);
    const original = Buffer.concat([first, last]);
    const answer = await agent.complete(backupId, original, 2);
    expect(answer.status).toBe(422);
    const [backup] = (await server.call("GET", "/api/backups", { token: user.token })).body;
    expect(backup.status).toBe("failed");
  });

  test("with other bytes, completed with the stored file's checksum: recorded and downloaded checksums match the file", async () => {
    const { user, agent, backupId } = await runningBackup();
    const first = randomBytes(UPLOAD_PART_SIZE);
    const last = randomBytes(1000);
    const replaced = randomBytes(UPLOAD_PART_SIZE);
    for (const [number, bytes] of [
      [0, first],
      [1, last],
      [0, replaced],
    ] as const)
      expect((await agent.uploadPart(backupId, number, bytes)).status).toBe(200);
    const stored = Buffer.concat([replaced, last]);
    expect((await agent.complete(backupId, stored, 2)).status).toBe(200);
    const download = await fetch(`${base}/api/backups/${backupId}/download`, { headers: { authorization: `Bearer ${user.token}` } });
    const bytes = Buffer.from(await download.arrayBuffer());
    expect(sha(bytes)).toBe(sha(stored));
    expect(download.headers.get("x-content-sha256")).toBe(sha(stored));
    expect((await server.call("GET", `/api/backups/${backupId}`, { token: user.token })).body.sha256).toBe(sha(stored));
  });
});

describe("part numbers", () => {
  test("only plain decimal whole numbers are part numbers: 1e3, 0x10, 01, 1.5 and -1 are 400", async () => {
    const { agent, backupId } = await runningBackup();
    for (const part of ["1e3", "0x10", "01", "1.5", "-1"]) {
      const answer = await fetch(`${base}${agentApi.part(backupId, 0).replace(/0$/, part)}`, {
        method: "PUT",
        headers: agent.headers(),
        body: new Uint8Array(10),
      });
      expect([part, answer.status]).toEqual([part, 400]);
    }
    expect((await agent.uploadPart(backupId, 0, new Uint8Array(10))).status).toBe(200);
  });

  test("a part past what the plan's storage can hold is 400 before anything is written", async () => {
    const { agent, backupId } = await runningBackup();
    const answer = await agent.uploadPart(backupId, 99_999, new Uint8Array(10));
    expect(answer.status).toBe(400);
    expect((await answer.json()).message).toMatch(/^Invalid part number: a backup on the \w+ plan has at most \d+ parts\.$/);
    expect((await server.call("GET", agentApi.uploadStatus(backupId), { headers: agent.headers() })).body).toMatchObject({ parts: [], uploadedBytes: 0 });
  });

  test("a streamed part body (no Content-Length) longer than a part is 413, and the part can be sent again", async () => {
    const { agent, backupId } = await runningBackup();
    const tooLong = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let sent = 0; sent <= UPLOAD_PART_SIZE; sent += 1024 * 1024) controller.enqueue(new Uint8Array(1024 * 1024));
        controller.close();
      },
    });
    const answer = await fetch(`${base}${agentApi.part(backupId, 0)}`, { method: "PUT", headers: agent.headers(), body: tooLong });
    expect(answer.status).toBe(413);
    expect((await answer.json()).message).toBe(`A part may hold at most ${UPLOAD_PART_SIZE} bytes.`);
    expect((await agent.uploadPart(backupId, 0, new Uint8Array(10))).status).toBe(200);
  });
});

describe("the backup's collections", () => {
  test("counts sent with the completion are kept and listed; bad counts are refused and the upload can complete", async () => {
    const { user, agent } = await setupUserWithAgent();
    const created = await trigger(user, "orders");
    const { backupId } = await agent.waitFor("backup");
    const bytes = randomBytes(2000);
    expect((await agent.uploadPart(backupId, 0, bytes)).status).toBe(200);
    const bad = await agent.complete(backupId, bytes, 1, { collections: { "orders.items": -1 } });
    expect(bad.status).toBe(400);
    const good = await agent.complete(backupId, bytes, 1, { collections: { "orders.items": 20, "orders.empty": 0 } });
    expect(good.status).toBe(200);
    const [listed] = (await server.call("GET", "/api/backups", { token: user.token })).body;
    expect(listed).toMatchObject({ _id: backupId, collections: { "orders.items": 20, "orders.empty": 0 } });
    expect(created.status).toBe(201);
  });
});

describe("restoring somewhere else", () => {
  test("a copy under a new name goes to the backup's agent with targetDatabase and the chosen collections; the typed name is the target", async () => {
    const { user, agent } = await setupUserWithAgent(["orders", "analytics"]);
    const backupId = await completedBackup(user, agent, randomBytes(500));
    const body = { databaseName: "orders", targetDatabase: "orders_restored_2026-11-24", collections: ["items", "customers"] };
    const wrong = await server.call("POST", `/api/backups/${backupId}/restore`, { token: user.token, body });
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toBe("Please type 'orders_restored_2026-11-24' to confirm");

    const requested = await server.call("POST", `/api/backups/${backupId}/restore`, {
      token: user.token,
      body: { ...body, databaseName: body.targetDatabase },
    });
    expect(requested.status).toBe(201);
    expect(requested.body.restore).toMatchObject({ databaseName: "orders", targetDatabase: "orders_restored_2026-11-24", collections: ["items", "customers"] });
    const command = await agent.waitFor("restore");
    expect(command).toMatchObject({ backupId, databaseName: "orders", targetDatabase: "orders_restored_2026-11-24", collections: ["items", "customers"] });
    const [listed] = (await server.call("GET", "/api/backups/restores/all", { token: user.token })).body;
    expect(listed).toMatchObject({ databaseName: "orders", targetDatabase: "orders_restored_2026-11-24", collections: ["items", "customers"] });

    // The copy is busy; the original can still be restored.
    const again = await server.call("POST", `/api/backups/${backupId}/restore`, { token: user.token, body: { ...body, databaseName: body.targetDatabase } });
    expect(again.status).toBe(409);
    const original = await server.call("POST", `/api/backups/${backupId}/restore`, { token: user.token, body: { databaseName: "orders" } });
    expect(original.status).toBe(201);
    expect((await agent.waitFor("restore")).targetDatabase).toBeUndefined();
  });

  test("over another database of the user's, that database's agent restores it over its own connection", async () => {
    const { user, agent } = await setupUserWithAgent(["orders"]);
    const other = await registerScriptedAgent(base, user.apiKey, ["staging"]);
    await other.connect();
    const backupId = await completedBackup(user, agent, randomBytes(300));
    const requested = await server.call("POST", `/api/backups/${backupId}/restore`, {
      token: user.token,
      body: { databaseName: "staging", targetDatabase: "staging" },
    });
    expect(requested.status).toBe(201);
    const command = await other.waitFor("restore");
    expect(command).toMatchObject({ backupId, databaseName: "staging" });
    expect(command.targetDatabase).toBeUndefined();
  });

  test.each([
    [{ targetDatabase: "" }, "targetDatabase must be a MongoDB database name"],
    [{ targetDatabase: "a.b" }, "targetDatabase must be a MongoDB database name"],
    [{ targetDatabase: "x".repeat(64) }, "targetDatabase must be a MongoDB database name"],
    [{ targetDatabase: 42 }, "targetDatabase must be a MongoDB database name"],
    [{ collections: [] }, "collections must be a list of 1 to 1000 different collection names"],
    [{ collections: "items" }, "collections must be a list of 1 to 1000 different collection names"],
    [{ collections: ["a", "a"] }, "collections must be a list of 1 to 1000 different collection names"],
    [{ collections: ["$bad"] }, "collections must be a list of 1 to 1000 different collection names"],
  ])("%j is refused with a message naming the field", async (extra, message) => {
    const { user, agent } = await setupUserWithAgent();
    const backupId = await completedBackup(user, agent, randomBytes(100));
    const answer = await server.call("POST", `/api/backups/${backupId}/restore`, { token: user.token, body: { databaseName: "orders", ...extra } });
    expect(answer.status).toBe(400);
    expect(answer.body.message).toStartWith(message);
    expect((await server.call("GET", "/api/backups/restores/all", { token: user.token })).body).toEqual([]);
  });
});

describe("agents of deleted users", () => {
  test("an admin deleting an agent disconnects it", async () => {
    const admin = await server.registerAdmin();
    const { agent } = await setupUserWithAgent();
    expect((await server.call("DELETE", `/api/admin/agents/${agent.agentId}`, { token: admin.token })).status).toBe(200);
    await agent.waitFor("close");
    expect(await server.ctx.db.select().from(agents).where(eq(agents.id, agent.agentId))).toEqual([]);
  });
});
