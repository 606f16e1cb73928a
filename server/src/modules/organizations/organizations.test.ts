import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import { apiTokens, auditLogs, databases, memberships, organizations } from "@db/schema";
import { migrationFiles } from "@db/migrations";
import { openTestDatabase } from "../../../../testkit/test-database";
import { startTestServer, type TestServer } from "../../../test/harness";
import { NOT_A_MEMBER_MESSAGE } from "./current-organization";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe("personal organizations", () => {
  test("registration creates the account's personal organization, sharing its id, with the account as owner", async () => {
    const user = await server.registerUser({ name: "Ada Lovelace" });
    const [organization] = await server.ctx.db.select().from(organizations).where(eq(organizations.id, user.id));
    expect(organization).toMatchObject({ id: user.id, name: "Ada Lovelace", personal: true });
    const members = await server.ctx.db.select().from(memberships).where(eq(memberships.organizationId, user.id));
    expect(members.map(({ userId, role }) => ({ userId, role }))).toEqual([{ userId: user.id, role: "owner" }]);
  });

  test("a request naming an organization its caller is not a member of is refused", async () => {
    const alice = await server.registerUser();
    const mallory = await server.registerUser();
    const own = await server.call("GET", "/api/user/profile", { token: mallory.token, headers: { "X-Organization-Id": mallory.id } });
    expect(own.status).toBe(200);
    const foreign = await server.call("GET", "/api/user/profile", { token: mallory.token, headers: { "X-Organization-Id": alice.id } });
    expect(foreign.status).toBe(403);
    expect(foreign.body.message).toBe(NOT_A_MEMBER_MESSAGE);
  });

  test("deleting an account deletes its personal organization", async () => {
    const admin = await server.registerAdmin();
    const user = await server.registerUser();
    const res = await server.call("DELETE", `/api/admin/users/${user.id}`, { token: admin.token });
    expect(res.status).toBe(200);
    expect(await server.ctx.db.select().from(organizations).where(eq(organizations.id, user.id))).toEqual([]);
  });
});

/** Runs the migrations before the one tagged `prefix` on `database`; answers a function that runs that one. */
async function migrateUpTo(database: Awaited<ReturnType<typeof openTestDatabase>>, prefix: string) {
  const runFile = async (file: (typeof migrationFiles)[number]) => {
    for (const statement of file.sql.split("--> statement-breakpoint")) {
      if (statement.trim()) await database.db.execute(sql.raw(statement));
    }
  };
  const index = migrationFiles.findIndex((file) => file.tag.startsWith(prefix));
  for (const file of migrationFiles.slice(0, index)) await runFile(file);
  return () => runFile(migrationFiles[index]!);
}

describe("migration 0028", () => {
  test("moves every existing account into a personal organization it owns", async () => {
    const database = await openTestDatabase();
    try {
      const run = await migrateUpTo(database, "0028_");
      // Raw SQL: the account as the tables were before 0028, whatever the schema says today.
      const before = { id: "0123456789abcdef01234567", name: "Old Account" };
      await database.db.execute(
        sql`insert into users (id, email, name, password_hash, api_key_ciphertext, api_key_hash) values (${before.id}, 'old@example.com', ${before.name}, 'x', 'c', 'h')`,
      );
      await run();
      // The columns 0028 made: later migrations add more, which this database does not have yet.
      const [organization] = await database.db.select({ id: organizations.id, name: organizations.name, personal: organizations.personal }).from(organizations);
      expect(organization).toMatchObject({ id: before.id, name: "Old Account", personal: true });
      const members = await database.db.select().from(memberships);
      expect(members.map(({ organizationId, userId, role }) => ({ organizationId, userId, role }))).toEqual([
        { organizationId: before.id, userId: before.id, role: "owner" },
      ]);
    } finally {
      await database.close();
    }
  });
});

describe("migration 0033", () => {
  test("hands each account's data, API key, plan and storage to its personal organization, values unchanged", async () => {
    const database = await openTestDatabase();
    try {
      const run = await migrateUpTo(database, "0033_");
      // Raw SQL: the rows as the tables were before 0033, whatever the schema says today.
      const id = "0123456789abcdef01234567";
      await database.db.execute(
        sql`insert into plans (id, name, storage_limit, db_limit, retention_limit, frequency_limit) values ('plan-pro', 'Pro', 100, 5, 720, 1)`,
      );
      await database.db.execute(
        sql`insert into users (id, email, name, password_hash, api_key_ciphertext, api_key_hash, plan_id, storage_used) values (${id}, 'old@example.com', 'Old Account', 'x', 'sealed', 'hashed', 'plan-pro', 1234)`,
      );
      await database.db.execute(sql`insert into organizations (id, name, personal) values (${id}, 'Old Account', true)`);
      await database.db.execute(sql`insert into databases (id, user_id, name) values ('db1', ${id}, 'orders')`);
      await database.db.execute(sql`insert into audit_logs (id, user_id, action) values ('log1', ${id}, 'SETTINGS_UPDATED')`);
      await database.db.execute(
        sql`insert into api_tokens (id, user_id, name, scopes, token_hash, prefix, expires_at) values ('tok1', ${id}, 'ci', '["read"]', 'th', 'dbvp_x', now())`,
      );
      await run();
      const [organization] = await database.db.select().from(organizations);
      expect(organization).toMatchObject({ id, apiKeyCiphertext: "sealed", apiKeyHash: "hashed", planId: "plan-pro", storageUsed: 1234 });
      expect(await database.db.select({ organizationId: databases.organizationId }).from(databases)).toEqual([{ organizationId: id }]);
      expect(await database.db.select({ organizationId: auditLogs.organizationId }).from(auditLogs)).toEqual([{ organizationId: id }]);
      expect(await database.db.select({ userId: apiTokens.userId, organizationId: apiTokens.organizationId }).from(apiTokens)).toEqual([
        { userId: id, organizationId: id },
      ]);
    } finally {
      await database.close();
    }
  });
});
