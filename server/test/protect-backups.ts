// A user turning two-factor sign-in and "Protect backups" on, as in Settings → Security, for the
// tests that play what the policy refuses (agent commands, the attack test).
import { expect } from "bun:test";
import { totpCode } from "../../testkit/totp";
import { advanceServerClock, type TestServer, type TestUser } from "./harness";

/**
 * Turns two-factor sign-in then Protect backups on for `user` over HTTP; the server's clock moves
 * 30 s on (a TOTP code is taken once per window). Answers the session two-factor sign-in gave.
 */
export async function protectBackupsOf(server: TestServer, user: TestUser): Promise<string> {
  const setup = await server.call("POST", "/api/auth/two-factor/setup", { token: user.token, body: { password: user.password } });
  const code = () => totpCode(setup.body.secret, server.ctx.now().getTime());
  const enabled = await server.call("POST", "/api/auth/two-factor/enable", { token: user.token, body: { code: code() } });
  expect(enabled.status).toBe(200);
  advanceServerClock(server, 30_000);
  const on = await server.call("POST", "/api/settings/backup-protection", { token: enabled.body.token, body: { password: user.password, code: code() } });
  expect(on.status).toBe(200);
  return enabled.body.token;
}
