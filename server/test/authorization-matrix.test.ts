// Organizations and roles: every operation of /api/docs × every role × own and foreign
// organization × a session, a session from single sign-on (scoped to one organization), an API
// token of each scope and an agent's credentials, driven by the document so an
// operation added later is covered; then the paths a team walks (an agent registering with the
// team's key, a removed member's token, the audit log's actor, alerts to owners and admins).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import {
  type ApiTokenScope,
  agents,
  apiTokenScopes,
  backupCopies,
  backups,
  databases,
  type MemberRole,
  memberRoles,
  memberships,
  organizations,
  pitrSlices,
  users,
} from "@db/schema";
import { leastRoleOf } from "../src/lib/api-security";
import { isAccountOperation as scopedAccountOperation } from "../src/modules/auth/session-scope";
import { backupStorage } from "../src/modules/stored-files/keys";
import { roleAtLeast } from "../src/modules/organizations/roles";
import { type CallResult, startTestServer, type TestServer, type TestUser } from "./harness";
import { createTeam } from "./teams";

type Schema = {
  type?: string;
  pattern?: string;
  required?: string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  enum?: unknown[];
  anyOf?: Schema[];
  const?: unknown;
};
type Operation = {
  method: string;
  path: string;
  security: Record<string, string[]>[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  parameters?: { in: string; name: string; schema?: Schema }[];
};

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
  operations = Object.entries(doc.paths as Record<string, Record<string, Omit<Operation, "method" | "path">>>).flatMap(([path, byMethod]) =>
    Object.entries(byMethod).map(([method, op]) => ({ ...op, method: method.toUpperCase(), path, security: op.security ?? [] })),
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
    expect(least("PUT", "/api/settings/databases/:id/schedule")).toBe("PUT /api/settings/databases/:id/schedule admin");
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

describe("a hostile owner of a shared team", () => {
  test("reaches nothing of a member's personal organization, by its ids or by naming it, with a session or an all-scope token", async () => {
    // The viewer's own organization (its id is the account's): what a team's owner must never see.
    const member = members.viewer;
    const personal = { id: member.id, databaseName: "viewer-private-db", ...(await seedData(member.id, "viewer-private-db", "viewer-home-agent")) };
    const owner = members.owner;
    const created = await server.call("POST", "/api/user/api-tokens", {
      token: owner.token,
      headers: { "X-Organization-Id": team.id },
      body: { name: "everything", scopes: ["read", "backup", "restore", "admin"], expiresInDays: 30, password: owner.password },
    });
    expect(created.status).toBe(201);
    const secrets = [personal.databaseName, personal.backupId, personal.agentId, "viewer-home-agent"];
    for (const [caller, credential] of [
      ["session", owner.token],
      ["token", created.body.token as string],
    ] as const) {
      for (const op of organizationOperations()) {
        const res = await server.call(op.method, aimAt(op.path, personal), { ...inTeam(owner, credential), body: {} });
        const leaked = secrets.find((secret) => JSON.stringify(res.body).includes(secret));
        expect(`${caller} ${op.method} ${op.path} answered ${leaked ?? "nothing of the member's own"}`).toBe(
          `${caller} ${op.method} ${op.path} answered nothing of the member's own`,
        );
        expect(res.status).toBeLessThan(500);
        if (op.method !== "GET" && op.path.includes("{") && !isAccountOperation(op))
          expect(`${caller} ${op.method} ${op.path} ${res.status}`).not.toMatch(/ 20[01]$/);
        const named = await server.call(op.method, aimAt(op.path, personal), { token: credential, headers: { "X-Organization-Id": personal.id }, body: {} });
        if (!isAccountOperation(op)) expect(`${caller} ${op.method} ${op.path} ${named.status}`).toMatch(/ 40[13]$/);
      }
    }
    expect((await server.ctx.db.select().from(backups).where(eq(backups.id, personal.backupId))).length).toBe(1);
    expect((await server.ctx.db.select().from(databases).where(eq(databases.id, personal.databaseId)))[0]!.isActive).toBe(true);
    expect((await server.ctx.db.select().from(agents).where(eq(agents.id, personal.agentId)))[0]!.name).toBe("viewer-home-agent");
  });
});

describe("agent credentials never reach another organization", () => {
  /** Globex's things an agent could aim at besides the seeded ones: a backup being uploaded, an oplog slice, a copy. */
  const aimed = { uploadingBackupId: "", sliceId: "", copyKey: "globex-copies/ledger.enc.dbvault" };
  const FOREIGN_BYTES = "GLOBEX-ENC";

  /** Every row of Globex an agent route could write, to compare before and after. */
  const foreignRows = async () =>
    JSON.stringify(
      [
        await server.ctx.db.select().from(agents).where(eq(agents.organizationId, foreign.id)),
        await server.ctx.db.select().from(databases).where(eq(databases.organizationId, foreign.id)),
        await server.ctx.db.select().from(backups).where(eq(backups.organizationId, foreign.id)),
        await server.ctx.db.select().from(pitrSlices).where(eq(pitrSlices.organizationId, foreign.id)),
        await server.ctx.db.select().from(backupCopies).where(eq(backupCopies.key, aimed.copyKey)),
      ],
      (_, value) => (typeof value === "bigint" ? String(value) : value),
    );

  /** A value for a body or query field, aimed at Globex wherever the field names a thing. */
  function aimedValue(schema: Schema | undefined, name: string): unknown {
    if (!schema) return "x";
    if (schema.anyOf) return aimedValue(schema.anyOf.find((option) => option.type !== "null") ?? schema.anyOf[0], name);
    if (schema.const !== undefined) return schema.const;
    if (schema.enum) return schema.enum[0];
    if (schema.type === "object") {
      const required = Object.entries(schema.properties ?? {}).filter(([key]) => schema.required?.includes(key));
      return Object.fromEntries(required.map(([key, value]) => [key, aimedValue(value, key)]));
    }
    if (schema.type === "array") return [aimedValue(schema.items, name)];
    if (schema.type === "integer" || schema.type === "number") return 1;
    if (schema.type === "boolean") return true;
    if (/slice/i.test(name)) return aimed.sliceId;
    if (/database/i.test(name)) return foreign.databaseName;
    if (/agent/i.test(name)) return foreign.agentId;
    if (/key/i.test(name)) return aimed.copyKey;
    if (/destination/i.test(name)) return "s3://globex-bucket";
    if (/backup|^ids?$|Ids?$/.test(name)) return foreign.backupId;
    // Well-formed where the schema asks a form, so the route's own checks run, not only validation.
    if (schema.pattern) {
      const pattern = new RegExp(schema.pattern);
      const hexLength = Number(schema.pattern.match(/\[0-9a-f\]\{(\d+)\}/)?.[1] ?? 0);
      const formed = ["0".repeat(hexLength), "1", "1,1"].find((candidate) => pattern.test(candidate));
      if (formed !== undefined) return formed;
    }
    return "acme-value";
  }

  /** The requests aimed at Globex's things (each backup of it, when the path names one); query and JSON body from the document. */
  function aimedRequests(op: Operation): { path: string; body?: unknown; rawBody?: string }[] {
    const query = (op.parameters ?? []).filter((parameter) => parameter.in === "query");
    const search = new URLSearchParams(query.map((parameter) => [parameter.name, String(aimedValue(parameter.schema, parameter.name))])).toString();
    const json = op.requestBody?.content?.["application/json"]?.schema;
    const content = json ? { body: aimedValue(json, "") } : op.method === "PUT" ? { rawBody: "encrypted bytes" } : {};
    return [foreign.backupId, aimed.uploadingBackupId].map((backupId) => {
      const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => (name === "sliceId" ? aimed.sliceId : name === "partNumber" ? "0" : backupId));
      return { path: search ? `${path}?${search}` : path, ...content };
    });
  }

  test("every agent route, with an agent's id and token or the team's API key, reads and writes nothing of another organization", async () => {
    const [uploading] = await server.ctx.db
      .insert(backups)
      .values({
        organizationId: foreign.id,
        databaseName: foreign.databaseName,
        databaseId: foreign.databaseId,
        agentId: foreign.agentId,
        status: "in-progress",
      })
      .returning();
    aimed.uploadingBackupId = uploading!.id;
    const [slice] = await server.ctx.db
      .insert(pitrSlices)
      .values({
        organizationId: foreign.id,
        databaseId: foreign.databaseId,
        agentId: foreign.agentId,
        chain: "0123456789abcdef0123456789abcdef",
        sequence: 0,
        startTs: 1n,
        endTs: 2n,
        entryCount: 1,
        size: 10,
        sha256: "0".repeat(64),
        reason: "started",
        storageKey: "globex/slice-0",
        stored: true,
      })
      .returning();
    aimed.sliceId = slice!.id;
    await server.ctx.db.insert(backupCopies).values({ backupId: foreign.backupId, destination: "s3://globex-bucket", key: aimed.copyKey, status: "stored" });
    // Their files are stored, so a download let through would answer their bytes (10, as seeded).
    await server.ctx.storage.put(backupStorage.file(foreign.id, foreign.backupId), new TextEncoder().encode(FOREIGN_BYTES));
    await server.ctx.storage.put("globex/slice-0", new TextEncoder().encode(FOREIGN_BYTES));

    const registered = await server.call("POST", "/api/agent/register", {
      token: team.apiKey,
      headers: { "X-Organization-Id": foreign.id },
      body: { name: "acme-matrix", hostname: "acme-matrix", platform: "linux", version: "1.0.0", databases: [] },
    });
    expect(registered.status).toBe(201);
    const agentHeaders = { "X-Agent-Id": registered.body.agentId, "X-Agent-Token": registered.body.agentToken };
    // Naming another organization does not move the agent there: it is the key's.
    expect((await server.call("GET", "/api/agent/backup-keys", { headers: agentHeaders })).status).toBe(200);
    const [own] = await server.ctx.db.select().from(agents).where(eq(agents.id, registered.body.agentId));
    expect(own!.organizationId).toBe(team.id);

    const agentOperations = operations.filter((op) => op.method !== "WS" && op.security.some((requirement) => requirement.agentId || requirement.apiKey));
    expect(agentOperations.length).toBeGreaterThan(15);
    const secrets = [
      FOREIGN_BYTES,
      foreign.backupId,
      aimed.uploadingBackupId,
      aimed.sliceId,
      foreign.agentId,
      "globex-agent",
      foreign.name,
      aimed.copyKey,
      "globex/slice-0",
    ];
    const before = await foreignRows();
    const outcomes: string[] = [];
    for (const op of agentOperations) {
      const credentials = op.security.some((requirement) => requirement.agentId)
        ? [{ as: "agent", token: undefined, headers: agentHeaders }]
        : [{ as: "API key", token: team.apiKey, headers: { "X-Organization-Id": foreign.id } }];
      for (const [{ as, token, headers }, request] of credentials.flatMap((credential) => aimedRequests(op).map((request) => [credential, request] as const))) {
        const res = await server.call(op.method, request.path, { token, headers, ...request });
        const leaked = secrets.find((secret) => JSON.stringify(res.body).includes(secret));
        const aimedById = op.path.includes("{");
        outcomes.push(
          `${as} ${op.method} ${op.path} ${res.status >= 500 ? "failed" : leaked ? `leaked ${leaked}` : aimedById && res.status < 300 ? "let through" : "nothing of Globex"}`,
        );
      }
    }
    expect(outcomes.filter((outcome) => !outcome.endsWith("nothing of Globex"))).toEqual([]);
    expect(await foreignRows()).toBe(before);
    // Naming Globex's database declared one of that name in the team (allowed: names are the agent's);
    // gone, so the tests after this one tell the two apart by name.
    await server.ctx.db.delete(databases).where(and(eq(databases.organizationId, team.id), eq(databases.name, foreign.databaseName)));
  });

  test("an agent belongs to the organization: it keeps working when the member who set it up is removed", async () => {
    const setUpBy = await server.registerUser({ name: "Agent Installer" });
    await server.ctx.db.insert(memberships).values({ organizationId: team.id, userId: setUpBy.id, role: "admin" });
    // The installer reads the team's key in Profile and sets the agent up with it.
    const key = (await server.call("GET", "/api/user/profile", inTeam(setUpBy))).body.apiKey as string;
    expect(key).toBe(team.apiKey);
    const registered = await server.call("POST", "/api/agent/register", {
      token: key,
      body: { name: "installed", hostname: "installed", platform: "linux", version: "1.0.0", databases: ["acme-installed"] },
    });
    expect(registered.status).toBe(201);
    const agentHeaders = { "X-Agent-Id": registered.body.agentId, "X-Agent-Token": registered.body.agentToken };

    const removed = await server.call("DELETE", `/api/organizations/current/members/${setUpBy.id}`, inTeam(members.owner));
    expect(removed.status).toBe(200);
    expect((await server.call("GET", "/api/user/profile", inTeam(setUpBy))).status).toBe(403);

    const added = await server.call("POST", "/api/agent/databases", { headers: agentHeaders, body: { name: "acme-after-removal" } });
    expect(added.status).toBe(200);
    expect((await server.call("GET", "/api/agent/backup-keys", { headers: agentHeaders })).status).toBe(200);
    const listed = await server.call("GET", "/api/settings/databases", inTeam(members.viewer));
    expect(JSON.stringify(listed.body)).toContain("acme-after-removal");
  });
});

describe("API tokens act in their organization, never beyond the creator's role there", () => {
  const createToken = async (user: TestUser, scopes: ApiTokenScope[]) => {
    const res = await server.call("POST", "/api/user/api-tokens", {
      ...inTeam(user),
      body: { name: `ci ${scopes.join("+")}`, scopes, expiresInDays: 30, password: user.password },
    });
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

describe("a session from single sign-on reaches its organization only", () => {
  /** A session as SSO opens it (auth/session-scope.ts): scoped to the team whose provider signed the member in. */
  const ssoSession = async (user: TestUser) => {
    const [row] = await server.ctx.db.select().from(users).where(eq(users.id, user.id));
    return server.ctx.tokens.issue(user.id, row!.tokenVersion, undefined, 12, { organizationId: team.id });
  };

  // Members of their own: the tests above delete and demote some of the team's.
  const ssoMembers = {} as Record<MemberRole, TestUser>;
  beforeAll(async () => {
    for (const role of memberRoles) {
      ssoMembers[role] = await server.registerUser({ name: `${role} from SSO` });
      await server.ctx.db.insert(memberships).values({ organizationId: team.id, userId: ssoMembers[role].id, role });
    }
  });

  test("every operation × every role: in the team as a password session would be, anywhere else refused (SSO_SESSION)", async () => {
    const outcomes: string[] = [];
    const expected: string[] = [];
    const members = ssoMembers;
    for (const role of memberRoles) {
      const token = await ssoSession(members[role]);
      // The member's personal organization and a team of their own: a password session reaches both.
      const ownTeam = await createTeam(server, "Initech", [{ user: members[role], role: "owner" }]);
      for (const op of organizationOperations()) {
        const key = `${role} ${op.method} ${op.path}`;
        for (const elsewhere of [members[role].id, ownTeam.id]) {
          const res = await server.call(op.method, aimAt(op.path, team), { token, headers: { "X-Organization-Id": elsewhere }, body: {} });
          outcomes.push(`${key} elsewhere ${res.status} ${res.body?.code}`);
          expected.push(`${key} elsewhere 403 SSO_SESSION`);
        }
        const res = await server.call(op.method, aimAt(op.path, team), { token, body: {} });
        expect(res.status).toBeLessThan(500);
        const outcome = res.body?.code === "SSO_SESSION" ? "refused: account" : refusedForRole(res) ? "refused: role" : "let through";
        outcomes.push(`${key} in the team ${outcome}`);
        const least = leastRoleOf(op.method, op.path);
        expected.push(
          `${key} in the team ${scopedAccountOperation(op.method, op.path) ? "refused: account" : roleAtLeast(role, least) ? "let through" : "refused: role"}`,
        );
      }
      await server.ctx.db.delete(organizations).where(eq(organizations.id, ownTeam.id));
    }
    expect(outcomes).toEqual(expected);
    // The organizations it lists: the team only.
    const listed = await server.call("GET", "/api/organizations/", { token: await ssoSession(ssoMembers.owner) });
    expect(listed.body.map((organization: { id: string }) => organization.id)).toEqual([team.id]);
  });
});
