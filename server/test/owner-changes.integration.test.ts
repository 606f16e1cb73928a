// Handing an organization over: an owner's API token with only the `admin` scope could invite
// owners, demote and remove owners and promote a viewer to owner (only `transfer` was refused).
// Every change that makes, demotes or removes an owner now needs an owner's signed-in session
// that re-authenticated within 10 minutes: the password (and code) in the request, or a stamp.
import { beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { memberships } from "@db/schema";
import { createApiToken } from "../src/modules/api-tokens/service";
import { type TestUser, uniqueEmail, useListeningTestServer } from "./harness";
import { createTeam } from "./teams";

const world = useListeningTestServer();
let owner: TestUser;
let coOwner: TestUser;
let viewer: TestUser;
let team: { id: string };
let adminToken: string;

beforeAll(async () => {
  const server = world.server;
  owner = await server.registerUser({ name: "Olivia Owner" });
  coOwner = await server.registerUser({ name: "Cody Coowner" });
  viewer = await server.registerUser({ name: "Vera Viewer" });
  team = await createTeam(server, "Acme Ops", [
    { user: owner, role: "owner" },
    { user: coOwner, role: "owner" },
    { user: viewer, role: "viewer" },
  ]);
  const actor = { id: owner.id, name: owner.name, email: owner.email, role: "owner" as const };
  adminToken = (await createApiToken(server.ctx, actor, team.id, { name: "ci", scopes: ["admin"], expiresInDays: 30 })).token;
});

const roleOf = async (user: TestUser) =>
  (
    await world.server.ctx.db
      .select({ role: memberships.role })
      .from(memberships)
      .where(and(eq(memberships.organizationId, team.id), eq(memberships.userId, user.id)))
  )[0]?.role;
const call = (method: string, path: string, token: string, body?: Record<string, unknown>) =>
  world.server.call(method, `/api/organizations/current${path}`, { token, headers: { "X-Organization-Id": team.id }, body });

/** Each change that makes, demotes or removes an owner. */
const ownerChanges: [string, (credentials: Record<string, unknown>) => [string, string, Record<string, unknown> | undefined]][] = [
  ["invite an owner", (c) => ["POST", "/invitations", { email: uniqueEmail("new-owner"), role: "owner", ...c }]],
  ["promote a viewer to owner", (c) => ["PATCH", `/members/${viewer.id}`, { role: "owner", ...c }]],
  ["demote an owner", (c) => ["PATCH", `/members/${coOwner.id}`, { role: "viewer", ...c }]],
  ["remove an owner", () => ["DELETE", `/members/${coOwner.id}`, undefined]],
  ["transfer ownership", (c) => ["POST", "/transfer", { userId: viewer.id, ...c }]],
];

describe("a change that makes, demotes or removes an owner", () => {
  test.each(ownerChanges)("%s: refused to an owner's admin-scoped API token, even with the password", async (_name, change) => {
    for (const credentials of [{}, { password: owner.password }]) {
      const [method, path, body] = change(credentials);
      const res = await call(method, path, adminToken, body);
      expect(res.status).toBe(403);
    }
    expect([await roleOf(coOwner), await roleOf(viewer)]).toEqual(["owner", "viewer"]);
  });

  test.each(ownerChanges)("%s: refused to an owner's session that did not re-authenticate", async (_name, change) => {
    const [method, path, body] = change({});
    const res = await call(method, path, owner.token, body);
    expect([res.status, res.body.code]).toEqual([403, "REAUTHENTICATION_REQUIRED"]);
    expect([await roleOf(coOwner), await roleOf(viewer)]).toEqual(["owner", "viewer"]);
  });

  test("an owner's session with the password does it", async () => {
    const res = await call("PATCH", `/members/${viewer.id}`, owner.token, { role: "owner", password: owner.password });
    expect(res.status).toBe(200);
    expect(await roleOf(viewer)).toBe("owner");
  });

  test("the token still does what the admin role may: a member's role below owner", async () => {
    const member = await world.server.registerUser();
    await world.server.ctx.db.insert(memberships).values({ organizationId: team.id, userId: member.id, role: "viewer" });
    expect((await call("PATCH", `/members/${member.id}`, adminToken, { role: "operator" })).status).toBe(200);
  });
});
