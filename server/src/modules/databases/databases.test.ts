// Settings → Databases over HTTP: the list, the plan's dbLimit on enabling one and after a
// downgrade, and what another user or a bad request gets.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { databases, organizations, plans } from "@db/schema";
import { startTestServer, type TestServer, type TestUser } from "../../../test/harness";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

async function moveToPlan(user: TestUser, name: string) {
  const [plan] = await server.ctx.db.select().from(plans).where(eq(plans.name, name));
  await server.ctx.db.update(organizations).set({ planId: plan!.id }).where(eq(organizations.id, user.id));
}

async function addDatabases(user: TestUser, names: string[], isActive = false) {
  for (const [i, name] of names.entries()) {
    await server.ctx.db.insert(databases).values({ organizationId: user.id, name, isActive, createdAt: new Date(Date.now() + i) });
  }
}

describe("databases", () => {
  test("lists the user's databases and enforces the plan's dbLimit on enable", async () => {
    const user = await server.registerUser();
    await addDatabases(user, ["orders", "analytics"]);
    const list = await server.call("GET", "/api/settings/databases", { token: user.token });
    expect(list.body.map((d: { name: string }) => d.name)).toEqual(["orders", "analytics"]);
    const [orders, analytics] = list.body;

    const on = await server.call("PUT", `/api/settings/databases/${orders._id}`, { token: user.token, body: { isActive: true } });
    expect(on.status).toBe(200);
    expect(on.body.map((d: { isActive: boolean }) => d.isActive)).toEqual([true, false]);

    const second = await server.call("PUT", `/api/settings/databases/${analytics._id}`, { token: user.token, body: { isActive: true } });
    expect(second.status).toBe(403);
    expect(second.body.message).toBe("Your Free plan allows 1 active database. Disable another database or upgrade your plan.");

    await server.call("PUT", `/api/settings/databases/${orders._id}`, { token: user.token, body: { isActive: false } });
    const swapped = await server.call("PUT", `/api/settings/databases/${analytics._id}`, { token: user.token, body: { isActive: true } });
    expect(swapped.body.map((d: { isActive: boolean }) => d.isActive)).toEqual([false, true]);
  });

  test("only the first dbLimit databases stay active after a downgrade", async () => {
    const user = await server.registerUser();
    await moveToPlan(user, "Starter");
    await addDatabases(user, ["a", "b", "c"], true);
    const [free] = await server.ctx.db.select().from(plans).where(eq(plans.name, "Free"));
    await server.call("PUT", "/api/user/plan", { token: user.token, body: { plan: free!.id } });
    const list = await server.call("GET", "/api/settings/databases", { token: user.token });
    expect(list.body.map((d: { name: string; isActive: boolean }) => [d.name, d.isActive])).toEqual([
      ["a", true],
      ["b", false],
      ["c", false],
    ]);
  });

  test("another user's database, an unknown id and a bad body are 4xx", async () => {
    const owner = await server.registerUser();
    const other = await server.registerUser();
    await addDatabases(owner, ["private"]);
    const [db] = (await server.call("GET", "/api/settings/databases", { token: owner.token })).body;
    const res = await server.call("PUT", `/api/settings/databases/${db._id}`, { token: other.token, body: { isActive: true } });
    expect(res.status).toBe(404);
    expect((await server.call("GET", "/api/settings/databases", { token: owner.token })).body[0].isActive).toBe(false);
    expect((await server.call("PUT", "/api/settings/databases/nope", { token: owner.token, body: { isActive: true } })).status).toBe(404);
    expect((await server.call("PUT", `/api/settings/databases/${db._id}`, { token: owner.token, body: { isActive: "yes" } })).status).toBe(400);
  });
});
