import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { agents, auditLogs, backups, databases, settings, users } from "@db/schema";
import { startTestServer, type TestServer, uniqueEmail } from "../../../test/harness";

let server: TestServer;
let admin: Awaited<ReturnType<TestServer["registerAdmin"]>>;
beforeAll(async () => {
  server = await startTestServer();
  admin = await server.registerAdmin();
});
afterAll(() => server.close());

const asAdmin = (method: string, path: string, body?: unknown) => server.call(method, path, { token: admin.token, body });

describe("admin users", () => {
  test("lists users with status, ban fields and the embedded plan", async () => {
    const user = await server.registerUser({ name: "Listed User" });
    const res = await asAdmin("GET", "/api/admin/users");
    expect(res.status).toBe(200);
    const row = res.body.find((u: { _id: string }) => u._id === user.id);
    expect(row).toMatchObject({ name: "Listed User", email: user.email, role: "user", status: "active", isBanned: false });
    expect(row.plan).toMatchObject({ name: "Free", dbLimit: 1, storageLimit: 1024 ** 3 });
    expect(row.passwordHash).toBeUndefined();
  });

  test("changes plan, role, status and e-mail", async () => {
    const user = await server.registerUser();
    const plans = (await asAdmin("GET", "/api/admin/plans")).body as { _id: string; name: string }[];
    const pro = plans.find((p) => p.name === "Pro")!;
    expect((await asAdmin("PUT", `/api/admin/users/${user.id}`, { plan: pro._id })).body.plan.name).toBe("Pro");
    expect((await asAdmin("PUT", `/api/admin/users/${user.id}`, { role: "admin" })).body.role).toBe("admin");
    expect((await asAdmin("PUT", `/api/admin/users/${user.id}`, { status: "inactive" })).body.status).toBe("inactive");
    const email = uniqueEmail("moved");
    expect((await asAdmin("PUT", `/api/admin/users/${user.id}`, { email })).body.email).toBe(email);
    const logs = await server.ctx.db.select().from(auditLogs).where(eq(auditLogs.organizationId, user.id));
    expect(logs.map((l) => l.action).sort()).toEqual(["EMAIL_CHANGED", "PLAN_CHANGED"]);
  });

  test("a downgrade below the user's schedule and retention moves the planned backups and says so in the audit log", async () => {
    const user = await server.registerUser();
    const plans = (await asAdmin("GET", "/api/admin/plans")).body as { _id: string; name: string }[];
    await asAdmin("PUT", `/api/admin/users/${user.id}`, { plan: plans.find((p) => p.name === "Pro")!._id });
    expect((await server.call("PUT", "/api/settings", { token: user.token, body: { frequency: "hourly", retention: 2160 } })).status).toBe(200);
    // A database whose next hourly backup is planned within the hour, as the scheduler leaves it.
    const soon = new Date(Date.now() + 30 * 60_000);
    const [database] = await server.ctx.db
      .insert(databases)
      .values({ organizationId: user.id, name: "orders", isActive: true, nextBackupAt: soon })
      .returning();
    await server.ctx.db.update(settings).set({ retentionCheckedAt: new Date() }).where(eq(settings.organizationId, user.id));

    expect((await asAdmin("PUT", `/api/admin/users/${user.id}`, { plan: plans.find((p) => p.name === "Free")!._id })).status).toBe(200);

    // Free allows one backup a day: the next one is a day away, not the old plan's next hour.
    const [moved] = await server.ctx.db.select().from(databases).where(eq(databases.id, database!.id));
    expect(moved!.nextBackupAt!.getTime()).toBeGreaterThan(Date.now() + 23 * 3_600_000);
    // The shorter retention applies at the next pass, as a saved setting does.
    const [saved] = await server.ctx.db.select().from(settings).where(eq(settings.organizationId, user.id));
    expect(saved).toMatchObject({ frequency: 24, retention: 168, retentionCheckedAt: null });
    const logs = await server.ctx.db.select().from(auditLogs).where(eq(auditLogs.organizationId, user.id));
    expect(logs.find((l) => l.action === "FREQUENCY_UPDATED" && (l.details as { by?: string }).by === "plan")?.details).toEqual({
      from: 1,
      to: 24,
      by: "plan",
    });
    expect(logs.find((l) => l.action === "RETENTION_UPDATED" && (l.details as { by?: string }).by === "plan")?.details).toEqual({
      from: 2160,
      to: 168,
      mode: "age",
      by: "plan",
    });
  });

  test("rejects bad updates with 4xx and a message", async () => {
    const user = await server.registerUser();
    const other = await server.registerUser();
    expect((await asAdmin("PUT", `/api/admin/users/${user.id}`, {})).status).toBe(400);
    expect((await asAdmin("PUT", `/api/admin/users/${user.id}`, { role: "root" })).body.message).toBe("role must be user or admin");
    expect((await asAdmin("PUT", `/api/admin/users/${user.id}`, { status: "gone" })).body.message).toBe("status must be active or inactive");
    expect((await asAdmin("PUT", `/api/admin/users/${user.id}`, { email: "" })).status).toBe(400);
    expect((await asAdmin("PUT", `/api/admin/users/${user.id}`, { email: other.email })).status).toBe(409);
    expect((await asAdmin("PUT", `/api/admin/users/${user.id}`, { plan: "0123456789abcdef01234567" })).status).toBe(404);
    expect((await asAdmin("PUT", "/api/admin/users/0123456789abcdef01234567", { role: "user" })).status).toBe(404);
    const self = await asAdmin("PUT", `/api/admin/users/${admin.id}`, { role: "user" });
    expect(self.status).toBe(400);
    expect(self.body.message).toBe("You cannot remove your own admin role.");
  });

  test("ban with the default reason, the user is locked out, unban clears the reason", async () => {
    const user = await server.registerUser();
    const banned = await asAdmin("PUT", `/api/admin/users/${user.id}/ban`, { isBanned: true });
    expect(banned.status).toBe(200);
    expect(banned.body).toMatchObject({ isBanned: true, banReason: "Policy violation" });
    expect(Date.parse(banned.body.bannedAt)).toBeGreaterThan(Date.now() - 60_000);

    const locked = await server.call("GET", "/api/user/profile", { token: user.token });
    expect(locked.status).toBe(403);
    expect(locked.body).toMatchObject({ code: "BANNED", isBanned: true, banReason: "Policy violation" });
    // Signing in answers the ban and its reason (the web app shows the /banned page), not a token.
    const login = await server.call("POST", "/api/auth/login", { body: { email: user.email, password: user.password } });
    expect(login.status).toBe(403);
    expect(login.body).toMatchObject({ code: "BANNED", isBanned: true, banReason: "Policy violation" });
    expect(login.body.token).toBeUndefined();

    const custom = await asAdmin("PUT", `/api/admin/users/${user.id}/ban`, { isBanned: true, banReason: "Spam" });
    expect(custom.body.banReason).toBe("Spam");
    const unbanned = await asAdmin("PUT", `/api/admin/users/${user.id}/ban`, { isBanned: false, banReason: null });
    expect(unbanned.body).toEqual({ isBanned: false, banReason: null, bannedAt: null });
    // No token from before the unban works again; a new sign-in does.
    expect((await server.call("GET", "/api/user/profile", { token: user.token })).status).toBe(401);
    const again = await server.call("POST", "/api/auth/login", { body: { email: user.email, password: user.password } });
    expect((await server.call("GET", "/api/user/profile", { token: again.body.token })).status).toBe(200);
    expect((await asAdmin("PUT", `/api/admin/users/${user.id}/ban`, { isBanned: "yes" })).status).toBe(400);
  });

  test("agents of a user, and deleting one", async () => {
    const user = await server.registerUser();
    const [agent] = await server.ctx.db
      .insert(agents)
      .values({ organizationId: user.id, name: "db-host-1", hostname: "db1.internal", platform: "linux", version: "1.0.0", status: "active" })
      .returning();
    const [restoreAgent] = await server.ctx.db
      .insert(agents)
      .values({ organizationId: user.id, name: "laptop", hostname: "laptop.local", platform: "darwin", version: "1.0.0", status: "active", role: "restore" })
      .returning();
    const list = await asAdmin("GET", `/api/admin/users/${user.id}/agents`);
    expect(list.body).toHaveLength(2);
    expect(list.body).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ _id: agent!.id, name: "db-host-1", hostname: "db1.internal", status: "active", version: "1.0.0", role: "backup" }),
        expect.objectContaining({ _id: restoreAgent!.id, name: "laptop", role: "restore" }),
      ]),
    );
    expect((await asAdmin("DELETE", `/api/admin/agents/${agent!.id}`)).status).toBe(200);
    expect((await asAdmin("DELETE", `/api/admin/agents/${restoreAgent!.id}`)).status).toBe(200);
    expect((await asAdmin("GET", `/api/admin/users/${user.id}/agents`)).body).toEqual([]);
    expect((await asAdmin("DELETE", `/api/admin/agents/${agent!.id}`)).status).toBe(404);
    expect((await asAdmin("GET", "/api/admin/users/0123456789abcdef01234567/agents")).status).toBe(404);
  });

  test("deleting a user removes their data; an admin cannot delete themselves", async () => {
    const user = await server.registerUser();
    await server.ctx.db.insert(databases).values({ organizationId: user.id, name: "main" });
    await server.ctx.db.insert(backups).values({ organizationId: user.id, databaseName: "main", status: "completed", size: 10 });
    const res = await asAdmin("DELETE", `/api/admin/users/${user.id}`);
    expect(res.status).toBe(200);
    expect(await server.ctx.db.select().from(users).where(eq(users.id, user.id))).toEqual([]);
    expect(await server.ctx.db.select().from(settings).where(eq(settings.organizationId, user.id))).toEqual([]);
    expect(await server.ctx.db.select().from(databases).where(eq(databases.organizationId, user.id))).toEqual([]);
    expect(await server.ctx.db.select().from(backups).where(eq(backups.organizationId, user.id))).toEqual([]);
    expect((await server.call("GET", "/api/user/profile", { token: user.token })).status).toBe(401);
    expect((await asAdmin("DELETE", `/api/admin/users/${admin.id}`)).status).toBe(400);
  });

  test("backup stats count every backup and format the total size", async () => {
    const before = (await asAdmin("GET", "/api/admin/stats/backups")).body;
    const user = await server.registerUser();
    await server.ctx.db.insert(backups).values([
      { organizationId: user.id, databaseName: "x", status: "completed", size: 1024 * 1024 },
      { organizationId: user.id, databaseName: "x", status: "completed", size: 512 * 1024 },
    ]);
    const after = (await asAdmin("GET", "/api/admin/stats/backups")).body;
    expect(after.totalCount).toBe(before.totalCount + 2);
    expect(after.totalSize).toBe(before.totalSize + 1.5 * 1024 * 1024);
    expect(after.formattedSize).toBeString();
  });
});
