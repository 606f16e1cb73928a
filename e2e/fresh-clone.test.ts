// The newcomer's path, end to end: a fresh clone of this repository, the README's
// `npm install && npm start` with nothing else built by hand, the dashboard in Chromium, the
// agent installed with the server's own `curl … /install.sh | sh`, a non-interactive `setup`,
// a pause before `run` (where the first scheduled backup used to fail with no agent online),
// then the first backup completing by itself and decrypting to the seeded data.
//
// It clones HEAD: uncommitted changes are not in the clone. `npm install` uses the npm cache
// of the machine (CI has just filled it), so it takes seconds to a minute.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { spawn } from "node:child_process";
import { BSON } from "bson";
import { MongoClient } from "mongodb";
import { readMongodumpArchive } from "../agent/src/dump/mongodump-archive/index.ts";
import { startMongoTestServer, type MongoTestServer } from "../testkit/mongo-server";
import { waitUntil } from "../testkit/wait-until";
import { launchChromium } from "./support/chromium";

const repoRoot = resolve(import.meta.dir, "..");
const SEEDED = 500;

let work: string;
let mongo: MongoTestServer;
const groups: { pid: number; exited: Promise<void> }[] = [];

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "dbvault-fresh-clone-"));
  mongo = await startMongoTestServer();
  const client = await MongoClient.connect(mongo.uri);
  await client
    .db("shop")
    .collection<{ _id: number; item: string; total: number }>("orders")
    .insertMany(Array.from({ length: SEEDED }, (_, i) => ({ _id: i, item: `item-${i}`, total: i * 1.5 })));
  await client.close();
});

afterAll(async () => {
  for (const group of groups) {
    try {
      process.kill(-group.pid, "SIGTERM");
    } catch {} // already gone
  }
  await Promise.all(groups.map((group) => group.exited));
  await mongo?.stop();
  rmSync(work, { recursive: true, force: true });
});

/** Runs a command to its end; throws with its output when it fails. */
async function run(command: string[], options: { cwd: string; env?: Record<string, string>; stdin?: string }) {
  const child = Bun.spawn(command, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdin: options.stdin === undefined ? "ignore" : new Blob([options.stdin]),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  if (code !== 0) throw new Error(`${command.join(" ")} exited ${code}\n${stdout}\n${stderr}`);
  return { stdout, stderr };
}

/**
 * Starts a long-running command in its own process group, keeping its output for the error of a
 * later failure. `npm start` runs the server as a grandchild: the whole group is stopped at the end.
 */
function start(command: string[], options: { cwd: string; env?: Record<string, string> }) {
  const child = spawn(command[0]!, command.slice(1), {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  groups.push({ pid: child.pid!, exited });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  return { exited: () => child.exitCode !== null, output: () => output };
}

async function freePort(): Promise<number> {
  const server = Bun.serve({ port: 0, fetch: () => new Response() });
  const port = server.port!;
  await server.stop();
  return port;
}

test("fresh clone → npm install && npm start → dashboard; install.sh → setup → run: the first backup completes by itself", async () => {
  // 1. The README's start command in a fresh clone.
  const clone = join(work, "dbvault");
  await run(["git", "clone", "--quiet", repoRoot, clone], { cwd: work });
  await run(["npm", "install", "--no-audit", "--no-fund", "--prefer-offline"], { cwd: clone });
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = start(["npm", "start"], {
    cwd: clone,
    env: { PORT: String(port), HOST: "127.0.0.1", PUBLIC_URL: base, DATA_DIR: join(work, "data"), LOG_LEVEL: "debug" },
  });
  await waitUntil(
    async () => {
      if (server.exited()) throw new Error(`npm start exited:\n${server.output()}`);
      return (await fetch(`${base}/api/agents/server-status`).catch(() => null))?.ok;
    },
    { timeout: 180_000, interval: 200, message: "npm start to answer (it builds the web app and the agent first)" },
  );

  // 2. A new user signs up through the API and sees the dashboard in a real browser.
  const email = `newcomer-${Date.now()}@example.com`;
  const registered = await fetch(`${base}/api/auth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "New Comer", email, password: "newcomer-password" }),
  });
  expect(registered.status).toBe(201);
  const { token } = (await registered.json()) as { token: string };
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    await page.goto(`${base}/login`);
    await page.getByLabel(/email/i).fill(email);
    await page.getByLabel(/^password/i).fill("newcomer-password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(`${base}/dashboard`);
    await page
      .getByRole("heading", { name: /backups/i })
      .first()
      .waitFor();
    expect(await page.title()).toContain("DBVault");
  } finally {
    await browser.close();
  }

  // 3. The one-line installer the web app shows, as a user pipes it into sh.
  const installDir = join(work, "bin");
  const installer = await (await fetch(`${base}/install.sh`)).text();
  await run(["sh", "-s"], { cwd: work, env: { DBVAULT_INSTALL_DIR: installDir }, stdin: installer });
  const agentPath = join(installDir, "dbvault-agent");
  const download = await fetch(`${base}/downloads/dbvault-agent-linux-x64`);
  await download.body?.cancel();
  expect(createHash("sha256").update(readFileSync(agentPath)).digest("hex")).toBe(download.headers.get("x-content-sha256")!);

  // 4. Non-interactive setup, nothing secret in argv.
  const { apiKey } = (await (await fetch(`${base}/api/user/profile`, { headers: { authorization: `Bearer ${token}` } })).json()) as { apiKey: string };
  const configPath = join(work, "agent.json");
  const uriFile = join(work, "shop-uri.txt");
  writeFileSync(uriFile, `${mongo.uri.replace(/\/?$/, "/")}shop\n`, { mode: 0o600 });
  await run(
    [agentPath, "setup", "--server", base, "--api-key-file", "-", "--db", "shop", "--uri-file", uriFile, "--name", "newcomer", "--config", configPath],
    {
      cwd: work,
      stdin: `${apiKey}\n`,
    },
  );

  // 5. The user takes a while before starting the service, during which the scheduler's tick
  // used to fail the first backup: two whole passes of the background jobs go by first.
  const passes = () => server.output().split("background jobs pass done").length - 1;
  const passesAtSetup = passes();
  await waitUntil(() => passes() >= passesAtSetup + 2, { timeout: 60_000, interval: 200, message: "two scheduler passes after setup" });
  const auth = { authorization: `Bearer ${token}` };
  const listBackups = async () => (await (await fetch(`${base}/api/backups`, { headers: auth })).json()) as { _id: string; status: string }[];
  expect(await listBackups()).toEqual([]);
  const agent = start([agentPath, "run", "--config", configPath], { cwd: work });

  const completed = await waitUntil(async () => (await listBackups()).find((b) => b.status === "completed"), {
    timeout: 120_000,
    interval: 500,
    message: `the first scheduled backup to complete (agent log:\n${agent.output()})`,
  });
  expect((await listBackups()).filter((b) => b.status === "failed")).toEqual([]);

  // 6. The stored file is the user's data: download it and decrypt it with the agent.
  const encrypted = join(work, "backup.enc.dbvault");
  await Bun.write(encrypted, await fetch(`${base}/api/backups/${completed._id}/download`, { headers: auth }));
  const archive = join(work, "backup.archive");
  await run([agentPath, "decrypt", "--in", encrypted, "--out", archive, "--config", configPath], { cwd: work });
  const ids: number[] = [];
  for await (const event of readMongodumpArchive(Bun.file(archive).stream())) {
    if (event.kind === "document" && event.namespace === "shop.orders") ids.push(Number(BSON.deserialize(event.bytes)._id));
  }
  expect(ids.sort((a, b) => a - b)).toEqual(Array.from({ length: SEEDED }, (_, i) => i));
}, 600_000);
