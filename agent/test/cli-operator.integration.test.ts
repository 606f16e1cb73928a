// Golden tests of the operator commands (`status`, `list`, `backup now`): the agent CLI from source
// against a real server over loopback, on a config connected as setup leaves it, with a scripted
// agent holding the agent's socket in place of `dbvault-agent run`. Exact stdout, stderr and exit
// codes; the agent sees its own databases only, and `backup now` answers what Trigger Backup does.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { and, eq } from "drizzle-orm";
import { backups, databases, organizations, plans } from "@db/schema";
import { startTestServer, type TestServer, type TestUser } from "../../server/test/harness.ts";
import { registerScriptedAgent, type ScriptedAgent } from "../../server/test/scripted-agent.ts";
import { runAgent } from "./support/run-agent.ts";

setDefaultTimeout(60_000);

let server: TestServer;
let base: string;
let dir: string;
let user: TestUser;
let agent: ScriptedAgent;
let config: string;
let organizationName: string;

const HINT_USAGE = "dbvault-agent: hint: run dbvault-agent help for usage\n";
/** The CLI's time format, pinned here: "2026-12-07 21:30:05 UTC". */
const utc = (value: Date | string) => `${new Date(value).toISOString().slice(0, 19).replace("T", " ")} UTC`;
const run = (args: string[]) => runAgent([...args, "--config", config]);

beforeAll(async () => {
  server = await startTestServer();
  base = server.listen();
  dir = await mkdtemp(join(tmpdir(), "dbvault-cli-operator-"));
  user = await server.registerUser({ name: "Ops Team" });
  // Starter: three databases (this agent's two and another agent's one), a manual backup a day.
  const [starter] = await server.ctx.db.select({ id: plans.id }).from(plans).where(eq(plans.name, "Starter"));
  await server.ctx.db.update(organizations).set({ planId: starter!.id }).where(eq(organizations.id, user.id));
  agent = await registerScriptedAgent(base, user.apiKey, ["shop", "orders"], "db-host-3f2a");
  await agent.connect();
  config = join(dir, "agent.json");
  const uri = (name: string) => `mongodb://agent:never-printed@127.0.0.1:1/${name}`;
  await writeFile(
    config,
    JSON.stringify({
      version: 1,
      databases: [
        { name: "shop", uri: uri("shop") },
        { name: "orders", uri: uri("orders") },
      ],
      server: { url: base, apiKey: user.apiKey, agentId: agent.agentId, agentToken: agent.agentToken },
    }),
    { mode: 0o600 },
  );
  const [organization] = await server.ctx.db.select({ name: organizations.name }).from(organizations).where(eq(organizations.id, user.id));
  organizationName = organization!.name;
});
afterAll(async () => {
  await agent?.disconnect();
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

async function nextBackupOf(name: string): Promise<Date> {
  const [row] = await server.ctx.db
    .select({ next: databases.nextBackupAt })
    .from(databases)
    .where(and(eq(databases.organizationId, user.id), eq(databases.name, name)));
  return row!.next!;
}

test("status before any backup: online, each database with its next backup, nothing queued", async () => {
  const status = await run(["status"]);
  expect(status.stderr).toBe("");
  expect(status.stdout).toBe(
    `agent:       db-host-3f2a (${agent.agentId}), version 1.0.0\n` +
      `server:      ${base}, account ${organizationName}\n` +
      "connection:  online: dbvault-agent run is connected\n" +
      "\n" +
      "databases:\n" +
      "  orders\n" +
      "    last backup:    none yet\n" +
      `    next backup:    ${utc(await nextBackupOf("orders"))} (every 24 hours)\n` +
      "    point in time:  off\n" +
      "  shop\n" +
      "    last backup:    none yet\n" +
      `    next backup:    ${utc(await nextBackupOf("shop"))} (every 24 hours)\n` +
      "    point in time:  off\n" +
      "\n" +
      "queued:      nothing\n",
  );
  expect(status.exitCode).toBe(0);
  expect(status.stdout + status.stderr).not.toContain("never-printed");
});

test("list with no backups says so on stderr, with nothing on stdout", async () => {
  const listed = await run(["list"]);
  expect(listed).toMatchObject({ stdout: "", stderr: "dbvault-agent: no backups of this agent's databases yet\n", exitCode: 0 });
});

test("backup now needs --db when the agent has several databases", async () => {
  const refused = await run(["backup", "now"]);
  expect(refused.stderr).toBe(`dbvault-agent: backup now: this agent has 2 databases (shop, orders): choose one with --db NAME\n${HINT_USAGE}`);
  expect(refused.exitCode).toBe(2);
  expect((await runAgent(["backup"])).stderr).toBe(`dbvault-agent: backup: missing action (now)\n${HINT_USAGE}`);
  expect((await runAgent(["backup", "later"])).stderr).toBe(`dbvault-agent: backup: unknown action "later" (expected now)\n${HINT_USAGE}`);
});

test("backup now starts a manual backup the agent is sent; a second one before the plan allows answers as Trigger Backup does", async () => {
  const started = await run(["backup", "now", "--db", "shop"]);
  expect(started.exitCode).toBe(0);
  const id = started.stdout.trim();
  expect(started.stdout).toBe(`${id}\n`);
  expect(started.stderr).toBe(
    `dbvault-agent: asked for a backup of "shop" (${id}): dbvault-agent run takes it now; follow it with dbvault-agent status or dbvault-agent list\n`,
  );
  const command = await agent.waitFor("backup");
  expect(command).toMatchObject({ backupId: id, databaseName: "shop" });
  const [row] = await server.ctx.db.select().from(backups).where(eq(backups.id, id));
  expect(row).toMatchObject({ type: "manual", status: "pending", agentId: agent.agentId });
  expect((await agent.upload(id, randomBytes(3000))).status).toBe(200);

  // The dashboard's answer to the same request, word for word.
  const dashboard = await server.call("POST", "/api/backups", { token: user.token, body: { databaseName: "shop" } });
  expect(dashboard.status).toBe(429);
  const again = await run(["backup", "now", "--db", "shop"]);
  expect(again.stderr).toBe(
    `dbvault-agent: backup now: ${dashboard.body.message}\n` +
      `dbvault-agent: hint: the next manual backup of "shop" is possible at ${utc(dashboard.body.nextBackupAvailable)}; scheduled backups run as planned (dbvault-agent status shows the next one)\n`,
  );
  expect(dashboard.body.message).toBe("Your Starter plan allows one manual backup every 24 hours.");
  expect(again.stdout).toBe("");
  expect(again.exitCode).toBe(1);
  expect(await server.ctx.db.select().from(backups).where(eq(backups.databaseName, "shop"))).toHaveLength(1);
});

test("a database beyond the plan's limit and another agent's database are refused with the server's words", async () => {
  await server.ctx.db
    .update(databases)
    .set({ isActive: false })
    .where(and(eq(databases.organizationId, user.id), eq(databases.name, "orders")));
  const disabled = await run(["backup", "now", "--db", "orders"]);
  expect(disabled.stderr).toBe(
    `dbvault-agent: backup now: The database "orders" is disabled: your plan's database limit is reached. Enable it in Settings → Databases or upgrade your plan.\n`,
  );
  expect(disabled.exitCode).toBe(1);
  await server.ctx.db
    .update(databases)
    .set({ isActive: true })
    .where(and(eq(databases.organizationId, user.id), eq(databases.name, "orders")));

  // A second agent of the same account, and another account's agent with a database of the same name.
  const billingAgent = await registerScriptedAgent(base, user.apiKey, ["billing"], "billing-host");
  const stranger = await server.registerUser();
  await registerScriptedAgent(base, stranger.apiKey, ["secret-shop"], "stranger-host");
  for (const name of ["billing", "secret-shop"]) {
    const refused = await run(["backup", "now", "--db", name]);
    expect(refused.stderr).toBe(
      `dbvault-agent: backup now: This agent does not back up a database named "${name}": dbvault-agent status lists the ones it does.\n`,
    );
    expect(refused.exitCode).toBe(1);
    expect((await run(["list", "--db", name])).exitCode).toBe(1);
  }
  expect(await server.ctx.db.select().from(backups).where(eq(backups.databaseName, "billing"))).toHaveLength(0);
  // The other agent's backup stays out of this agent's list.
  await billingAgent.connect();
  const billing = await server.call("POST", "/api/backups", { token: user.token, body: { databaseName: "billing" } });
  expect(billing.status).toBe(201);
  await billingAgent.disconnect();
});

test("list shows this agent's backups newest first, as text and --json; status shows the last backup and the queue", async () => {
  const queued = await run(["backup", "now", "--db", "orders"]);
  expect(queued.exitCode).toBe(0);
  const ordersId = queued.stdout.trim();
  await agent.waitFor("backup");
  const rows = await server.ctx.db.select().from(backups).where(eq(backups.organizationId, user.id));
  const shop = rows.find((row) => row.databaseName === "shop")!;
  const orders = rows.find((row) => row.id === ordersId)!;

  const listed = await run(["list"]);
  expect(listed.stderr).toBe("");
  expect(listed.stdout).toBe(
    `${orders.id}  orders  pending, ${utc(orders.createdAt)}, manual\n` +
      `${shop.id}  shop  completed, ${utc(shop.createdAt)}, manual, 2.9 KB, not verified yet\n`,
  );
  expect(listed.exitCode).toBe(0);

  const json = await run(["list", "--json", "--db", "shop"]);
  expect(JSON.parse(json.stdout)).toEqual([
    {
      id: shop.id,
      databaseName: "shop",
      type: "manual",
      status: "completed",
      createdAt: shop.createdAt.toISOString(),
      completedAt: shop.completedAt!.toISOString(),
      size: 3000,
      verifiedAt: null,
      error: null,
    },
  ]);

  const limited = await run(["list", "--limit", "1"]);
  expect(limited.stdout).toBe(`${orders.id}  orders  pending, ${utc(orders.createdAt)}, manual\n`);
  expect(limited.stderr).toBe("dbvault-agent: the newest 1 shown; --limit N shows more (at most 500)\n");
  // The server holds the same bound for any caller.
  const tooMany = await fetch(`${base}/api/agent/backups?limit=501`, { headers: agent.headers() });
  expect([tooMany.status, ((await tooMany.json()) as { message: string }).message]).toEqual([400, "limit must be a whole number from 1 to 500"]);
  expect((await run(["list", "--limit", "0"])).stderr).toBe(`dbvault-agent: list: --limit must be a whole number from 1 to 500\n${HINT_USAGE}`);

  const status = await run(["status"]);
  expect(status.stdout).toContain(`  orders\n    last backup:    pending, ${utc(orders.createdAt)}, manual\n`);
  expect(status.stdout).toContain(`  shop\n    last backup:    completed, ${utc(shop.createdAt)}, manual, 2.9 KB, not verified yet\n`);
  expect(status.stdout).toEndWith(`queued:\n  backup of orders: waiting to be sent, since ${utc(orders.createdAt)}\n`);
});

test("with run not connected, status says so and backup now answers as Trigger Backup does", async () => {
  await agent.disconnect();
  const [row] = await server.ctx.db
    .select()
    .from(backups)
    .where(and(eq(backups.organizationId, user.id), eq(backups.databaseName, "orders"), eq(backups.status, "pending")));
  // The queued backup of orders ends (as the agent would report it), so only the agent stands in the way.
  const failed = await fetch(`${base}/api/agent/backups/${row!.id}/fail`, {
    method: "POST",
    headers: { ...agent.headers(), "content-type": "application/json" },
    body: JSON.stringify({ error: "stopped by the test" }),
  });
  expect(failed.status).toBe(200);
  const status = await run(["status"]);
  const { agents } = await import("@db/schema");
  const [seen] = await server.ctx.db.select({ lastSeen: agents.lastSeen }).from(agents).where(eq(agents.id, agent.agentId));
  expect(status.stdout).toContain(`connection:  offline: dbvault-agent run is not connected (last seen ${utc(seen!.lastSeen!)})\n`);
  const offline = await run(["backup", "now", "--db", "orders"]);
  expect(offline.stderr).toBe(
    `dbvault-agent: backup now: No agent is online for "orders". Start it with dbvault-agent run on its server, then try again.\n` +
      "dbvault-agent: hint: start the agent with dbvault-agent run (or dbvault-agent service install), then try again\n",
  );
  expect(offline.exitCode).toBe(1);
});

test("a config that is not set up points at setup; the server's refusal of the agent's credentials points at setup --force", async () => {
  const bare = join(dir, "bare.json");
  await writeFile(bare, JSON.stringify({ version: 1, databases: [] }), { mode: 0o600 });
  const notSetUp = await runAgent(["status", "--config", bare]);
  expect(notSetUp.stderr).toBe(
    `dbvault-agent: the config file ${bare} does not say how to reach a DBVault server\ndbvault-agent: hint: connect this agent first with: dbvault-agent setup --config ${bare}\n`,
  );
  expect(notSetUp.exitCode).toBe(4);
  const wrong = join(dir, "wrong.json");
  await writeFile(
    wrong,
    JSON.stringify({ version: 1, databases: [], server: { url: base, apiKey: user.apiKey, agentId: agent.agentId, agentToken: "not-the-token" } }),
    { mode: 0o600 },
  );
  const refused = await runAgent(["list", "--config", wrong]);
  expect(refused.stderr).toStartWith(`dbvault-agent: list: asking ${base} failed: the DBVault server answered 401: This agent's credentials are not valid`);
  expect(refused.exitCode).toBe(1);
});
