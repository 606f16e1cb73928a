// An owner of a team with Protect backups on could turn two-factor sign-in off: the check looked
// at the personal organization only. Every organization the account owns counts.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { totpCode } from "../../testkit/totp";
import { advanceServerClock, startTestServer, type TestServer } from "./harness";
import { createTeam } from "./teams";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
}, 60_000);
afterAll(() => server.close());

test("an owner of a protected team cannot turn two-factor sign-in off", async () => {
  const owner = await server.registerUser();
  const team = await createTeam(server, "Acme Ops", [{ user: owner, role: "owner" }]);
  const setup = await server.call("POST", "/api/auth/two-factor/setup", { token: owner.token, body: { password: owner.password } });
  const code = () => totpCode(setup.body.secret, server.ctx.now().getTime());
  const enabled = await server.call("POST", "/api/auth/two-factor/enable", { token: owner.token, body: { code: code() } });
  expect(enabled.status).toBe(200);
  advanceServerClock(server, 30_000);
  const token = enabled.body.token as string;
  const on = await server.call("POST", "/api/settings/backup-protection", {
    token,
    headers: { "X-Organization-Id": team.id },
    body: { password: owner.password, code: code() },
  });
  expect(on.status).toBe(200);
  advanceServerClock(server, 30_000);

  const off = await server.call("POST", "/api/auth/two-factor/disable", { token, body: { password: owner.password, code: code() } });
  expect([off.status, off.body.code]).toEqual([409, "BACKUPS_PROTECTED"]);
  expect((await server.call("GET", "/api/auth/two-factor", { token })).body.enabled).toBe(true);
});
