// Turning point-in-time recovery on is refused (409) while any agent holding the database found,
// at setup or `db add`, that its user lacks the roles or its server is standalone; the message
// names the agent, the missing role and the grant to run.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { databases, plans, organizations } from "@db/schema";
import { agentApi } from "@protocol/agent-protocol";
import { startTestServer, type TestServer, type TestUser } from "./harness";
import { registerScriptedAgent, type ScriptedAgent } from "./scripted-agent";

let server: TestServer;
let base: string;
let alice: TestUser;
let second: ScriptedAgent;

const ready = { status: "ready", missingRoles: [] };
const missingRestore = { status: "missing-roles", missingRoles: [{ role: "restore", db: "admin" }] };

beforeAll(async () => {
  server = await startTestServer();
  base = server.listen();
  alice = await server.registerUser({ name: "Alice" });
  const [pro] = await server.ctx.db.select().from(plans).where(eq(plans.name, "Pro"));
  await server.ctx.db.update(organizations).set({ planId: pro!.id }).where(eq(organizations.id, alice.id));
  await registerScriptedAgent(base, alice.apiKey, ["shop", "local"], "web-1", {
    pitrAccess: [
      { database: "shop", access: ready },
      { database: "local", access: { status: "standalone", missingRoles: [] } },
    ],
  });
  second = await registerScriptedAgent(base, alice.apiKey, ["shop"], "web-2", { pitrAccess: [{ database: "shop", access: missingRestore }] });
  await server.ctx.db.update(databases).set({ isActive: true }).where(eq(databases.organizationId, alice.id));
}, 60_000);
afterAll(() => server.close());

const idOf = async (name: string) =>
  (await server.ctx.db.select().from(databases).where(eq(databases.organizationId, alice.id))).find((d) => d.name === name)!.id;
const turnOn = async (name: string) => server.call("PUT", `/api/pitr/databases/${await idOf(name)}`, { token: alice.token, body: { enabled: true } });

test("a role missing for any agent holding the database refuses it, naming the agent, the role and the grant", async () => {
  const res = await turnOn("shop");
  expect(res.status).toBe(409);
  expect(res.body.message).toContain('agent "web-2" lacks the restore role');
  expect(res.body.message).toContain('grantRolesToUser("USER", [{ role: "restore", db: "admin" }])');
  expect(
    (
      await server.ctx.db
        .select()
        .from(databases)
        .where(eq(databases.id, await idOf("shop")))
    )[0]!.pitrEnabled,
  ).toBe(false);
  // Granted, and `db add` run again on that server: it can be turned on.
  const again = await fetch(`${base}${agentApi.databases}`, {
    method: "POST",
    headers: { ...second.headers(), "content-type": "application/json" },
    body: JSON.stringify({ name: "shop", pitrAccess: ready }),
  });
  expect(again.status).toBe(200);
  expect((await turnOn("shop")).status).toBe(200);
});

test("a standalone server refuses it, saying a replica set is needed", async () => {
  const res = await turnOn("local");
  expect(res.status).toBe(409);
  expect(res.body.message).toContain('agent "web-1" backs it up from a standalone MongoDB server');
  expect(res.body.message).toContain("rs.initiate()");
});
