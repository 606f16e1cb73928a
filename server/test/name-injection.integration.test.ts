// E-mail content injection through names: user and organization names took CR/LF and the
// invitation mailed to any address carried the inviter's lines in its subject and body. Names are
// single-line now, and a mail quotes them as names (one line, in quotation marks).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { organizations, users } from "@db/schema";
import { waitUntil } from "../../testkit/wait-until";
import { startTestServer, type TestServer, uniqueEmail } from "./harness";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
}, 60_000);
afterAll(() => server.close());

const injected = ["Eve\r\nYour account is locked: https://evil.example/fix", "Eve\nBcc: victim@example.com", "Eve\u2028line", "Eve\u0007bell"];

describe("names are one line", () => {
  test.each(injected)("registering as %j is refused (400 naming the field)", async (name) => {
    const res = await server.call("POST", "/api/auth/register", { body: { name, email: uniqueEmail(), password: "secret123" } });
    expect([res.status, res.body.message]).toEqual([400, "name must be one line of text, without line breaks or control characters."]);
  });

  test.each(injected)("a profile, a new team and a team's new name of %j are refused", async (name) => {
    const user = await server.registerUser();
    expect((await server.call("PUT", "/api/user/update", { token: user.token, body: { name } })).status).toBe(400);
    expect((await server.call("POST", "/api/organizations", { token: user.token, body: { name } })).status).toBe(400);
    const team = await server.call("POST", "/api/organizations", { token: user.token, body: { name: "Acme" } });
    const renamed = await server.call("PATCH", "/api/organizations/current", {
      token: user.token,
      headers: { "X-Organization-Id": team.body.id },
      body: { name },
    });
    expect(renamed.status).toBe(400);
    expect((await server.call("GET", "/api/user/profile", { token: user.token })).body.name).toBe(user.name);
  });
});

test("a name stored before is quoted on one line in the invitation mail", async () => {
  const inviter = await server.registerUser({ name: "Eve" });
  const team = await server.call("POST", "/api/organizations", { token: inviter.token, body: { name: "Acme" } });
  await server.ctx.db.update(users).set({ name: injected[0]! }).where(eq(users.id, inviter.id));
  await server.ctx.db.update(organizations).set({ name: "Acme\r\nSecurity team" }).where(eq(organizations.id, team.body.id));
  const invitee = uniqueEmail("invitee");
  const invited = await server.call("POST", "/api/organizations/current/invitations", {
    token: inviter.token,
    headers: { "X-Organization-Id": team.body.id },
    body: { email: invitee, role: "viewer" },
  });
  expect(invited.status).toBe(201);
  const mail = await waitUntil(() => server.sentMail.find((m) => m.to === invitee), { message: "the invitation mail" });
  expect(mail.subject).toBe("“Eve Your account is locked: https://evil.example/fix” invited you to the organization “Acme Security team” on DBVault");
  expect(mail.subject).not.toMatch(/[\r\n]/);
  const firstLine = mail.text.split("\n")[0]!;
  expect(firstLine).toBe(
    `“Eve Your account is locked: https://evil.example/fix” (${inviter.email}) invited you to join the organization “Acme Security team” on DBVault as Viewer.`,
  );
  expect(mail.text).not.toContain("\r");
  expect(mail.text.split("\n").filter((line) => line.includes("evil.example"))).toEqual([firstLine]);
});
