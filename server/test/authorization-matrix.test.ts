// Organizations and roles: every operation of /api/docs × every role × own and foreign
// organization × a session and an API token of each scope, driven by the document so an
// operation added later is covered; then the paths a team walks (an agent registering with the
// team's key, a removed member's token, the audit log's actor, alerts to owners and admins).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { type ApiTokenScope, agents, apiTokenScopes, backups, databases, type MemberRole, memberRoles, memberships, organizations } from "@db/schema";
import { leastRoleOf } from "../src/lib/api-security";
import { roleAtLeast } from "../src/modules/organizations/roles";
import { type CallResult, startTestServer, type TestServer, type TestUser } from "./harness";
import { createTeam } from "./teams";

type Operation = { method: string; path: string; security: Record<string, string[]>[] };

let server: TestServer;
let operations: Operation[];
/** A team with one member of each role, its database, agent and backup, and its API key. */
const team = { id: "", name: "Acme Ops", apiKey: "", databaseName: "acme-orders", databaseId: "", agentId: "", backupId: "" };
/** Another team none of them belongs to. */
const foreign = { id: "", name: "Globex", databaseName: "globex-ledger", databaseId: "", agentId: "", backupId: "" };
const members = {} as Record<MemberRole, TestUser>;

async function seedData(organizationId: string, databaseName: string, agentName: string) {
  const [agent] = await server.ctx.db
    .insert(agents)
    .values({ organizationId, name: agentName, hostname: `${agentName}.internal`, platform: "linux", version: "1.0.0" })
    .returning();
  const [database] = await server.ctx.db.insert(databases).values({ organizationId, name: databaseName, agentId: agent!.id }).returning();
  const [backup] = await server.ctx.db
    .insert(backups)
    .values({ organizationId, databaseName, databaseId: database!.id, status: "completed", size: 10 })
    .returning();
  return { agentId: agent!.id, databaseId: database!.id, backupId: backup!.id };
}

const inTeam = (user: TestUser, token = user.token) => ({ token, headers: { "X-Organization-Id": team.id } });

beforeAll(async () => {
  server = await startTestServer();
  for (const role of memberRoles) members[role] = await server.registerUser({ name: `${role} member` });
  const created = await createTeam(
    server,
    team.name,
    memberRoles.map((role) => ({ user: members[role], role })),
  );
  Object.assign(team, created, await seedData(created.id, team.databaseName, "acme-agent"));
  const stranger = await server.registerUser({ name: "Globex Owner" });
  const other = await createTeam(server, foreign.name, [{ user: stranger, role: "owner" }]);
  Object.assign(foreign, { id: other.id }, await seedData(other.id, foreign.databaseName, "globex-agent"));
  const doc = (await server.call("GET", "/api/docs")).body;
  operations = Object.entries(doc.paths as Record<string, Record<string, { security?: Operation["security"] }>>).flatMap(([path, byMethod]) =>
    Object.entries(byMethod).map(([method, op]) => ({ method: method.toUpperCase(), path, security: op.security ?? [] })),
  );
}, 60_000);
afterAll(() => server.close());

/** What ends the caller's membership or the team itself: each is checked on a team of its own (below). */
const ENDING_OPERATIONS = ["DELETE /api/organizations/current", "POST /api/organizations/current/leave"];

/**
 * The organization's operations: what a session may call, less the server administrators'
 * console, the account's sign-out and the operations that end the team for the tests after them.
 */
const organizationOperations = () =>
  operations.filter(
    (op) =>
      op.method !== "WS" &&
      !ENDING_OPERATIONS.includes(`${op.method} ${op.path}`) &&
      op.security.some((requirement) => requirement.bearer) &&
      !op.security.some((requirement) => Object.keys(requirement).length === 0) &&
      !op.path.startsWith("/api/admin/") &&
      !op.path.startsWith("/api/kb") &&
      op.path !== "/api/auth/logout",
  );

/** The path with every parameter set to `target`'s things. */
function aimAt(path: string, target: { databaseId: string; agentId: string; backupId: string }): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (name === "agentId") return target.agentId;
    if (name === "databaseId" || path.startsWith("/api/settings/databases")) return target.databaseId;
    if (name === "id" && path.startsWith("/api/backups")) return target.backupId;
    return "0123456789abcdef01234567";
  });
}

const refusedForRole = (res: CallResult) => res.status === 403 && res.body?.code === "ROLE";

/** The account's own pages (profile, password, two-factor, its tokens): the user's, in whichever organization. */
const isAccountOperation = (op: Operation) =>
  op.path.startsWith("/api/auth/") ||
  ["/api/user/profile", "/api/user/update", "/api/user/password"].includes(op.path) ||
  op.path.startsWith("/api/user/api-tokens");

describe("every operation × every role, in the own organization", () => {
  test("a session is refused exactly the operations above its role, with a message naming the role it needs", async () => {
    const ops = organizationOperations();
    expect(ops.length).toBeGreaterThan(40);
    const outcomes: string[] = [];
    const expected: string[] = [];
    for (const role of memberRoles) {
      for (const op of ops) {
        const res = await server.call(op.method, aimAt(op.path, team), { ...inTeam(members[role]), body: {} });
        expect(res.status).toBeLessThan(500);
        outcomes.push(`${role} ${op.method} ${op.path} ${refusedForRole(res) ? "refused" : "let through"}`);
        expected.push(`${role} ${op.method} ${op.path} ${roleAtLeast(role, leastRoleOf(op.method, op.path)) ? "let through" : "refused"}`);
      }
    }
    expect(outcomes).toEqual(expected);
    const download = await server.call("GET", `/api/backups/${team.backupId}/download`, inTeam(members.viewer));
    expect(download.body.message).toBe(`Your role (Viewer) cannot do this. Ask an owner or admin of ${team.name} for the Operator role.`);
    const plan = await server.call("PUT", "/api/user/plan", { ...inTeam(members.admin), body: { plan: "free" } });
    expect(plan.body.message).toBe(`Your role (Admin) cannot do this: only an owner of ${team.name} can.`);
  });

  test("leaving or deleting the team: refused exactly below the role each needs, each tried on a team of its own", async () => {
    const documented = operations.map((op) => `${op.method} ${op.path}`);
    const outcomes: string[] = [];
    const expected: string[] = [];
    for (const operation of ENDING_OPERATIONS) {
      expect(documented).toContain(operation);
      const [method, path] = operation.split(" ") as [string, string];
      for (const role of memberRoles) {
        const own = await createTeam(
          server,
          "Throwaway",
          memberRoles.map((member) => ({ user: members[member], role: member })),
        );
        const res = await server.call(method, path, { token: members[role].token, headers: { "X-Organization-Id": own.id }, body: {} });
        expect(res.status).toBeLessThan(500);
        outcomes.push(`${role} ${operation} ${refusedForRole(res) ? "refused" : "let through"}`);
        expected.push(`${role} ${operation} ${roleAtLeast(role, leastRoleOf(method, path)) ? "let through" : "refused"}`);
        // Gone, so the tests after this one see the members' teams as they were.
        await server.ctx.db.delete(organizations).where(eq(organizations.id, own.id));
      }
    }
    expect(outcomes).toEqual(expected);
  });

  test("the least roles the issue names: viewers read, operators back up and restore, admins configure, owners hold the plan and protection", () => {
    const least = (method: string, path: string) => `${method} ${path} ${leastRoleOf(method, path)}`;
    expect(least("GET", "/api/backups/")).toBe("GET /api/backups/ viewer");
    expect(least("GET", "/api/user/audit-logs")).toBe("GET /api/user/audit-logs viewer");
    expect(least("GET", "/api/backups/:id/download")).toBe("GET /api/backups/:id/download operator");
    expect(least("POST", "/api/backups/")).toBe("POST /api/backups/ operator");
    expect(least("POST", "/api/backups/{id}/restore")).toBe("POST /api/backups/{id}/restore operator");
    expect(least("POST", "/api/drills/")).toBe("POST /api/drills/ operator");
    expect(least("PUT", "/api/settings/")).toBe("PUT /api/settings/ admin");
    expect(least("POST", "/api/settings/webhooks/")).toBe("POST /api/settings/webhooks/ admin");
    expect(least("POST", "/api/settings/regenerate-api-key")).toBe("POST /api/settings/regenerate-api-key admin");
    expect(least("PUT", "/api/user/plan")).toBe("PUT /api/user/plan owner");
    expect(least("POST", "/api/settings/backup-protection/")).toBe("POST /api/settings/backup-protection/ owner");
    expect(least("POST", "/api/settings/backup-protection/turn-off")).toBe("POST /api/settings/backup-protection/turn-off owner");
  });
});

describe("never across organizations", () => {
  test("no role reads or changes another organization's data, by its ids or by naming it", async () => {
    const secrets = [foreign.databaseName, foreign.backupId, foreign.agentId, "globex-agent", foreign.name];
    for (const role of memberRoles) {
      for (const op of organizationOperations()) {
        const res = await server.call(op.method, aimAt(op.path, foreign), { ...inTeam(members[role]), body: {} });
        const text = JSON.stringify(res.body);
        const leaked = secrets.find((secret) => text.includes(secret));
        expect(`${role} ${op.method} ${op.path} answered ${leaked ?? "nothing of Globex"}`).toBe(`${role} ${op.method} ${op.path} answered nothing of Globex`);
        expect(res.status).toBeLessThan(500);
        // Aimed at its ids: nothing of it changes (what names no id acts in the member's own team).
        if (op.method !== "GET" && op.path.includes("{") && !isAccountOperation(op))
          expect(`${role} ${op.method} ${op.path} ${res.status}`).not.toMatch(/ 20[01]$/);
        // Naming the foreign organization is refused before anything runs.
        const named = await server.call(op.method, aimAt(op.path, foreign), {
          token: members[role].token,
          headers: { "X-Organization-Id": foreign.id },
          body: {},
        });
        expect(`${role} ${op.method} ${op.path} ${named.status}`).toBe(`${role} ${op.method} ${op.path} 403`);
      }
    }
    expect((await server.ctx.db.select().from(backups).where(eq(backups.id, foreign.backupId))).length).toBe(1);
    expect((await server.ctx.db.select().from(databases).where(eq(databases.id, foreign.databaseId)))[0]!.isActive).toBe(true);
    expect((await server.ctx.db.select().from(agents).where(eq(agents.id, foreign.agentId)))[0]!.name).toBe("globex-agent");
  });
});

describe("API tokens act in their organization, never beyond the creator's role there", () => {
  const createToken = async (user: TestUser, scopes: ApiTokenScope[]) => {
    const res = await server.call("POST", "/api/user/api-tokens", { ...inTeam(user), body: { name: `ci ${scopes.join("+")}`, scopes, expiresInDays: 30 } });
    if (res.status !== 201) throw new Error(`token not created: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.token as string;
  };

  test("each role × each scope: let through only when both the scope and the role allow, and only in the token's organization", async () => {
    const outcomes: string[] = [];
    const expected: string[] = [];
    const scoped = organizationOperations().filter((op) => op.security.some((requirement) => requirement.apiToken));
    expect(scoped.length).toBeGreaterThan(20);
    for (const role of memberRoles) {
      for (const scope of apiTokenScopes) {
        const token = await createToken(members[role], [scope]);
        for (const op of scoped) {
          // No X-Organization-Id: the token's own organization is the team's.
          const res = await server.call(op.method, aimAt(op.path, team), { token, body: {} });
          expect(res.status).toBeLessThan(500);
          const refused = res.status === 401 || res.body?.code === "TOKEN_SCOPE" || refusedForRole(res);
          const scopeAllows = op.security.find((requirement) => requirement.apiToken)?.apiToken?.[0] === scope;
          outcomes.push(`${role} [${scope}] ${op.method} ${op.path} ${refused ? "refused" : "let through"}`);
          expected.push(
            `${role} [${scope}] ${op.method} ${op.path} ${scopeAllows && roleAtLeast(role, leastRoleOf(op.method, op.path)) ? "let through" : "refused"}`,
          );
          const foreignRes = await server.call(op.method, aimAt(op.path, foreign), { token, body: {} });
          expect(JSON.stringify(foreignRes.body)).not.toContain(foreign.databaseName);
        }
        // A token never acts in another organization, not even the creator's personal one.
        const elsewhere = await server.call("GET", "/api/backups", { token, headers: { "X-Organization-Id": members[role].id } });
        expect(elsewhere.status).toBe(403);
        if (scope === "read") {
          expect(elsewhere.body.message).toBe(
            "This API token acts only in the organization it was created in. Create a token there in Profile → Security → API tokens.",
          );
        }
      }
    }
    expect(outcomes).toEqual(expected);
  });

  test("a token lists the team's backups, and stops at once when its creator leaves the team or loses the role", async () => {
    // The matrix above deleted what it could; a backup of the team's again.
    Object.assign(team, await seedData(team.id, "acme-invoices", "acme-agent-2"));
    const token = await createToken(members.operator, ["read", "backup"]);
    const list = await server.call("GET", "/api/backups", { token });
    expect(list.status).toBe(200);
    expect(JSON.stringify(list.body)).toContain("acme-invoices");
    const verify = await server.call("POST", `/api/backups/${team.backupId}/verify`, { token });
    expect(refusedForRole(verify)).toBe(false);

    await server.ctx.db
      .update(memberships)
      .set({ role: "viewer" })
      .where(and(eq(memberships.organizationId, team.id), eq(memberships.userId, members.operator.id)));
    const lowered = await server.call("POST", `/api/backups/${team.backupId}/verify`, { token });
    expect(lowered.body.message).toBe(`Your role (Viewer) cannot do this. Ask an owner or admin of ${team.name} for the Operator role.`);

    await server.ctx.db.delete(memberships).where(and(eq(memberships.organizationId, team.id), eq(memberships.userId, members.operator.id)));
    const removed = await server.call("GET", "/api/backups", { token });
    expect(removed.status).toBe(403);
    await server.ctx.db.insert(memberships).values({ organizationId: team.id, userId: members.operator.id, role: "operator" });
  });
});

describe("a team's agents, audit log and account deletion", () => {
  test("an agent set up with the team's API key registers into the team, and the team's admins see the key", async () => {
    const res = await server.call("POST", "/api/agent/register", {
      token: team.apiKey,
      body: { name: "team-host", hostname: "team-host", platform: "linux", version: "1.0.0", databases: ["acme-billing"] },
    });
    expect(res.status).toBe(201);
    const [agent] = await server.ctx.db.select().from(agents).where(eq(agents.id, res.body.agentId));
    expect(agent!.organizationId).toBe(team.id);
    const listed = await server.call("GET", "/api/settings/databases", inTeam(members.viewer));
    expect(JSON.stringify(listed.body)).toContain("acme-billing");
    const own = await server.call("GET", "/api/settings/databases", { token: members.viewer.token });
    expect(JSON.stringify(own.body)).not.toContain("acme-billing");
    expect((await server.call("GET", "/api/user/profile", inTeam(members.admin))).body.apiKey).toBe(team.apiKey);
    expect((await server.call("GET", "/api/user/profile", inTeam(members.operator))).body.apiKey).toBe("");
  });

  test("the audit log names the member who acted and their role", async () => {
    const res = await server.call("PUT", "/api/settings", { ...inTeam(members.admin), body: { frequency: "daily", retention: 168 } });
    expect(`${res.status} ${res.body.message ?? ""}`).toBe("200 ");
    const logs = await server.call("GET", "/api/user/audit-logs?action=SETTINGS_UPDATED", inTeam(members.viewer));
    expect(logs.body.logs[0].actor).toEqual({ id: members.admin.id, name: "admin member", email: members.admin.email, role: "admin" });
    const mine = await server.call("GET", "/api/user/audit-logs?action=SETTINGS_UPDATED", { token: members.admin.token });
    expect(mine.body.logs).toEqual([]);
    const renamed = await server.call("PATCH", `/api/agents/${team.agentId}`, { ...inTeam(members.operator), body: { name: "too-low" } });
    expect(renamed.status).toBe(403);
    expect((await server.call("PATCH", `/api/agents/${team.agentId}`, { ...inTeam(members.owner), body: { name: "acme-primary" } })).status).toBe(200);
    const renames = await server.call("GET", "/api/user/audit-logs?action=AGENT_RENAMED", inTeam(members.viewer));
    expect(renames.body.logs.map((log: { actor: { id: string; role: string } }) => `${log.actor.id} ${log.actor.role}`)).toEqual([`${members.owner.id} owner`]);
  });

  test("an account that is a team's only owner is not deleted (409 naming the team); its personal organization goes with it otherwise", async () => {
    const admin = await server.registerAdmin();
    const res = await server.call("DELETE", `/api/admin/users/${members.owner.id}`, { token: admin.token });
    expect(res.status).toBe(409);
    expect(res.body.message).toContain(`"${team.name}"`);
    await server.ctx.db
      .update(memberships)
      .set({ role: "owner" })
      .where(and(eq(memberships.organizationId, team.id), eq(memberships.userId, members.admin.id)));
    const again = await server.call("DELETE", `/api/admin/users/${members.owner.id}`, { token: admin.token });
    expect(again.status).toBe(200);
    expect(await server.ctx.db.select().from(organizations).where(eq(organizations.id, members.owner.id))).toEqual([]);
    expect((await server.ctx.db.select().from(organizations).where(eq(organizations.id, team.id))).length).toBe(1);
  });
});

describe("the admin console's organizations", () => {
  test("lists each organization with its members and roles, plan and storage, and moves one to another plan", async () => {
    const admin = await server.registerAdmin();
    const refused = await server.call("GET", "/api/admin/organizations", { token: members.admin.token });
    expect(refused.status).toBe(403);
    const res = await server.call("GET", "/api/admin/organizations", { token: admin.token });
    expect(res.status).toBe(200);
    const listed = res.body.find((organization: { id: string }) => organization.id === team.id);
    expect(listed).toMatchObject({ name: team.name, personal: false, storageUsed: 0 });
    expect(listed.plan.name).toBe("Free");
    // The owner's account was deleted above, once the admin had become an owner.
    expect(listed.members.map((member: { id: string; role: string }) => `${member.id} ${member.role}`)).toEqual([
      `${members.admin.id} owner`,
      `${members.operator.id} operator`,
      `${members.viewer.id} viewer`,
    ]);
    const personal = res.body.find((organization: { id: string }) => organization.id === members.viewer.id);
    expect(personal).toMatchObject({ personal: true, members: [{ id: members.viewer.id, email: members.viewer.email, role: "owner" }] });

    const plans = (await server.call("GET", "/api/admin/plans", { token: admin.token })).body as { id: string; name: string }[];
    const pro = plans.find((plan) => plan.name === "Pro")!;
    const changed = await server.call("PUT", `/api/admin/organizations/${team.id}/plan`, { token: admin.token, body: { plan: pro.id } });
    expect(changed.status).toBe(200);
    expect(changed.body.plan.name).toBe("Pro");
    expect((await server.call("GET", "/api/user/plan", inTeam(members.viewer))).body.name).toBe("Pro");
    // The members' personal organizations keep their own plan.
    expect((await server.call("GET", "/api/user/plan", { token: members.viewer.token })).body.name).not.toBe("Pro");
    const missing = await server.call("PUT", "/api/admin/organizations/0123456789abcdef01234567/plan", { token: admin.token, body: { plan: pro.id } });
    expect(missing.status).toBe(404);
    const invalid = await server.call("PUT", `/api/admin/organizations/${team.id}/plan`, { token: admin.token, body: {} });
    expect(invalid.status).toBe(400);
  });
});
