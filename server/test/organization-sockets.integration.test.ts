// A team's live events and alerts: browser sockets open in an organization get its events and no
// other's, a member's sockets there close when their membership ends (endMemberAccess), and
// alerts by e-mail go to the owners and admins. Real HTTP and WebSockets on loopback.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { endMemberAccess, publishToOrganization } from "../src/lib/browser-events";
import { notifyBackupsSkipped } from "../src/modules/notifications/service";
import { waitUntil } from "../../testkit/wait-until";
import { startTestServer, type TestServer, type TestUser } from "./harness";
import { createTeam } from "./teams";

let server: TestServer;
let base: string;
const people = {} as Record<"owner" | "admin" | "operator" | "viewer", TestUser>;
let team: { id: string };

beforeAll(async () => {
  server = await startTestServer();
  base = server.listen();
  for (const role of ["owner", "admin", "operator", "viewer"] as const) people[role] = await server.registerUser({ name: `${role} of Initech` });
  team = await createTeam(server, "Initech", [
    { user: people.owner, role: "owner" },
    { user: people.admin, role: "admin" },
    { user: people.operator, role: "operator" },
    { user: people.viewer, role: "viewer" },
  ]);
});
afterAll(() => server.close());

/** A browser socket signed in with `token`, in `organizationId` (else the personal organization). */
async function openSocket(token: string, organizationId?: string) {
  const socket = new WebSocket(`${base.replace(/^http/, "ws")}/api/ws`);
  const received: string[] = [];
  let closed: { code: number; reason: string } | null = null;
  socket.onclose = (event) => (closed = { code: event.code, reason: event.reason });
  await new Promise<void>((resolve) => (socket.onopen = () => resolve()));
  socket.onmessage = (event) => received.push(String(event.data));
  socket.send(JSON.stringify({ type: "auth", token, ...(organizationId ? { organizationId } : {}) }));
  await waitUntil(() => received.length > 0 || closed !== null, { message: "the socket's answer to auth" });
  return { socket, received, closed: () => closed };
}

test("a socket gets the events of the organization it opened in, and closes when the member's access there ends", async () => {
  const inTeam = await openSocket(people.viewer.token, team.id);
  const personal = await openSocket(people.viewer.token);
  expect(inTeam.received).toEqual(['{"type":"ready"}']);
  expect(personal.received).toEqual(['{"type":"ready"}']);

  await publishToOrganization(server.ctx, team.id, { type: "backupVerified", backupId: "b1", status: "ok" });
  await waitUntil(() => inTeam.received.length === 2, { message: "the team's event" });
  await publishToOrganization(server.ctx, people.viewer.id, { type: "backupVerified", backupId: "b2", status: "ok" });
  await waitUntil(() => personal.received.length === 2, { message: "the personal organization's event" });
  expect(inTeam.received.at(-1)).toContain('"b1"');
  expect(inTeam.received.join()).not.toContain('"b2"');
  expect(personal.received.join()).not.toContain('"b1"');

  await endMemberAccess(server.ctx, team.id, people.viewer.id);
  await waitUntil(() => inTeam.closed() !== null, { message: "the team socket to close" });
  expect(inTeam.closed()!.code).toBe(4401);
  expect(personal.closed()).toBeNull();
  personal.socket.close();
});

test("a socket naming an organization its user is not a member of is refused", async () => {
  const outsider = await server.registerUser({ name: "Outsider" });
  const refused = await openSocket(outsider.token, team.id);
  await waitUntil(() => refused.closed() !== null, { message: "the refused socket to close" });
  expect(refused.received[0]).toContain("You are not a member of this organization.");
  expect(refused.closed()!.code).toBe(4401);
});

test("an organization's alerts go by e-mail to its owners and admins", async () => {
  const before = server.sentMail.length;
  await notifyBackupsSkipped(server.ctx, { organizationId: team.id, name: "initech-agent", hostname: "initech.internal" }, ["tps-reports"]);
  await server.ctx.pendingWork.settled();
  await waitUntil(() => server.sentMail.length >= before + 2, { message: "the alert mails" });
  const recipients = server.sentMail
    .slice(before)
    .filter((mail) => mail.subject.includes("initech-agent"))
    .map((mail) => mail.to)
    .sort();
  expect(recipients).toEqual([people.admin.email, people.owner.email].sort());
});
