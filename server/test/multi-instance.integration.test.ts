// Two server processes sharing one PostgreSQL: a command given through one instance reaches an
// agent connected to the other, and the agent's progress reaches a browser on the first
// (LISTEN/NOTIFY); rate limits are counted in the shared database. Needs a real PostgreSQL server, so it runs in the Postgres pass of the suite.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { testDatabaseUrl } from "../../testkit/test-database";
import { registerScriptedAgent } from "./scripted-agent";
import { waitUntil } from "../../testkit/wait-until";

const root = join(import.meta.dir, "..", "..");

type Instance = { url: string; process: ReturnType<typeof Bun.spawn> };

async function startInstance(env: Record<string, string>): Promise<Instance> {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const child = Bun.spawn([process.execPath, join(root, "server/src/main.ts")], {
    env: { ...process.env, ...env, PORT: String(port), HOST: "127.0.0.1", LOG_LEVEL: "warn" },
    stdout: "ignore",
    stderr: "inherit",
  });
  const url = `http://127.0.0.1:${port}`;
  await waitUntil(
    () =>
      fetch(`${url}/api/agents/server-status`).then(
        (res) => res.ok,
        () => false,
      ),
    {
      timeout: 120_000,
      interval: 100,
      message: "the server instance to answer",
    },
  );
  return { url, process: child };
}

describe.skipIf(!testDatabaseUrl)("two server instances on one PostgreSQL", () => {
  let a: Instance;
  let b: Instance;
  let dataDir: string;
  let databaseName: string;
  let admin: ReturnType<typeof postgres>;

  beforeAll(async () => {
    admin = postgres(testDatabaseUrl!, { max: 1, onnotice: () => {} });
    databaseName = `dbvault_multi_${randomBytes(4).toString("hex")}`;
    await admin.unsafe(`create database ${databaseName}`);
    const url = new URL(testDatabaseUrl!);
    url.pathname = `/${databaseName}`;
    dataDir = mkdtempSync(join(tmpdir(), "dbvault-multi-"));
    const shared = {
      DATABASE_URL: url.toString(),
      DATA_DIR: dataDir,
      STORAGE_URL: `file://${join(dataDir, "backups")}`,
      JWT_SECRET: randomBytes(32).toString("hex"),
      API_KEY_SECRET: randomBytes(32).toString("hex"),
    };
    // Started together on an empty database: both try to migrate; the advisory lock serialises them.
    [a, b] = await Promise.all([startInstance(shared), startInstance(shared)]);
  });

  afterAll(async () => {
    a?.process.kill();
    b?.process.kill();
    await Promise.all([a?.process.exited, b?.process.exited]);
    await admin.unsafe(`drop database if exists ${databaseName} with (force)`);
    await admin.end();
    rmSync(dataDir, { recursive: true, force: true });
  });

  test("a backup triggered on A reaches the agent on B, and its progress reaches a browser on A", async () => {
    const registered = await fetch(`${a.url}/api/auth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Multi", email: `multi-${Date.now()}@example.com`, password: "secret123" }),
    });
    const { token, user } = (await registered.json()) as { token: string; user: { apiKey: string } };

    const agent = await registerScriptedAgent(b.url, user.apiKey, ["orders"]);
    await agent.connect();
    await waitUntil(
      async () => {
        const res = await fetch(`${a.url}/api/settings/system-status`, { headers: { authorization: `Bearer ${token}` } });
        return ((await res.json()) as { agents: { status: string }[] }).agents[0]?.status === "active";
      },
      { message: "instance A to see the agent connected to instance B" },
    );

    const events: { type: string; status: string }[] = [];
    const browser = new WebSocket(`${a.url.replace("http", "ws")}/api/ws`);
    await new Promise<void>((resolve) => (browser.onopen = () => resolve()));
    const ready = new Promise<void>((resolve) => {
      browser.onmessage = (event) => {
        const data = JSON.parse(String(event.data));
        if (data.type === "ready") resolve();
        else events.push(data);
      };
    });
    browser.send(JSON.stringify({ type: "auth", token }));
    await ready;

    const triggered = await fetch(`${a.url}/api/backups`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ databaseName: "orders" }),
    });
    expect(triggered.status).toBe(201);
    const command = await agent.waitFor("backup", 10_000);
    expect(command.databaseName).toBe("orders");

    agent.send({ type: "backup.progress", backupId: command.backupId, progress: { current: 1, total: 2, percentage: 50, collection: "orders.x" } });
    expect((await agent.upload(command.backupId, randomBytes(4096))).status).toBe(200);

    const manage = await fetch(`${a.url}/api/agents/manage/${agent.agentId}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ action: "restart" }),
    });
    expect(manage.status).toBe(200);
    await agent.waitFor("restart", 10_000);

    await waitUntil(() => events.some((e) => e.status === "completed"), { message: "the completed event on instance A's browser socket" });
    expect(events.map((e) => e.status)).toEqual(["pending", "in-progress", "completed"]);
    browser.close();
    await agent.disconnect();
  });

  test("rate limits hold across instances: an account's three reset requests an hour are counted on A and B together", async () => {
    const email = `limits-${Date.now()}@example.com`;
    const ask = (instance: Instance) =>
      fetch(`${instance.url}/api/auth/forgot-password`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email }),
      }).then((res) => res.status);
    // Each instance alone would allow three.
    expect([await ask(a), await ask(b), await ask(a), await ask(b)]).toEqual([200, 200, 200, 429]);
  });
});
