// API tokens for automation: the authorization matrix (every operation of /api/docs × every
// scope), driven by the document itself so an operation added later is covered, and the token's
// life (expiry, revocation, last use, its creator's standing).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { type ApiTokenScope, agents, apiTokenScopes, backups, databases, passwordResetTokens, users } from "@db/schema";
import { waitUntil } from "../../testkit/wait-until";
import { hashLinkToken } from "../src/modules/auth/service";
import { advanceServerClock, type CallResult, startTestServer, type TestServer, type TestUser } from "./harness";

type Operation = { method: string; path: string; security: Record<string, string[]>[] };

let server: TestServer;
let alice: TestUser;
let bob: TestUser;
let operations: Operation[];
const bobs = { databaseName: "bobs-private-orders", backupId: "", agentId: "", databaseId: "" };

const createToken = async (user: TestUser, scopes: ApiTokenScope[], expiresInDays = 30, name = `token ${scopes.join("+")}`) => {
  const res = await server.call("POST", "/api/user/api-tokens", { token: user.token, body: { name, scopes, expiresInDays, password: user.password } });
  if (res.status !== 201) throw new Error(`token not created: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { id: string; token: string; lastUsedAt: string | null };
};

beforeAll(async () => {
  server = await startTestServer({ METRICS_TOKEN: "metrics-token-0123456789" });
  alice = await server.registerUser({ name: "Alice" });
  bob = await server.registerUser({ name: "Bob" });
  const [agent] = await server.ctx.db
    .insert(agents)
    .values({ organizationId: bob.id, name: "bobs-agent", hostname: "bob.internal", platform: "linux", version: "1.0.0" })
    .returning();
  const [database] = await server.ctx.db.insert(databases).values({ organizationId: bob.id, name: bobs.databaseName, agentId: agent!.id }).returning();
  const [backup] = await server.ctx.db
    .insert(backups)
    .values({ organizationId: bob.id, databaseName: bobs.databaseName, databaseId: database!.id, status: "completed", size: 10 })
    .returning();
  Object.assign(bobs, { backupId: backup!.id, agentId: agent!.id, databaseId: database!.id });
  const doc = (await server.call("GET", "/api/docs")).body;
  operations = Object.entries(doc.paths as Record<string, Record<string, { security?: Operation["security"] }>>).flatMap(([path, byMethod]) =>
    Object.entries(byMethod).map(([method, op]) => ({ method: method.toUpperCase(), path, security: op.security ?? [] })),
  );
}, 60_000);
afterAll(() => server.close());

/** The scope /api/docs says an operation needs from a token; undefined when it takes none. */
const documentedScope = (op: Operation) => op.security.find((requirement) => requirement.apiToken)?.apiToken?.[0];
const isPublic = (op: Operation) => op.security.length === 0 || op.security.some((requirement) => Object.keys(requirement).length === 0);

/** The path with every parameter set to Bob's things, so an operation a token may call is also an attempt on another user's data. */
function aimAtBob(path: string): string {
  const idFor = (name: string) => {
    if (name === "agentId" || path.startsWith("/api/admin/agents")) return bobs.agentId;
    if (name === "backupId" || path.startsWith("/api/backups")) return bobs.backupId;
    if (path.startsWith("/api/settings/databases")) return bobs.databaseId;
    if (path.startsWith("/api/admin/users")) return bob.id;
    if (name === "partNumber") return "1";
    return "0123456789abcdef01234567";
  };
  return path.replace(/\{(\w+)\}/g, (_, name: string) => idFor(name));
}

/**
 * Refused for being a token: unknown, expired, revoked or lacking the operation's scope, or
 * answered as if no credential were sent (the agent protocol checks its input before its own
 * credentials, so an anonymous call there is a 400, not a 401).
 */
const refusedAsToken = (res: CallResult, anonymous: CallResult) =>
  res.status === 401 || res.body?.code === "TOKEN_SCOPE" || (res.status === anonymous.status && res.body?.code === anonymous.body?.code);
const callable = (ops: Operation[]) => ops.filter((op) => op.method !== "WS");

describe("the authorization matrix: every operation × every scope", () => {
  test("the document declares a scope for the operations scripts need, and none for the account's own security", () => {
    const scopeOf = (method: string, path: string) => documentedScope(operations.find((op) => op.method === method && op.path === path)!);
    expect(operations.length).toBeGreaterThan(60);
    expect(scopeOf("GET", "/api/backups/")).toBe("read");
    expect(scopeOf("POST", "/api/backups/")).toBe("backup");
    expect(scopeOf("GET", "/api/backups/{id}/download")).toBe("backup");
    expect(scopeOf("POST", "/api/backups/{id}/restore")).toBe("restore");
    expect(scopeOf("PUT", "/api/settings/")).toBe("admin");
    for (const [method, path] of [
      ["GET", "/api/user/profile"],
      ["PUT", "/api/user/password"],
      ["POST", "/api/settings/regenerate-api-key"],
      ["POST", "/api/user/api-tokens/"],
      ["POST", "/api/auth/two-factor/disable"],
      ["WS", "/api/ws"],
    ] as const) {
      expect(`${method} ${path}: ${scopeOf(method, path)}`).toBe(`${method} ${path}: undefined`);
    }
  });

  test("a token is let through exactly when its scope covers the operation, and reads or changes none of another user's data", async () => {
    const tokens = Object.fromEntries(await Promise.all(apiTokenScopes.map(async (scope) => [scope, (await createToken(alice, [scope])).token])));
    const outcomes: string[] = [];
    const expected: string[] = [];
    for (const op of callable(operations).filter((o) => !isPublic(o))) {
      const path = aimAtBob(op.path);
      // Signing out would end the session the rest of the file uses.
      const anonymous = await server.call(op.method, path, { body: {} });
      const session = op.path === "/api/auth/logout" ? null : await server.call(op.method, path, { token: alice.token, body: {} });
      for (const scope of apiTokenScopes) {
        const res = await server.call(op.method, path, { token: tokens[scope], body: {} });
        const text = JSON.stringify(res.body);
        for (const secret of [bobs.databaseName, bobs.backupId, bobs.agentId, "bobs-agent", bob.email]) {
          expect(`${op.method} ${op.path} [${scope}] answered ${text.includes(secret) ? secret : "nothing of Bob's"}`).toBe(
            `${op.method} ${op.path} [${scope}] answered nothing of Bob's`,
          );
        }
        expect(res.status).toBeLessThan(500);
        outcomes.push(`${op.method} ${op.path} [${scope}] ${refusedAsToken(res, anonymous) ? "refused" : "let through"}`);
        expected.push(`${op.method} ${op.path} [${scope}] ${documentedScope(op) === scope ? "let through" : "refused"}`);
        // Never more than the creator's own session: what it is refused, the token is refused too.
        if (session?.status === 401 || session?.status === 403) expect(`${op.method} ${op.path} [${scope}] ${res.status}`).toMatch(/ 40[13]$/);
      }
    }
    expect(outcomes).toEqual(expected);
    expect(outcomes.filter((o) => o.endsWith("let through")).length).toBeGreaterThan(30);
    // Bob's backup, database and agent are all still there.
    expect((await server.ctx.db.select().from(backups).where(eq(backups.id, bobs.backupId))).length).toBe(1);
    expect((await server.ctx.db.select().from(databases).where(eq(databases.id, bobs.databaseId)))[0]!.isActive).toBe(true);
    expect((await server.ctx.db.select().from(agents).where(eq(agents.id, bobs.agentId)))[0]!.name).toBe("bobs-agent");
  });

  test("the admin scope reaches the admin console only while its creator is an admin", async () => {
    const admin = await server.registerAdmin();
    const adminToken = (await createToken(admin, ["admin"])).token;
    const readToken = (await createToken(admin, ["read"])).token;
    const consoleOps = callable(operations).filter((op) => op.path.startsWith("/api/admin/") && op.method === "GET" && !op.path.includes("{"));
    expect(consoleOps.length).toBeGreaterThanOrEqual(3);
    for (const op of consoleOps) {
      expect(`${op.path} ${(await server.call("GET", op.path, { token: adminToken })).status}`).toBe(`${op.path} 200`);
      expect(`${op.path} ${(await server.call("GET", op.path, { token: readToken })).body.code}`).toBe(`${op.path} TOKEN_SCOPE`);
    }
    await server.ctx.db.update(users).set({ role: "user" }).where(eq(users.id, admin.id));
    for (const op of consoleOps) {
      const res = await server.call("GET", op.path, { token: adminToken });
      expect(`${op.path} ${res.status} ${res.body.message}`).toBe(`${op.path} 403 This page is for administrators only.`);
    }
  });

  test("a token cannot manage tokens, so it cannot widen itself", async () => {
    const { token } = await createToken(alice, ["read", "backup", "restore", "admin"]);
    const created = await server.call("POST", "/api/user/api-tokens", { token, body: { name: "wider", scopes: ["admin"], expiresInDays: 365 } });
    expect([created.status, created.body.code]).toEqual([403, "TOKEN_SCOPE"]);
    expect((await server.call("GET", "/api/user/api-tokens", { token })).status).toBe(403);
    expect((await server.call("GET", "/api/user/profile", { token })).status).toBe(403);
  });
});

describe("a token's life", () => {
  test("is shown once, listed with its last use, and revoking it refuses the very next request", async () => {
    const created = await createToken(alice, ["read"], 30, "nightly CI");
    expect(created.token).toMatch(/^dbvp_[A-Za-z0-9_-]{43}$/);
    expect(created.lastUsedAt).toBeNull();
    const listed = () => server.call("GET", "/api/user/api-tokens", { token: alice.token });
    const before = (await listed()).body.find((t: { id: string }) => t.id === created.id);
    expect(before).toMatchObject({ name: "nightly CI", scopes: ["read"], lastUsedAt: null });
    expect(JSON.stringify((await listed()).body)).not.toContain(created.token);

    expect((await server.call("GET", "/api/backups/", { token: created.token })).status).toBe(200);
    const after = (await listed()).body.find((t: { id: string }) => t.id === created.id);
    expect(Date.now() - Date.parse(after.lastUsedAt)).toBeLessThan(60_000);

    const revoked = await server.call("DELETE", `/api/user/api-tokens/${created.id}`, { token: alice.token });
    expect(revoked).toMatchObject({ status: 200, body: { message: 'Token "nightly CI" revoked. Requests with it are refused from now on.' } });
    const refused = await server.call("GET", "/api/backups/", { token: created.token });
    expect([refused.status, refused.body.message]).toEqual([
      401,
      "This API token is not valid: it was revoked or never existed. Create a new one in Profile → Security → API tokens.",
    ]);
    expect((await server.call("DELETE", `/api/user/api-tokens/${created.id}`, { token: alice.token })).status).toBe(404);

    const logs = (await server.call("GET", "/api/user/audit-logs", { token: alice.token })).body.logs as { action: string; details: Record<string, unknown> }[];
    expect(logs.find((l) => l.action === "API_TOKEN_CREATED" && l.details.tokenId === created.id)?.details).toMatchObject({
      name: "nightly CI",
      scopes: ["read"],
    });
    expect(logs.find((l) => l.action === "API_TOKEN_REVOKED" && l.details.tokenId === created.id)?.details).toMatchObject({ name: "nightly CI" });
  });

  test("another user cannot list or revoke it", async () => {
    const created = await createToken(alice, ["read"]);
    expect(JSON.stringify((await server.call("GET", "/api/user/api-tokens", { token: bob.token })).body)).not.toContain(created.id);
    expect((await server.call("DELETE", `/api/user/api-tokens/${created.id}`, { token: bob.token })).status).toBe(404);
    expect((await server.call("GET", "/api/backups/", { token: created.token })).status).toBe(200);
  });

  test("an expired token is refused", async () => {
    const created = await createToken(alice, ["read"], 1);
    expect((await server.call("GET", "/api/backups/", { token: created.token })).status).toBe(200);
    advanceServerClock(server, 24 * 3_600_000 + 1_000);
    const res = await server.call("GET", "/api/backups/", { token: created.token });
    expect(res.status).toBe(401);
    expect(res.body.message).toStartWith("This API token expired on ");
  });

  test("stops working when its creator is suspended or deleted", async () => {
    const carol = await server.registerUser();
    const admin = await server.registerAdmin();
    const { token } = await createToken(carol, ["read"], 365);
    await server.call("PUT", `/api/admin/users/${carol.id}/ban`, { token: admin.token, body: { isBanned: true, banReason: "Chargeback" } });
    expect(await server.call("GET", "/api/backups/", { token })).toMatchObject({ status: 403, body: { code: "BANNED" } });
    await server.call("PUT", `/api/admin/users/${carol.id}/ban`, { token: admin.token, body: { isBanned: false } });
    expect((await server.call("GET", "/api/backups/", { token })).status).toBe(200);
    expect((await server.call("DELETE", `/api/admin/users/${carol.id}`, { token: admin.token })).status).toBe(200);
    expect((await server.call("GET", "/api/backups/", { token })).status).toBe(401);
  });

  test("refuses a bad request with a clear message", async () => {
    const cases: [unknown, RegExp][] = [
      [{ name: "x", scopes: ["owner"], expiresInDays: 30 }, /^scopes must be a list of one or more of read, backup, restore, admin/],
      [{ name: "x", scopes: [], expiresInDays: 30 }, /^scopes must be/],
      [{ name: "x", scopes: ["read"], expiresInDays: 0 }, /^expiresInDays must be a whole number of days from 1 to 365/],
      [{ name: "x", scopes: ["read"] }, /expiresInDays/],
      [{ name: "   ", scopes: ["read"], expiresInDays: 30 }, /^Give the token a name/],
    ];
    for (const [body, message] of cases) {
      const res = await server.call("POST", "/api/user/api-tokens", { token: alice.token, body: { ...(body as object), password: alice.password } });
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(message);
    }
  });
});

describe("a stolen session does not become a year-long credential", () => {
  const tokenInput = { name: "year-long", scopes: ["read", "backup", "restore", "admin"], expiresInDays: 365 };

  test("minting a token needs the password (or a recent re-authentication), not the session alone", async () => {
    const victim = await server.registerUser();
    const alone = await server.call("POST", "/api/user/api-tokens", { token: victim.token, body: tokenInput });
    expect([alone.status, alone.body.code]).toEqual([403, "REAUTHENTICATION_REQUIRED"]);
    const wrong = await server.call("POST", "/api/user/api-tokens", { token: victim.token, body: { ...tokenInput, password: "not the password" } });
    expect(wrong.status).toBe(400);
    expect((await server.call("GET", "/api/user/api-tokens", { token: victim.token })).body).toEqual([]);
    const stamped = await server.call("POST", "/api/auth/reauthenticate", { token: victim.token, body: { password: victim.password } });
    expect((await server.call("POST", "/api/user/api-tokens", { token: stamped.body.token, body: tokenInput })).status).toBe(201);
  });

  test("each token shows when and from where it was last used", async () => {
    const created = await createToken(alice, ["read"]);
    await server.call("GET", "/api/backups/", { token: created.token });
    const listed = (await server.call("GET", "/api/user/api-tokens", { token: alice.token })).body.find((t: { id: string }) => t.id === created.id);
    expect(listed.lastUsedAt).not.toBeNull();
    // The harness calls the app in-process: no socket, so the address is "local" (over HTTP, the client's).
    expect(listed.lastUsedFrom).toBe("local");
  });

  const mailTo = (email: string, subject: string) =>
    waitUntil(() => server.sentMail.find((mail) => mail.to === email && mail.subject === subject), { message: subject });

  test("a password reset revokes every token by default (a thief's token adds no webhook after it), and the mail says so", async () => {
    const victim = await server.registerUser();
    const thiefs = await createToken(victim, ["admin"], 365, "thief");
    const token = "reset-link-of-the-victim";
    const [row] = await server.ctx.db.select().from(users).where(eq(users.id, victim.id));
    await server.ctx.db
      .insert(passwordResetTokens)
      .values({ userId: row!.id, tokenHash: hashLinkToken(token), expiresAt: new Date(server.ctx.now().getTime() + 3_600_000) });
    expect((await server.call("POST", `/api/auth/reset-password/${token}`, { body: { password: "a brand new passphrase" } })).status).toBe(200);
    const webhook = await server.call("POST", "/api/settings/webhooks/", {
      token: thiefs.token,
      body: { url: "https://evil.example/hook", events: ["backup.completed"] },
    });
    expect(webhook.status).toBe(401);
    const mail = await mailTo(victim.email, "DBVault security: your password was reset");
    expect(mail.text).toContain("1 API token(s) were revoked");
    expect(mail.text).toContain("No API token acts for you now.");
  });

  test("a password change offers to revoke every token; kept ones are listed in the security mail", async () => {
    const victim = await server.registerUser();
    const kept = await createToken(victim, ["read"], 30, "nightly CI");
    expect((await server.call("GET", "/api/backups/", { token: kept.token })).status).toBe(200);
    const changed = await server.call("PUT", "/api/user/password", {
      token: victim.token,
      body: { currentPassword: victim.password, newPassword: "second passphrase 1" },
    });
    expect([changed.status, changed.body.revokedApiTokens]).toEqual([200, 0]);
    expect((await server.call("GET", "/api/backups/", { token: kept.token })).status).toBe(200);
    const mail = await mailTo(victim.email, "DBVault security: your password was changed");
    expect(mail.text).toContain("These API tokens still act for you:");
    expect(mail.text).toMatch(/- nightly CI \(dbvp_.{4}…\): last used \d{4}-.* from local/);
    const again = await server.call("PUT", "/api/user/password", {
      token: changed.body.token,
      body: { currentPassword: "second passphrase 1", newPassword: "third passphrase 1", revokeApiTokens: true },
    });
    expect([again.status, again.body.revokedApiTokens]).toEqual([200, 1]);
    expect((await server.call("GET", "/api/backups/", { token: kept.token })).status).toBe(401);
  });

  test("signing out everywhere with revokeApiTokens ends the tokens too; a plain sign-out keeps them", async () => {
    const victim = await server.registerUser();
    const created = await createToken(victim, ["read"]);
    const plain = await server.call("POST", "/api/auth/logout", { token: victim.token });
    expect(plain.status).toBe(200);
    expect((await server.call("GET", "/api/backups/", { token: created.token })).status).toBe(200);
    const signedIn = await server.call("POST", "/api/auth/login", { body: { email: victim.email, password: victim.password } });
    const everywhere = await server.call("POST", "/api/auth/logout", { token: signedIn.body.token, body: { revokeApiTokens: true } });
    expect(everywhere.status).toBe(200);
    expect((await server.call("GET", "/api/backups/", { token: created.token })).status).toBe(401);
  });
});
