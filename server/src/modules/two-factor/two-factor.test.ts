// Two-factor sign-in end to end over the API, with codes computed by testkit/totp.ts (RFC 6238
// with node:crypto, not the server's library). The server's clock is moved in 30-second steps
// instead of waiting, since each step's code is accepted once.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { agents, auditLogs, kbArticles, recoveryCodes, users } from "@db/schema";
import { type StoppedClock, startTestServer, stopServerClock, type TestServer, type TestUser } from "../../../test/harness";
import { base32Decode, totpCode, totpCodeForKey } from "../../../../testkit/totp";
import { matchTotpCode } from "../auth/totp";
import { CODE_CHECKS_FREE_PER_ACCOUNT, SIGN_IN_FREE_ATTEMPTS_PER_ACCOUNT_AND_ADDRESS } from "../auth/throttle";
import { waitUntil } from "../../../../testkit/wait-until";

let server: TestServer;
let clock: StoppedClock;
const now = () => clock.now();
/** Moves the server's clock to the next 30-second step, so a fresh code is due. */
const nextStep = () => clock.move(30_000);

beforeAll(async () => {
  server = await startTestServer();
  clock = stopServerClock(server);
});
afterAll(() => server.close());
// Past the sign-in throttle's window: each test starts with clean counters.
beforeEach(() => clock.move(60 * 60 * 1000));

const login = (user: { email: string; password: string }, code?: string) =>
  server.call("POST", "/api/auth/login", { body: { email: user.email, password: user.password, ...(code === undefined ? {} : { code }) } });

/** Registers a user and turns two-factor sign-in on; answers the seed, recovery codes and fresh token. */
async function userWithTwoFactor(): Promise<TestUser & { seed: string; recoveryCodes: string[] }> {
  const user = await server.registerUser();
  const setup = await server.call("POST", "/api/auth/two-factor/setup", { token: user.token, body: { password: user.password } });
  expect(setup.status).toBe(200);
  const enabled = await server.call("POST", "/api/auth/two-factor/enable", { token: user.token, body: { code: totpCode(setup.body.secret, now()) } });
  expect(enabled.status).toBe(200);
  nextStep();
  return { ...user, token: enabled.body.token, seed: setup.body.secret, recoveryCodes: enabled.body.recoveryCodes };
}

describe("TOTP codes", () => {
  // RFC 6238 Appendix B (SHA-1 key "12345678901234567890"), the last 6 of its 8 digits.
  const rfcVectors: [number, string][] = [
    [59, "94287082"],
    [1111111109, "07081804"],
    [1111111111, "14050471"],
    [1234567890, "89005924"],
    [2000000000, "69279037"],
  ];
  const rfcKey = Buffer.from("12345678901234567890");

  test("the test's own computation matches the RFC's vectors", () => {
    for (const [seconds, code] of rfcVectors) expect(totpCodeForKey(rfcKey, seconds * 1000, { digits: 8 })).toBe(code);
  });

  test("the server accepts the RFC's codes at their time, a step either side, and nothing further", () => {
    const seed = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"; // base32 of the RFC key
    expect(base32Decode(seed).equals(rfcKey)).toBe(true);
    for (const [seconds, code] of rfcVectors) {
      const at = new Date(seconds * 1000);
      expect(matchTotpCode(seed, code.slice(2), at)).toBe(Math.floor(seconds / 30));
      expect(matchTotpCode(seed, code.slice(2), new Date(at.getTime() + 30_000))).toBe(Math.floor(seconds / 30));
      expect(matchTotpCode(seed, code.slice(2), new Date(at.getTime() + 90_000))).toBeNull();
    }
    expect(matchTotpCode(seed, "12345", new Date(59_000))).toBeNull();
    expect(matchTotpCode(seed, "abcdef", new Date(59_000))).toBeNull();
  });
});

describe("turning two-factor sign-in on", () => {
  test("setup needs the password, shows a QR code of an otpauth URL, and takes effect only with a right code", async () => {
    const user = await server.registerUser();
    expect((await server.call("GET", "/api/auth/two-factor", { token: user.token })).body).toMatchObject({ enabled: false, recoveryCodesLeft: 0 });

    const wrongPassword = await server.call("POST", "/api/auth/two-factor/setup", { token: user.token, body: { password: "not-mine" } });
    expect(wrongPassword.status).toBe(400);
    expect(wrongPassword.body.message).toBe("Current password is incorrect");

    const setup = await server.call("POST", "/api/auth/two-factor/setup", { token: user.token, body: { password: user.password } });
    expect(setup.status).toBe(200);
    expect(setup.body.secret).toMatch(/^[A-Z2-7]{32}$/);
    const url = new URL(setup.body.otpauthUrl);
    expect(url.protocol).toBe("otpauth:");
    expect(url.searchParams.get("secret")).toBe(setup.body.secret);
    expect(url.searchParams.get("issuer")).toBe("DBVault");
    expect(decodeURIComponent(url.pathname)).toContain(user.email);
    expect(setup.body.qrCode).toStartWith("data:image/svg+xml;base64,");
    expect(Buffer.from(setup.body.qrCode.split(",")[1], "base64").toString()).toContain("<svg");

    // Not on until confirmed: sign-in still takes the password alone.
    expect((await login(user)).status).toBe(200);
    const wrong = await server.call("POST", "/api/auth/two-factor/enable", {
      token: user.token,
      body: { code: "000000" === totpCode(setup.body.secret, now()) ? "111111" : "000000" },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toBe("Invalid authentication code");

    const enabled = await server.call("POST", "/api/auth/two-factor/enable", { token: user.token, body: { code: totpCode(setup.body.secret, now()) } });
    expect(enabled.status).toBe(200);
    expect(enabled.body.recoveryCodes).toHaveLength(10);
    expect(new Set(enabled.body.recoveryCodes).size).toBe(10);
    // Other sessions signed in with one factor: they end; this one carries on with the new token.
    expect((await server.call("GET", "/api/user/profile", { token: user.token })).status).toBe(401);
    const profile = await server.call("GET", "/api/user/profile", { token: enabled.body.token });
    expect(profile.body.twoFactorEnabled).toBe(true);
    expect((await server.call("GET", "/api/auth/two-factor", { token: enabled.body.token })).body).toMatchObject({ enabled: true, recoveryCodesLeft: 10 });

    // Neither the seed nor a recovery code is stored as it is.
    const [row] = await server.ctx.db.select().from(users).where(eq(users.id, user.id));
    expect(row!.totpSecretCiphertext).not.toContain(setup.body.secret);
    expect(server.ctx.twoFactorBox.open(row!.totpSecretCiphertext!)).toBe(setup.body.secret);
    const stored = await server.ctx.db.select().from(recoveryCodes).where(eq(recoveryCodes.userId, user.id));
    const plain = enabled.body.recoveryCodes.map((c: string) => c.replace("-", ""));
    for (const code of stored) expect(plain).not.toContain(code.codeHash);
    const actions = (await server.ctx.db.select().from(auditLogs).where(eq(auditLogs.organizationId, user.id))).map((a) => a.action);
    expect(actions).toContain("TWO_FACTOR_ENABLED");
  });

  test("a second setup while on is refused", async () => {
    const user = await userWithTwoFactor();
    const again = await server.call("POST", "/api/auth/two-factor/setup", { token: user.token, body: { password: user.password } });
    expect(again.status).toBe(409);
  });
});

describe("signing in with two factors", () => {
  test("the password alone is not enough; a current code is, once", async () => {
    const user = await userWithTwoFactor();
    const passwordOnly = await login(user);
    expect(passwordOnly.status).toBe(401);
    expect(passwordOnly.body).toMatchObject({ code: "TWO_FACTOR_REQUIRED", twoFactorRequired: true });
    expect(passwordOnly.body.token).toBeUndefined();

    expect((await login(user, "12345x")).status).toBe(401);
    // A wrong password with a right code says nothing about the code.
    const wrongPassword = await login({ ...user, password: "wrong-one" }, totpCode(user.seed, now()));
    expect(wrongPassword.body.message).toBe("Invalid email or password");

    const code = totpCode(user.seed, now());
    const signedIn = await login(user, code);
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.user.twoFactorEnabled).toBe(true);
    // The same code again (replayed, or seen over a shoulder) is refused within its step.
    const replay = await login(user, code);
    expect(replay.status).toBe(401);
    expect(replay.body.message).toBe("Invalid authentication code");
    nextStep();
    expect((await login(user, totpCode(user.seed, now()))).status).toBe(200);
  });

  test("a recovery code signs in once, in any case and without its dash", async () => {
    const user = await userWithTwoFactor();
    const [first, second] = user.recoveryCodes as [string, string];
    expect((await login(user, first.toUpperCase())).status).toBe(200);
    expect((await login(user, first)).status).toBe(401);
    expect((await login(user, second.replace("-", ""))).status).toBe(200);
    const status = await server.call("GET", "/api/auth/two-factor", { token: user.token });
    expect(status.body.recoveryCodesLeft).toBe(8);
    const actions = (await server.ctx.db.select().from(auditLogs).where(eq(auditLogs.organizationId, user.id))).map((a) => a.action);
    expect(actions.filter((a) => a === "RECOVERY_CODE_USED")).toHaveLength(2);
  });

  test("guessing codes is throttled like guessing passwords", async () => {
    const user = await userWithTwoFactor();
    const right = totpCode(user.seed, now());
    const wrongCode = String((Number(right) + 1) % 1_000_000).padStart(6, "0");
    for (let i = 0; i < SIGN_IN_FREE_ATTEMPTS_PER_ACCOUNT_AND_ADDRESS; i++) expect((await login(user, wrongCode)).status).toBe(401);
    const refused = await login(user, right);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  test("new recovery codes replace the old ones", async () => {
    const user = await userWithTwoFactor();
    const wrong = await server.call("POST", "/api/auth/two-factor/recovery-codes", {
      token: user.token,
      body: { password: user.password, code: wrongCodeFor(user.seed) },
    });
    expect(wrong.status).toBe(400);
    const fresh = await server.call("POST", "/api/auth/two-factor/recovery-codes", {
      token: user.token,
      body: { password: user.password, code: totpCode(user.seed, now()) },
    });
    expect(fresh.status).toBe(200);
    expect(fresh.body.recoveryCodes).toHaveLength(10);
    expect((await login(user, user.recoveryCodes[0])).status).toBe(401);
    expect((await login(user, fresh.body.recoveryCodes[0])).status).toBe(200);
  });
});

/** A 6-digit code that is not the one due now (nor a step either side). */
function wrongCodeFor(seed: string): string {
  const due = [-30_000, 0, 30_000].map((shift) => totpCode(seed, now() + shift));
  for (let n = 0; ; n++) {
    const candidate = String(n).padStart(6, "0");
    if (!due.includes(candidate)) return candidate;
  }
}

// The attack: a stolen session token guesses codes where a code alone mints new recovery codes.
// Each check of a code counts for the account, whatever the route, session or address.
describe("guessing codes per account", () => {
  test("a stolen session's wrong codes slow every later code check of the account, and the owner is told", async () => {
    const owner = await userWithTwoFactor();
    const stolen = owner.token;
    // The thief also knows the password here (the probe's case was a code alone, now refused:
    // reauthentication.test.ts); the codes are what is left to guess.
    const guess = (token: string, code: string) =>
      server.call("POST", "/api/auth/two-factor/recovery-codes", { token, body: { password: owner.password, code } });
    for (let i = 0; i < CODE_CHECKS_FREE_PER_ACCOUNT; i++) expect((await guess(stolen, wrongCodeFor(owner.seed))).status).toBe(400);
    const refused = await guess(stolen, wrongCodeFor(owner.seed));
    expect(refused.status).toBe(429);
    expect(refused.body.message).toMatch(/^Too many wrong authentication codes for this account\. Please wait \d+ seconds? and try again\.$/);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);

    // Another route, another session and another address wait too, even with the right code.
    const elsewhere = await server.call("POST", "/api/auth/login", {
      body: { email: owner.email, password: owner.password, code: totpCode(owner.seed, now()) },
      headers: { "x-forwarded-for": "198.51.100.99" },
    });
    expect(elsewhere.status).toBe(429);
    const disable = await server.call("POST", "/api/auth/two-factor/disable", {
      token: stolen,
      body: { password: owner.password, code: owner.recoveryCodes[0] },
    });
    expect(disable.status).toBe(429);

    const mail = await waitUntil(() => server.sentMail.find((m) => m.to === owner.email && m.subject.startsWith("Wrong two-factor codes")), {
      message: "the owner's notice of wrong codes",
    });
    expect(mail.text).toContain(`${CODE_CHECKS_FREE_PER_ACCOUNT} wrong two-factor codes`);
    expect(mail.text).toContain("Change your password");

    // Once the wait is over the owner's right code is accepted, and clears the count.
    clock.move(Number(refused.headers.get("retry-after")) * 1000);
    nextStep();
    const signedIn = await login(owner, totpCode(owner.seed, now()));
    expect(signedIn.status).toBe(200);
  });

  test("the checks grow further apart and survive moving to another session", async () => {
    const owner = await userWithTwoFactor();
    for (let i = 0; i < CODE_CHECKS_FREE_PER_ACCOUNT; i++) {
      const body = { password: owner.password, code: wrongCodeFor(owner.seed) };
      expect((await server.call("POST", "/api/auth/two-factor/recovery-codes", { token: owner.token, body })).status).toBe(400);
    }
    const waits: number[] = [];
    for (let i = 0; i < 3; i++) {
      const refused = await login(owner, wrongCodeFor(owner.seed));
      expect(refused.status).toBe(429);
      const wait = Number(refused.headers.get("retry-after"));
      waits.push(wait);
      clock.move(wait * 1000);
      expect((await login(owner, wrongCodeFor(owner.seed))).status).toBe(401);
    }
    expect(waits[1]!).toBeGreaterThan(waits[0]!);
    expect(waits[2]!).toBeGreaterThan(waits[1]!);
  });

  test("confirming a new authenticator counts the same way", async () => {
    const user = await server.registerUser();
    const setup = await server.call("POST", "/api/auth/two-factor/setup", { token: user.token, body: { password: user.password } });
    const enable = (code: string) => server.call("POST", "/api/auth/two-factor/enable", { token: user.token, body: { code } });
    for (let i = 0; i < CODE_CHECKS_FREE_PER_ACCOUNT; i++) expect((await enable(wrongCodeFor(setup.body.secret))).status).toBe(400);
    expect((await enable(totpCode(setup.body.secret, now()))).status).toBe(429);
  });
});

describe("turning two-factor sign-in off", () => {
  test("needs the password and a code; then the password alone signs in again", async () => {
    const user = await userWithTwoFactor();
    const noPassword = await server.call("POST", "/api/auth/two-factor/disable", {
      token: user.token,
      body: { password: "nope-nope", code: totpCode(user.seed, now()) },
    });
    expect(noPassword.status).toBe(400);
    const noCode = await server.call("POST", "/api/auth/two-factor/disable", { token: user.token, body: { password: user.password, code: "abcde-fghij" } });
    expect(noCode.status).toBe(400);
    expect((await login(user)).status).toBe(401);

    const off = await server.call("POST", "/api/auth/two-factor/disable", {
      token: user.token,
      body: { password: user.password, code: user.recoveryCodes[3] },
    });
    expect(off.status).toBe(200);
    expect((await login(user)).status).toBe(200);
    expect(await server.ctx.db.select().from(recoveryCodes).where(eq(recoveryCodes.userId, user.id))).toHaveLength(0);
  });

  test("an admin can turn it off for a user who lost their authenticator", async () => {
    const user = await userWithTwoFactor();
    const admin = await server.registerAdmin();
    expect((await server.call("DELETE", `/api/admin/users/${user.id}/two-factor`, { token: user.token })).status).toBe(403);
    const reset = await server.call("DELETE", `/api/admin/users/${user.id}/two-factor`, { token: admin.token });
    expect(reset.status).toBe(200);
    expect((await login(user)).status).toBe(200);
    expect((await server.call("DELETE", `/api/admin/users/${user.id}/two-factor`, { token: admin.token })).status).toBe(400);
  });
});

describe("REQUIRE_ADMIN_2FA=true", () => {
  let strict: TestServer;
  beforeAll(async () => {
    strict = await startTestServer({ REQUIRE_ADMIN_2FA: "true" });
    strict.ctx.now = () => new Date(now());
  });
  afterAll(() => strict.close());

  test("admin routes wait until the admin turns it on, and it cannot be turned off", async () => {
    const admin = await strict.registerAdmin();
    const before = await strict.call("GET", "/api/admin/users", { token: admin.token });
    expect(before.status).toBe(403);
    expect(before.body.code).toBe("TWO_FACTOR_REQUIRED");
    expect((await strict.call("GET", "/api/user/profile", { token: admin.token })).body).toMatchObject({ twoFactorRequired: true, twoFactorEnabled: false });

    const setup = await strict.call("POST", "/api/auth/two-factor/setup", { token: admin.token, body: { password: admin.password } });
    const enabled = await strict.call("POST", "/api/auth/two-factor/enable", { token: admin.token, body: { code: totpCode(setup.body.secret, now()) } });
    expect(enabled.status).toBe(200);
    expect((await strict.call("GET", "/api/admin/users", { token: enabled.body.token })).status).toBe(200);

    nextStep();
    const off = await strict.call("POST", "/api/auth/two-factor/disable", {
      token: enabled.body.token,
      body: { password: admin.password, code: totpCode(setup.body.secret, now()) },
    });
    expect(off.status).toBe(403);
  });

  test("an admin without it reaches no other organization's agent or draft through the user routes either", async () => {
    const admin = await strict.registerAdmin();
    const owner = await strict.registerUser();
    const [agent] = await strict.ctx.db.insert(agents).values({ organizationId: owner.id, name: "theirs", status: "offline" }).returning();
    const removed = await strict.call("DELETE", `/api/agents/${agent!.id}`, { token: admin.token });
    expect(removed.status).toBe(404);
    expect(await strict.ctx.db.select({ id: agents.id }).from(agents).where(eq(agents.id, agent!.id))).toHaveLength(1);
    const [draft] = await strict.ctx.db
      .insert(kbArticles)
      .values({ title: "Draft", slug: `draft-${agent!.id}`, content: "unpublished", isPublished: false })
      .returning();
    expect((await strict.call("GET", `/api/kb/${draft!.slug}`, { token: admin.token })).status).toBe(404);
  });

  test("users who are not admins choose for themselves", async () => {
    const user = await strict.registerUser();
    expect((await strict.call("GET", "/api/auth/two-factor", { token: user.token })).body).toMatchObject({ enabled: false, required: false });
  });
});
