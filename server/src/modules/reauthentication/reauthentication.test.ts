// A stolen session token is not enough to take an account over: the changes that would hand it to
// the thief need the password (and a code when two-factor sign-in is on), in the request or in a
// re-authentication of the last 10 minutes. Codes come from testkit/totp.ts; the clock is moved.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type StoppedClock, startTestServer, stopServerClock, type TestServer, type TestUser, uniqueEmail } from "../../../test/harness";
import { totpCode } from "../../../../testkit/totp";

let server: TestServer;
let clock: StoppedClock;
const now = () => clock.now();
const nextStep = () => clock.move(30_000);

beforeAll(async () => {
  server = await startTestServer();
  clock = stopServerClock(server);
});
afterAll(() => server.close());

type TwoFactorUser = TestUser & { seed: string };

/** A user with two-factor sign-in on, and a session token from a sign-in with both factors. */
async function signedInWithTwoFactor(): Promise<TwoFactorUser> {
  const user = await server.registerUser();
  const setup = await server.call("POST", "/api/auth/two-factor/setup", { token: user.token, body: { password: user.password } });
  expect((await server.call("POST", "/api/auth/two-factor/enable", { token: user.token, body: { code: totpCode(setup.body.secret, now()) } })).status).toBe(
    200,
  );
  nextStep();
  const login = await server.call("POST", "/api/auth/login", {
    body: { email: user.email, password: user.password, code: totpCode(setup.body.secret, now()) },
  });
  expect(login.status).toBe(200);
  nextStep();
  return { ...user, token: login.body.token, seed: setup.body.secret };
}

/** Each security change, as a thief holding only the session token (and a code seen once) tries it. */
const changes = (user: TwoFactorUser) =>
  [
    ["new recovery codes with a code alone", "POST", "/api/auth/two-factor/recovery-codes", { code: totpCode(user.seed, now()) }],
    ["a new API key", "POST", "/api/settings/regenerate-api-key", undefined],
    ["a new password with the current one but no code", "PUT", "/api/user/password", { currentPassword: user.password, newPassword: "stolen-pass-1" }],
    ["a new e-mail with the password but no code", "PUT", "/api/user/update", { email: uniqueEmail("thief"), currentPassword: user.password }],
  ] as const;

describe("a session token alone", () => {
  test("gets 403 REAUTHENTICATION_REQUIRED for every security change, and changes nothing", async () => {
    const owner = await signedInWithTwoFactor();
    for (const [what, method, path, body] of changes(owner)) {
      const res = await server.call(method, path, { token: owner.token, body });
      expect({ what, status: res.status, code: res.body.code }).toEqual({ what, status: 403, code: "REAUTHENTICATION_REQUIRED" });
      expect(res.body.message).toBe("Please confirm it is you: enter your password and a code from your authenticator app.");
    }
    const profile = await server.call("GET", "/api/user/profile", { token: owner.token });
    expect(profile.body).toMatchObject({ email: owner.email, apiKey: owner.apiKey });
    expect((await server.call("GET", "/api/auth/two-factor", { token: owner.token })).body.recoveryCodesLeft).toBe(10);
    const disable = await server.call("POST", "/api/auth/two-factor/disable", {
      token: owner.token,
      body: { password: "a-guess-1", code: totpCode(owner.seed, now()) },
    });
    expect(disable.status).toBe(400);
  });
});

describe("POST /api/auth/reauthenticate", () => {
  test("stamps a token that makes security changes for 10 minutes, then no more", async () => {
    const owner = await signedInWithTwoFactor();
    const noCode = await server.call("POST", "/api/auth/reauthenticate", { token: owner.token, body: { password: owner.password } });
    expect(noCode.status).toBe(403);
    const wrong = await server.call("POST", "/api/auth/reauthenticate", {
      token: owner.token,
      body: { password: "not-it-at-all", code: totpCode(owner.seed, now()) },
    });
    expect(wrong.status).toBe(400);
    const done = await server.call("POST", "/api/auth/reauthenticate", {
      token: owner.token,
      body: { password: owner.password, code: totpCode(owner.seed, now()) },
    });
    expect(done.status).toBe(200);
    expect(Date.parse(done.body.reauthenticatedUntil) - now()).toBeWithin(9 * 60_000, 10 * 60_000 + 1);
    const stamped = done.body.token as string;

    const codes = await server.call("POST", "/api/auth/two-factor/recovery-codes", { token: stamped, body: {} });
    expect(codes.status).toBe(200);
    const key = await server.call("POST", "/api/settings/regenerate-api-key", { token: stamped });
    expect(key.status).toBe(200);
    expect(key.body.apiKey).not.toBe(owner.apiKey);

    clock.move(10 * 60_000 + 1000);
    expect((await server.call("POST", "/api/settings/regenerate-api-key", { token: stamped })).status).toBe(403);
    // The unstamped token it came from never could.
    clock.move(-(10 * 60_000 + 1000));
    expect((await server.call("POST", "/api/settings/regenerate-api-key", { token: owner.token })).status).toBe(403);
    clock.move(10 * 60_000 + 1000);
  });

  test("a user without two-factor sign-in confirms with the password alone", async () => {
    const user = await server.registerUser();
    const done = await server.call("POST", "/api/auth/reauthenticate", { token: user.token, body: { password: user.password } });
    expect(done.status).toBe(200);
    expect((await server.call("POST", "/api/settings/regenerate-api-key", { token: done.body.token })).status).toBe(200);
  });
});

describe("credentials in the request", () => {
  test("the password and a code in the body re-authenticate that request", async () => {
    const owner = await signedInWithTwoFactor();
    const codes = await server.call("POST", "/api/auth/two-factor/recovery-codes", {
      token: owner.token,
      body: { password: owner.password, code: totpCode(owner.seed, now()) },
    });
    expect(codes.status).toBe(200);
    nextStep();
    const key = await server.call("POST", "/api/settings/regenerate-api-key", {
      token: owner.token,
      body: { password: owner.password, code: totpCode(owner.seed, now()) },
    });
    expect(key.status).toBe(200);
    nextStep();
    const password = await server.call("PUT", "/api/user/password", {
      token: owner.token,
      body: { currentPassword: owner.password, newPassword: "fresh-pass-1", code: totpCode(owner.seed, now()) },
    });
    expect(password.status).toBe(200);
  });

  test("a wrong password in the body is refused even with a stamped token", async () => {
    const user = await server.registerUser();
    const done = await server.call("POST", "/api/auth/reauthenticate", { token: user.token, body: { password: user.password } });
    const res = await server.call("PUT", "/api/user/password", {
      token: done.body.token,
      body: { currentPassword: "not-mine-1", newPassword: "fresh-pass-1" },
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe("Current password is incorrect");
  });
});
