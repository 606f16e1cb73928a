// Teams: creating one, inviting by e-mail (7 days, single use, the invited address only),
// roles and what each may do with members, the last owner, and a removal or a lowered role
// taking effect on the next request and on open browser sockets. Real HTTP for the sockets.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { invitations, type MemberRole } from "@db/schema";
import { waitUntil } from "../../testkit/wait-until";
import { NOT_A_MEMBER_MESSAGE } from "../src/modules/organizations/current-organization";
import { changeMemberRole, LAST_OWNER_MESSAGE } from "../src/modules/teams/members";
import { startTestServer, stopServerClock, type TestServer, type TestUser, uniqueEmail } from "./harness";

let server: TestServer;
let base: string;
beforeAll(async () => {
  server = await startTestServer();
  base = server.listen();
}, 60_000);
afterAll(() => server.close());

const DAY_MS = 24 * 3_600_000;
const inOrg = (organizationId: string) => ({ "X-Organization-Id": organizationId });
// Changes that make, demote or remove an owner need the password (owner-changes.ts): the members'
// routes are called with it, as the web's confirmation dialog sends it.
const confirming = /\/api\/organizations\/current\/(members\/|transfer$|invitations$)/;
const call = (user: TestUser, method: string, path: string, organizationId?: string, body?: unknown) =>
  server.call(method, path, {
    token: user.token,
    headers: organizationId ? inOrg(organizationId) : {},
    body: body && typeof body === "object" && confirming.test(path) ? { password: user.password, ...body } : body,
  });

async function createTeam(owner: TestUser, name = "Acme Ops") {
  const res = await call(owner, "POST", "/api/organizations", undefined, { name });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

/** Invites `email` and answers the token of the link mailed to it. */
async function invite(actor: TestUser, organizationId: string, email: string, role: MemberRole) {
  const res = await call(actor, "POST", "/api/organizations/current/invitations", organizationId, { email, role });
  expect(`${res.status} ${res.body.message ?? ""}`).toBe("201 ");
  const mail = await waitUntil(() => server.sentMail.findLast((m) => m.to === email.toLowerCase()), { message: `the invitation mail to ${email}` });
  const token = mail.text.match(/\/invite\/([A-Za-z0-9_-]{43})\n/)?.[1];
  if (!token) throw new Error(`no invitation link in: ${mail.text}`);
  return { id: res.body.id as string, token, mail };
}

/** A new account that joined `organizationId` with `role` through an invitation. */
async function joinAs(owner: TestUser, organizationId: string, role: MemberRole, name = `A ${role}`) {
  const member = await server.registerUser({ name });
  const { token } = await invite(owner, organizationId, member.email, role);
  const accepted = await call(member, "POST", `/api/invitations/${token}/accept`);
  expect(accepted.status).toBe(200);
  return member;
}

async function openBrowserSocket(token: string, organizationId?: string) {
  const socket = new WebSocket(`${base.replace(/^http/, "ws")}/api/ws`);
  let closed: { code: number; reason: string } | null = null;
  socket.onclose = (event) => (closed = { code: event.code, reason: event.reason });
  await new Promise<void>((resolve) => (socket.onopen = () => resolve()));
  const answer = new Promise<string>((resolve) => (socket.onmessage = (event) => resolve(String(event.data))));
  socket.send(JSON.stringify({ type: "auth", token, organizationId }));
  return { answer: await answer, closed: () => closed };
}

/** The organization's audit entries of one action, each with the role its actor had then. */
const auditOf = async (user: TestUser, action: string, organizationId: string) =>
  (
    (await call(user, "GET", "/api/user/audit-logs", organizationId)).body.logs as {
      action: string;
      details: Record<string, unknown>;
      actor: { id: string; role: string } | null;
    }[]
  )
    .filter((l) => l.action === action)
    .map((l) => ({ ...l, details: { ...l.details, actorRole: l.actor?.role } }));

describe("organizations", () => {
  test("an account alone has only its personal organization, as owner; current is that one", async () => {
    const solo = await server.registerUser({ name: "Solo Sam" });
    expect((await call(solo, "GET", "/api/organizations")).body).toEqual([{ id: solo.id, name: "Solo Sam", personal: true, role: "owner" }]);
    expect((await call(solo, "GET", "/api/organizations/current")).body).toEqual({ id: solo.id, name: "Solo Sam", personal: true, role: "owner" });
  });

  test("a team is created with its creator as owner, listed after the personal one, and current when named", async () => {
    const owner = await server.registerUser({ name: "Olivia" });
    const teamId = await createTeam(owner, "  Acme Ops  ");
    const mine = (await call(owner, "GET", "/api/organizations")).body;
    expect(mine.map((o: { name: string; role: string; personal: boolean }) => [o.name, o.role, o.personal])).toEqual([
      ["Olivia", "owner", true],
      ["Acme Ops", "owner", false],
    ]);
    expect((await call(owner, "GET", "/api/organizations/current", teamId)).body).toEqual({ id: teamId, name: "Acme Ops", personal: false, role: "owner" });
    expect((await auditOf(owner, "ORGANIZATION_CREATED", teamId))[0]?.details).toMatchObject({
      organizationId: teamId,
      organization: "Acme Ops",
      actorRole: "owner",
    });
  });

  test("refuses bad input with a clear message", async () => {
    const owner = await server.registerUser();
    const teamId = await createTeam(owner);
    const cases: [string, string, unknown, number, RegExp][] = [
      ["POST", "/api/organizations", { name: "   " }, 400, /^name must be 1 to 100 characters/],
      ["POST", "/api/organizations", { name: "x".repeat(101) }, 400, /^name must be 1 to 100/],
      ["PATCH", "/api/organizations/current", {}, 400, /name/],
      ["POST", "/api/organizations/current/invitations", { email: "not-an-email", role: "viewer" }, 400, /^Please enter a valid email address/],
      [
        "POST",
        "/api/organizations/current/invitations",
        { email: "a@example.com", role: "superuser" },
        400,
        /^role must be one of owner, admin, operator, viewer/,
      ],
      ["PATCH", `/api/organizations/current/members/${owner.id}`, { role: "boss" }, 400, /^role must be one of/],
      ["POST", "/api/organizations/current/transfer", {}, 400, /userId/],
    ];
    for (const [method, path, body, status, message] of cases) {
      const res = await call(owner, method, path, teamId, body);
      expect(`${method} ${path} ${res.status}`).toBe(`${method} ${path} ${status}`);
      expect(res.body.message).toMatch(message);
    }
  });

  test("renaming needs an admin; deleting a team needs its owner, and its members lose it at once", async () => {
    const owner = await server.registerUser();
    const teamId = await createTeam(owner, "Doomed");
    const admin = await joinAs(owner, teamId, "admin");
    const viewer = await joinAs(owner, teamId, "viewer");
    expect((await call(viewer, "PATCH", "/api/organizations/current", teamId, { name: "Mine" })).status).toBe(403);
    const renamed = await call(admin, "PATCH", "/api/organizations/current", teamId, { name: "Doomed Ops" });
    expect(renamed).toMatchObject({ status: 200, body: { name: "Doomed Ops", role: "admin" } });
    const refused = await call(admin, "DELETE", "/api/organizations/current", teamId);
    expect([refused.status, refused.body.message]).toEqual([403, "Your role (Admin) cannot do this: only an owner of Doomed Ops can."]);
    expect((await call(owner, "DELETE", "/api/organizations/current", teamId)).body).toEqual({ message: "Doomed Ops was deleted." });
    expect((await call(viewer, "GET", "/api/organizations/current", teamId)).body.message).toBe(NOT_A_MEMBER_MESSAGE);
    expect((await call(viewer, "GET", "/api/organizations")).body.map((o: { id: string }) => o.id)).toEqual([viewer.id]);
  });

  test("a personal organization cannot be deleted, left, shared or handed over", async () => {
    const solo = await server.registerUser();
    const deleted = await call(solo, "DELETE", "/api/organizations/current");
    expect([deleted.status, deleted.body.message]).toEqual([
      409,
      "Your personal organization goes only with your account. To delete a team, switch to it first.",
    ]);
    expect((await call(solo, "POST", "/api/organizations/current/leave")).status).toBe(409);
    const invited = await call(solo, "POST", "/api/organizations/current/invitations", undefined, { email: uniqueEmail(), role: "viewer" });
    expect([invited.status, invited.body.message]).toEqual([
      409,
      "Your personal organization is yours alone. Create a team (organization menu → Create a team) to invite people.",
    ]);
    expect((await call(solo, "POST", "/api/organizations/current/transfer", undefined, { userId: "0123456789abcdef01234567" })).status).toBe(409);
  });
});

describe("invitations", () => {
  test("invite → mail → preview → accept: the invitee joins with the role, once; the link is kept only hashed", async () => {
    const owner = await server.registerUser({ name: "Olivia Owner" });
    const teamId = await createTeam(owner, "Acme Ops");
    const invitee = await server.registerUser({ name: "Ivan" });
    const { id, token, mail } = await invite(owner, teamId, invitee.email.toUpperCase(), "operator");
    expect(mail.subject).toBe("“Olivia Owner” invited you to the organization “Acme Ops” on DBVault");
    expect(mail.text).toContain(`“Olivia Owner” (${owner.email}) invited you to join the organization “Acme Ops” on DBVault as Operator.`);
    const [row] = await server.ctx.db.select().from(invitations).where(eq(invitations.id, id));
    expect(row!.tokenHash).not.toContain(token);
    expect(row!.email).toBe(invitee.email);

    const pending = (await call(owner, "GET", "/api/organizations/current/invitations", teamId)).body;
    expect(pending).toEqual([expect.objectContaining({ id, email: invitee.email, role: "operator", invitedBy: "Olivia Owner" })]);
    const preview = await server.call("GET", `/api/invitations/${token}`);
    expect(preview.body).toMatchObject({ organizationName: "Acme Ops", role: "operator", invitedBy: "Olivia Owner", email: invitee.email, status: "pending" });

    const accepted = await call(invitee, "POST", `/api/invitations/${token}/accept`);
    expect(accepted.body).toEqual({
      message: "You joined Acme Ops as Operator.",
      organization: { id: teamId, name: "Acme Ops", personal: false, role: "operator" },
    });
    expect((await call(invitee, "GET", "/api/organizations/current", teamId)).body.role).toBe("operator");
    expect((await server.call("GET", `/api/invitations/${token}`)).body.status).toBe("accepted");
    expect((await call(owner, "GET", "/api/organizations/current/invitations", teamId)).body).toEqual([]);

    const again = await call(invitee, "POST", `/api/invitations/${token}/accept`);
    expect([again.status, again.body.message]).toEqual([409, "This invitation was already used. Ask the organization's admin for a new one if you need it."]);
    expect((await auditOf(owner, "MEMBER_INVITED", teamId))[0]?.details).toMatchObject({ email: invitee.email, role: "operator", actorRole: "owner" });
    expect((await auditOf(invitee, "INVITATION_ACCEPTED", teamId))[0]?.details).toMatchObject({
      organizationId: teamId,
      role: "operator",
      invitedBy: owner.email,
    });
  });

  test("only the invited e-mail's account can accept; an unknown link says so", async () => {
    const owner = await server.registerUser();
    const teamId = await createTeam(owner);
    const email = uniqueEmail("invited");
    const { token } = await invite(owner, teamId, email, "viewer");
    const mallory = await server.registerUser();
    const wrong = await call(mallory, "POST", `/api/invitations/${token}/accept`);
    expect([wrong.status, wrong.body.message]).toEqual([
      403,
      `This invitation is for ${email}, and you are signed in as ${mallory.email}. Sign out, then sign in or sign up with ${email}.`,
    ]);
    expect((await call(mallory, "GET", "/api/organizations/current", teamId)).status).toBe(403);
    // Still open for the invitee, who signs up only now.
    const invitee = await server.registerUser({ email });
    expect((await call(invitee, "POST", `/api/invitations/${token}/accept`)).status).toBe(200);
    const unknown = await server.call("GET", `/api/invitations/${"b".repeat(43)}`);
    expect([unknown.status, unknown.body.message]).toEqual([404, "This invitation link is not valid. Ask the organization's admin for a new invitation."]);
    expect((await call(invitee, "POST", `/api/invitations/${"b".repeat(43)}/accept`)).status).toBe(404);
  });

  test("a revoked invitation, or one replaced by a newer one to the same address, no longer works", async () => {
    const owner = await server.registerUser();
    const teamId = await createTeam(owner);
    const invitee = await server.registerUser();
    const first = await invite(owner, teamId, invitee.email, "viewer");
    const second = await invite(owner, teamId, invitee.email, "operator");
    expect((await server.call("GET", `/api/invitations/${first.token}`)).body.status).toBe("revoked");
    const revoked = await call(owner, "DELETE", `/api/organizations/current/invitations/${second.id}`, teamId);
    expect(revoked.body).toEqual({ message: `The invitation to ${invitee.email} was revoked: its link no longer works.` });
    const refused = await call(invitee, "POST", `/api/invitations/${second.token}/accept`);
    expect([refused.status, refused.body.message]).toEqual([409, "This invitation was revoked. Ask the organization's admin for a new one if you need it."]);
    expect((await call(owner, "DELETE", `/api/organizations/current/invitations/${second.id}`, teamId)).status).toBe(404);
    expect((await auditOf(owner, "INVITATION_REVOKED", teamId))[0]?.details).toMatchObject({ email: invitee.email, role: "operator" });
  });

  test("inviting needs an admin, inviting an owner needs an owner, and a member cannot be invited again", async () => {
    const owner = await server.registerUser();
    const teamId = await createTeam(owner);
    const operator = await joinAs(owner, teamId, "operator");
    const admin = await joinAs(owner, teamId, "admin");
    const asOperator = await call(operator, "POST", "/api/organizations/current/invitations", teamId, { email: uniqueEmail(), role: "viewer" });
    expect([asOperator.status, asOperator.body.message]).toEqual([
      403,
      "Your role (Operator) cannot do this. Ask an owner or admin of Acme Ops for the Admin role.",
    ]);
    expect((await call(operator, "GET", "/api/organizations/current/invitations", teamId)).status).toBe(403);
    expect((await call(admin, "POST", "/api/organizations/current/invitations", teamId, { email: uniqueEmail(), role: "owner" })).status).toBe(403);
    await invite(admin, teamId, uniqueEmail(), "admin");
    const member = await call(admin, "POST", "/api/organizations/current/invitations", teamId, { email: operator.email, role: "viewer" });
    expect([member.status, member.body.message]).toEqual([409, `${operator.email} is already a member of Acme Ops.`]);
  });

  test("another organization's invitations cannot be listed or revoked", async () => {
    const owner = await server.registerUser();
    const teamId = await createTeam(owner);
    const { id } = await invite(owner, teamId, uniqueEmail(), "viewer");
    const mallory = await server.registerUser();
    const malloryTeam = await createTeam(mallory, "Mallory Inc");
    expect((await call(mallory, "DELETE", `/api/organizations/current/invitations/${id}`, malloryTeam)).status).toBe(404);
    expect((await call(mallory, "GET", "/api/organizations/current/invitations", teamId)).body.message).toBe(NOT_A_MEMBER_MESSAGE);
    expect((await call(owner, "GET", "/api/organizations/current/invitations", teamId)).body.map((i: { id: string }) => i.id)).toEqual([id]);
  });
});

describe("members and roles", () => {
  test("any member lists the members; admins change roles below owner; only owners touch or make owners", async () => {
    const owner = await server.registerUser({ name: "Olivia" });
    const teamId = await createTeam(owner);
    const admin = await joinAs(owner, teamId, "admin", "Adam");
    const viewer = await joinAs(owner, teamId, "viewer", "Vera");
    const members = (await call(viewer, "GET", "/api/organizations/current/members", teamId)).body;
    expect(members.map((m: { name: string; role: string; you: boolean }) => [m.name, m.role, m.you])).toEqual([
      ["Olivia", "owner", false],
      ["Adam", "admin", false],
      ["Vera", "viewer", true],
    ]);
    const path = (user: TestUser) => `/api/organizations/current/members/${user.id}`;
    expect((await call(viewer, "PATCH", path(admin), teamId, { role: "viewer" })).status).toBe(403);
    expect((await call(admin, "PATCH", path(viewer), teamId, { role: "operator" })).body).toEqual({ message: "Vera is now Operator." });
    const touchOwner = await call(admin, "PATCH", path(owner), teamId, { role: "viewer" });
    expect([touchOwner.status, touchOwner.body.message]).toEqual([403, "Only an owner can change an owner's role."]);
    const makeOwner = await call(admin, "PATCH", path(viewer), teamId, { role: "owner" });
    expect([makeOwner.status, makeOwner.body.message]).toEqual([403, "Only an owner can make another member an owner."]);
    expect((await call(admin, "DELETE", path(owner), teamId)).body.message).toBe("Only an owner can remove an owner.");
    expect((await call(owner, "PATCH", path(admin), teamId, { role: "owner" })).status).toBe(200);
    expect((await call(admin, "GET", "/api/organizations/current", teamId)).body.role).toBe("owner");
    expect((await auditOf(admin, "MEMBER_ROLE_CHANGED", teamId)).find((entry) => entry.actor?.id === admin.id)?.details).toMatchObject({
      member: viewer.email,
      from: "viewer",
      to: "operator",
      actorRole: "admin",
    });
    expect((await call(owner, "PATCH", `/api/organizations/current/members/0123456789abcdef01234567`, teamId, { role: "viewer" })).status).toBe(404);
  });

  test("the last owner cannot leave, be demoted or step down; transfer hands ownership over", async () => {
    const owner = await server.registerUser({ name: "Olivia" });
    const teamId = await createTeam(owner, "Acme Ops");
    const admin = await joinAs(owner, teamId, "admin", "Adam");
    const leave = await call(owner, "POST", "/api/organizations/current/leave", teamId);
    expect([leave.status, leave.body.message]).toEqual([409, LAST_OWNER_MESSAGE]);
    expect((await call(owner, "PATCH", `/api/organizations/current/members/${owner.id}`, teamId, { role: "admin" })).status).toBe(409);
    expect((await call(admin, "POST", "/api/organizations/current/transfer", teamId, { userId: admin.id })).status).toBe(403);

    const transferred = await call(owner, "POST", "/api/organizations/current/transfer", teamId, { userId: admin.id });
    expect(transferred.body).toEqual({ message: "Adam now owns Acme Ops; you are an admin." });
    expect((await call(owner, "GET", "/api/organizations/current", teamId)).body.role).toBe("admin");
    expect((await call(admin, "GET", "/api/organizations/current", teamId)).body.role).toBe("owner");
    expect((await call(admin, "POST", "/api/organizations/current/leave", teamId)).status).toBe(409);
    expect((await call(owner, "POST", "/api/organizations/current/leave", teamId)).body).toEqual({ message: "You left Acme Ops." });
    expect((await call(owner, "GET", "/api/organizations/current", teamId)).status).toBe(403);
    // The team's log, read by its owner now: the one who left no longer can.
    expect((await auditOf(admin, "OWNERSHIP_TRANSFERRED", teamId))[0]?.details).toMatchObject({ to: admin.email, actorRole: "owner" });
    expect((await auditOf(admin, "MEMBER_LEFT", teamId))[0]?.details).toMatchObject({ organizationId: teamId, actorRole: "admin" });
  });

  test("two owners demoting each other at the same instant leave one owner", async () => {
    const first = await server.registerUser();
    const teamId = await createTeam(first);
    const second = await joinAs(first, teamId, "owner");
    // Both requests passed the guard as owners; their transactions then run at once (on
    // PostgreSQL truly in parallel): the organization's lock makes the second see the first.
    const asOwner = { id: teamId, name: "Acme Ops", personal: false, role: "owner" as const, planId: null, storageUsed: 0 };
    const outcomes = await Promise.allSettled([
      changeMemberRole(server.ctx, first.id, asOwner, second.id, "admin", async () => {}),
      changeMemberRole(server.ctx, second.id, asOwner, first.id, "admin", async () => {}),
    ]);
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(["fulfilled", "rejected"]);
    const roles = (await call(first, "GET", "/api/organizations/current/members", teamId)).body.map((m: { role: string }) => m.role);
    expect(roles.sort()).toEqual(["admin", "owner"]);
  });

  test("a removed member loses the organization on the next request, and their open socket closes", async () => {
    const owner = await server.registerUser();
    const teamId = await createTeam(owner, "Acme Ops");
    const member = await joinAs(owner, teamId, "operator", "Otto");
    expect((await call(member, "GET", "/api/organizations/current/members", teamId)).status).toBe(200);
    const socket = await openBrowserSocket(member.token, teamId);
    expect(socket.answer).toContain('"ready"');
    const removed = await call(owner, "DELETE", `/api/organizations/current/members/${member.id}`, teamId);
    expect(removed.body).toEqual({ message: "Otto was removed from Acme Ops. They lose access at once." });
    const next = await call(member, "GET", "/api/organizations/current/members", teamId);
    expect([next.status, next.body.message]).toEqual([403, NOT_A_MEMBER_MESSAGE]);
    await waitUntil(() => socket.closed()?.code === 4401, { message: "the removed member's socket to close" });
    // Their own organization is untouched, and a new socket cannot name the team.
    expect((await call(member, "GET", "/api/organizations/current")).body.id).toBe(member.id);
    const refused = await openBrowserSocket(member.token, teamId);
    expect(JSON.parse(refused.answer)).toEqual({ type: "error", message: NOT_A_MEMBER_MESSAGE });
    expect((await auditOf(owner, "MEMBER_REMOVED", teamId))[0]?.details).toMatchObject({ member: member.email, role: "operator", actorRole: "owner" });
  });

  test("a lowered role takes effect on the next request and closes the member's socket", async () => {
    const owner = await server.registerUser();
    const teamId = await createTeam(owner);
    const admin = await joinAs(owner, teamId, "admin");
    await invite(admin, teamId, uniqueEmail(), "viewer");
    const socket = await openBrowserSocket(admin.token, teamId);
    expect((await call(owner, "PATCH", `/api/organizations/current/members/${admin.id}`, teamId, { role: "viewer" })).status).toBe(200);
    const next = await call(admin, "POST", "/api/organizations/current/invitations", teamId, { email: uniqueEmail(), role: "viewer" });
    expect(next.status).toBe(403);
    await waitUntil(() => socket.closed()?.code === 4401, { message: "the demoted member's socket to close" });
  });
});

// Last: the clock stops and moves 7 days, past the sessions made before it.
describe("an invitation's 7 days", () => {
  test("accepted just before 7 days, refused just after", async () => {
    const owner = await server.registerUser();
    const teamId = await createTeam(owner);
    const early = uniqueEmail("early");
    const late = uniqueEmail("late");
    const clock = stopServerClock(server);
    const first = await invite(owner, teamId, early, "viewer");
    const second = await invite(owner, teamId, late, "viewer");
    clock.move(7 * DAY_MS - 60_000);
    const earlyUser = await server.registerUser({ email: early });
    expect((await call(earlyUser, "POST", `/api/invitations/${first.token}/accept`)).status).toBe(200);
    clock.move(2 * 60_000);
    expect((await server.call("GET", `/api/invitations/${second.token}`)).body.status).toBe("expired");
    const lateUser = await server.registerUser({ email: late });
    const refused = await call(lateUser, "POST", `/api/invitations/${second.token}/accept`);
    expect([refused.status, refused.body.message]).toEqual([
      409,
      "This invitation expired: links are valid for 7 days. Ask the organization's admin for a new one.",
    ]);
  });
});
