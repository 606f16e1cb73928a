// The admin console edits a plan's point-in-time recovery window (issue 25 §2); its users' agents
// hear at once when that stops or starts their shipping. And the data fix of migration 0026: plans
// seeded before the window existed get the seeded window, other plans are left alone.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql, eq } from "drizzle-orm";
import { openPglite } from "@db/client";
import { migrationFiles } from "@db/migrations";
import { databases, plans, organizations } from "@db/schema";
import { startTestServer, type TestServer, type TestUser } from "./harness";
import { registerScriptedAgent } from "./scripted-agent";

let server: TestServer;
let admin: Awaited<ReturnType<TestServer["registerAdmin"]>>;
let alice: TestUser;
let base: string;
beforeAll(async () => {
  server = await startTestServer();
  base = server.listen();
  admin = await server.registerAdmin();
  alice = await server.registerUser({ name: "Alice" });
}, 60_000);
afterAll(() => server.close());

const planNamed = async (name: string) =>
  (await server.call("GET", "/api/admin/plans", { token: admin.token })).body.find((p: { name: string }) => p.name === name);

describe("PUT /api/admin/plans/:id", () => {
  test("sets a plan's window, shown to admins and on the pricing cards", async () => {
    const starter = await planNamed("Starter");
    const res = await server.call("PUT", `/api/admin/plans/${starter._id}`, { token: admin.token, body: { pitrWindowHours: 48 } });
    expect(res.status).toBe(200);
    expect(res.body.pitrWindowHours).toBe(48);
    expect((await planNamed("Starter")).pitrWindowHours).toBe(48);
    const pricing = await server.call("GET", "/api/settings/plans");
    expect(pricing.body.find((p: { name: string }) => p.name === "Starter").pitrWindowHours).toBe(48);
  });

  test("refuses a window out of range (400 naming it), an unknown plan (404), and anyone but an admin (403)", async () => {
    const starter = await planNamed("Starter");
    const bad = await server.call("PUT", `/api/admin/plans/${starter._id}`, { token: admin.token, body: { pitrWindowHours: -1 } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain("pitrWindowHours must be a whole number of hours");
    expect((await server.call("PUT", "/api/admin/plans/nope", { token: admin.token, body: { pitrWindowHours: 1 } })).status).toBe(404);
    expect((await server.call("PUT", `/api/admin/plans/${starter._id}`, { token: alice.token, body: { pitrWindowHours: 1 } })).status).toBe(403);
  });

  test("a window set to 0 tells the plan's agents to stop shipping", async () => {
    const pro = await planNamed("Pro");
    await server.ctx.db.update(organizations).set({ planId: pro._id }).where(eq(organizations.id, alice.id));
    const agent = await registerScriptedAgent(base, alice.apiKey, ["shop"]);
    await agent.connect();
    expect((await agent.waitFor("pitr")).databases).toEqual([]);
    const shop = (await server.ctx.db.select().from(databases).where(eq(databases.organizationId, alice.id)))[0]!;
    expect((await server.call("PUT", `/api/pitr/databases/${shop.id}`, { token: alice.token, body: { enabled: true } })).status).toBe(200);
    expect((await agent.waitFor("pitr")).databases).toEqual(["shop"]);
    await server.call("PUT", `/api/admin/plans/${pro._id}`, { token: admin.token, body: { pitrWindowHours: 0 } });
    expect((await agent.waitFor("pitr")).databases).toEqual([]);
    await agent.disconnect();
  });
});

test("migration 0026 gives the seeded paid plans of an older deployment their window, and no other plan", async () => {
  const database = await openPglite("memory://");
  try {
    const index = migrationFiles.findIndex((file) => file.sql.includes('"pitr_lag_seconds"'));
    const run = async (files: typeof migrationFiles) => {
      for (const file of files)
        for (const statement of file.sql.split("--> statement-breakpoint")) if (statement.trim()) await database.db.execute(sql.raw(statement));
    };
    await run(migrationFiles.slice(0, index));
    // As seeded before the window existed (0 everywhere), beside a plan an operator made himself.
    await database.db.insert(plans).values([
      { name: "Free", price: 0, storageLimit: 1, dbLimit: 1, retentionLimit: 1, frequencyLimit: 24 },
      { name: "Starter", price: 9, storageLimit: 1, dbLimit: 1, retentionLimit: 1, frequencyLimit: 24 },
      { name: "Pro", price: 29, storageLimit: 1, dbLimit: 1, retentionLimit: 1, frequencyLimit: 24 },
      { name: "Business", price: 99, storageLimit: 1, dbLimit: 1, retentionLimit: 1, frequencyLimit: 24 },
      { name: "Team", price: 49, storageLimit: 1, dbLimit: 1, retentionLimit: 1, frequencyLimit: 24 },
    ] as never);
    await run(migrationFiles.slice(index, index + 1));
    const rows = await database.db.select({ name: plans.name, hours: plans.pitrWindowHours }).from(plans).orderBy(plans.price);
    expect(rows).toEqual([
      { name: "Free", hours: 0 },
      { name: "Starter", hours: 24 },
      { name: "Pro", hours: 168 },
      { name: "Team", hours: 0 },
      { name: "Business", hours: 720 },
    ]);
  } finally {
    await database.close();
  }
}, 120_000);
