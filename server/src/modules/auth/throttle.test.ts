// Sign-in throttling slows guessing without locking the owner out; registration and password
// checks are limited; TRUST_PROXY=1 takes the address the proxy appended, not one the client chose.
// The addresses come from X-Forwarded-For behind TRUST_PROXY=1, and the clock is moved instead of
// waiting.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { startTestServer, uniqueEmail, type TestServer } from "../../../test/harness";
import { totpCode } from "../../../../testkit/totp";
import {
  SIGN_IN_ATTEMPTS_PER_ACCOUNT,
  SIGN_IN_KNOWN_DEVICE_MAX_DELAY_SECONDS,
  SIGN_IN_ATTEMPTS_PER_ADDRESS,
  SIGN_IN_FREE_ATTEMPTS_PER_ACCOUNT_AND_ADDRESS,
  PASSWORD_CHECKS_PER_USER,
} from "./throttle";

let server: TestServer;
let offsetMs = 0;
beforeAll(async () => {
  server = await startTestServer({ TRUST_PROXY: "1", REGISTRATIONS_PER_HOUR: "3" });
  // The clock stands still between moves: a waiting time read a moment after it was set must be
  // the one set (on a loaded machine a real second could pass and turn 4 s into 3).
  const start = Date.now();
  server.ctx.now = () => new Date(start + offsetMs);
});
afterAll(() => server.close());
// Each test starts in a fresh hour, past every window the tests before it opened.
beforeEach(() => void (offsetMs += 2 * 60 * 60 * 1000));
const later = (seconds: number) => void (offsetMs += seconds * 1000);

let addressCounter = 0;
// Every address new for the test that asks for it (a /24 wraps around within the file's run).
const newAddress = () => `10.${(++addressCounter >> 16) & 255}.${(addressCounter >> 8) & 255}.${addressCounter & 255}`;

function signIn(email: string, password: string, address: string) {
  return server.call("POST", "/api/auth/login", { body: { email, password }, headers: { "x-forwarded-for": `198.51.100.7, ${address}` } });
}

async function registerFrom(address: string) {
  const body = { name: "Someone", email: uniqueEmail(), password: "secret123" };
  return server.call("POST", "/api/auth/register", { body, headers: { "x-forwarded-for": address } });
}

async function ownerAccount() {
  const registered = await registerFrom(newAddress());
  expect(registered.status).toBe(201);
  return { email: registered.body.user.email as string, password: "secret123", token: registered.body.token as string };
}

async function slowDownAccount(email: string) {
  for (let i = 0; i <= SIGN_IN_ATTEMPTS_PER_ACCOUNT + 3; i++) await signIn(email, "wrong-guess", newAddress());
  expect((await signIn(email, "wrong-guess", newAddress())).status).toBe(429);
}

describe("the owner while someone guesses", () => {
  test("the owner's browser that signed in before passes, from elsewhere and from the guesser's own address, with at most a short wait", async () => {
    const owner = await ownerAccount();
    const first = await signIn(owner.email, owner.password, newAddress());
    expect(first.status).toBe(200);
    const device = first.body.deviceToken as string;
    expect(device).toMatch(/^[\w-]+\.[0-9a-f]{32}$/);

    const office = newAddress();
    for (let i = 0; i < 12; i++) await signIn(owner.email, "wrong-guess", office);
    await slowDownAccount(owner.email);
    // Without the device token the owner waits like the guesser…
    expect((await signIn(owner.email, owner.password, office)).status).toBe(429);
    expect((await signIn(owner.email, owner.password, newAddress())).status).toBe(429);
    // …with it, not: from another address, and from the office the guesser shares.
    const withDevice = (address: string, password = owner.password) =>
      server.call("POST", "/api/auth/login", { body: { email: owner.email, password, device }, headers: { "x-forwarded-for": address } });
    expect((await withDevice(newAddress())).status).toBe(200);
    expect((await withDevice(office)).status).toBe(200);
    // The owner's own typos on that browser wait seconds, never the guesser's 15 minutes.
    const typos: number[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await withDevice(office, "typo-typo");
      if (res.status === 429) typos.push(res.body.retryAfter);
    }
    expect(Math.max(...typos)).toBeLessThanOrEqual(SIGN_IN_KNOWN_DEVICE_MAX_DELAY_SECONDS);
    // A device token of another account, or a forged one, is no help.
    const other = await signIn((await ownerAccount()).email, "secret123", newAddress());
    const foreign = await server.call("POST", "/api/auth/login", {
      body: { email: owner.email, password: owner.password, device: other.body.deviceToken },
      headers: { "x-forwarded-for": newAddress() },
    });
    expect(foreign.status).toBe(429);
  });

  test("with two factors the owner passes a slowed-down account; a right password alone is refused like a wrong one", async () => {
    const owner = await ownerAccount();
    const setup = await server.call("POST", "/api/auth/two-factor/setup", { token: owner.token, body: { password: owner.password } });
    const seed = setup.body.secret as string;
    expect(
      (await server.call("POST", "/api/auth/two-factor/enable", { token: owner.token, body: { code: totpCode(seed, server.ctx.now().getTime()) } })).status,
    ).toBe(200);
    later(30);
    await slowDownAccount(owner.email);
    const passwordOnly = await signIn(owner.email, owner.password, newAddress());
    const wrong = await signIn(owner.email, "wrong-guess", newAddress());
    expect(passwordOnly.status).toBe(429);
    expect(passwordOnly.body.message.replace(/\d+/, "N")).toBe(wrong.body.message.replace(/\d+/, "N"));
    const bothFactors = await server.call("POST", "/api/auth/login", {
      body: { email: owner.email, password: owner.password, code: totpCode(seed, server.ctx.now().getTime()) },
      headers: { "x-forwarded-for": newAddress() },
    });
    expect(bothFactors.status).toBe(200);
  });
});

describe("sign-in", () => {
  test("a guesser's failures never lock the owner out from an address that has not failed", async () => {
    const owner = await ownerAccount();
    const attacker = newAddress();
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) {
      statuses.push((await signIn(owner.email, "wrong-guess", attacker)).status);
      later(60);
    }
    expect(statuses.slice(0, SIGN_IN_FREE_ATTEMPTS_PER_ACCOUNT_AND_ADDRESS)).toEqual(Array(SIGN_IN_FREE_ATTEMPTS_PER_ACCOUNT_AND_ADDRESS).fill(401));
    expect(statuses).toContain(429);
    expect((await signIn(owner.email, owner.password, newAddress())).status).toBe(200);
  });

  test("failures for one account from one address wait 1 s, 2 s, 4 s…; a refused attempt does not add to the wait", async () => {
    const owner = await ownerAccount();
    const address = newAddress();
    for (let i = 0; i < SIGN_IN_FREE_ATTEMPTS_PER_ACCOUNT_AND_ADDRESS; i++) expect((await signIn(owner.email, "wrong-guess", address)).status).toBe(401);
    const refused = await signIn(owner.email, owner.password, address);
    expect(refused.status).toBe(429);
    expect(refused.body.message).toBe("Too many sign-in attempts for this account. Please wait 1 second and try again.");
    expect(refused.headers.get("retry-after")).toBe("1");
    later(1);
    expect((await signIn(owner.email, "wrong-guess", address)).status).toBe(401);
    expect((await signIn(owner.email, "wrong-guess", address)).body.retryAfter).toBe(2);
    expect((await signIn(owner.email, "wrong-guess", address)).body.retryAfter).toBe(2);
    later(2);
    expect((await signIn(owner.email, "wrong-guess", address)).status).toBe(401);
    expect((await signIn(owner.email, "wrong-guess", address)).body.retryAfter).toBe(4);
    later(4);
    // The right password after the wait signs in and clears the delay.
    expect((await signIn(owner.email, owner.password, address)).status).toBe(200);
    expect((await signIn(owner.email, "wrong-guess", address)).status).toBe(401);
  });

  test("a new address for every guess: past the account's limit each guess waits longer, from any address", async () => {
    const owner = await ownerAccount();
    const statuses: number[] = [];
    for (let i = 0; i < SIGN_IN_ATTEMPTS_PER_ACCOUNT + 20; i++) statuses.push((await signIn(owner.email, "wrong-guess", newAddress())).status);
    expect(statuses.slice(0, SIGN_IN_ATTEMPTS_PER_ACCOUNT)).toEqual(Array(SIGN_IN_ATTEMPTS_PER_ACCOUNT).fill(401));
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(19);
    const refused = await signIn(owner.email, "wrong-guess", newAddress());
    expect(refused.body.message).toMatch(/^Too many sign-in attempts for this account\. Please wait \d+ seconds? and try again\.$/);
    // The waits grow to 15 minutes: a guess a minute from fresh addresses gets a dozen tries in
    // the first hour, then 4 an hour.
    const admittedInAnHour = async () => {
      let admitted = 0;
      for (let minute = 0; minute < 60; minute++) {
        later(60);
        if ((await signIn(owner.email, "wrong-guess", newAddress())).status === 401) admitted++;
      }
      return admitted;
    };
    expect(await admittedInAnHour()).toBeLessThanOrEqual(13);
    expect(await admittedInAnHour()).toBeLessThanOrEqual(4);
  });

  test("IPv6 addresses of one /64 count as one address", async () => {
    const owner = await ownerAccount();
    const statuses: number[] = [];
    for (let i = 1; i <= SIGN_IN_FREE_ATTEMPTS_PER_ACCOUNT_AND_ADDRESS + 1; i++)
      statuses.push((await signIn(owner.email, "wrong-guess", `2001:db8:7:9::${i.toString(16)}`)).status);
    expect(statuses.at(-1)).toBe(429);
    expect((await signIn(owner.email, "wrong-guess", "2001:db8:7:a::1")).status).toBe(401);
  });
  test("one address trying many accounts is limited across them; its successful sign-ins are not counted", async () => {
    const owner = await ownerAccount();
    const address = newAddress();
    // An office behind one address: its colleagues' sign-ins do not use up the allowance.
    for (let i = 0; i < 5; i++) expect((await signIn(owner.email, owner.password, address)).status).toBe(200);
    const statuses: number[] = [];
    for (let i = 0; i <= SIGN_IN_ATTEMPTS_PER_ADDRESS; i++) statuses.push((await signIn(uniqueEmail("nobody"), "whatever1", address)).status);
    expect(statuses.slice(0, SIGN_IN_ATTEMPTS_PER_ADDRESS).every((status) => status === 401)).toBe(true);
    const last = statuses.at(-1);
    expect(last).toBe(429);
    const refused = await signIn(uniqueEmail("nobody"), "whatever1", address);
    expect(refused.body.message).toMatch(/^Too many sign-in attempts from your network\./);
    expect((await signIn(uniqueEmail("nobody"), "whatever1", newAddress())).status).toBe(401);
  });

  test("the client's own X-Forwarded-For entries are not trusted: the proxy's entry is the address", async () => {
    const owner = await ownerAccount();
    const address = newAddress();
    for (let i = 0; i < SIGN_IN_FREE_ATTEMPTS_PER_ACCOUNT_AND_ADDRESS; i++) {
      // A different forged left-most entry each time: still one address.
      const headers = { "x-forwarded-for": `10.0.0.${i}, ${address}` };
      expect((await server.call("POST", "/api/auth/login", { body: { email: owner.email, password: "wrong-guess" }, headers })).status).toBe(401);
    }
    expect((await signIn(owner.email, "wrong-guess", address)).status).toBe(429);
  });
});

test("an address may create REGISTRATIONS_PER_HOUR accounts an hour", async () => {
  const address = newAddress();
  for (let i = 0; i < 3; i++) expect((await registerFrom(address)).status).toBe(201);
  const refused = await registerFrom(address);
  expect(refused.status).toBe(429);
  expect(refused.body.message).toMatch(/^Too many registrations from your network\. Please wait \d+ seconds/);
  expect((await registerFrom(newAddress())).status).toBe(201);
  later(60 * 60);
  expect((await registerFrom(address)).status).toBe(201);
});

test("wrong current passwords on a password change are limited, right ones are not counted", async () => {
  const owner = await ownerAccount();
  const change = (currentPassword: string, token = owner.token) =>
    server.call("PUT", "/api/user/password", { token, body: { currentPassword, newPassword: "another-pass-1" } });
  for (let i = 0; i < PASSWORD_CHECKS_PER_USER; i++) expect((await change("not-it-1")).status).toBe(400);
  const refused = await change(owner.password);
  expect(refused.status).toBe(429);
  expect(refused.body.message).toMatch(/^Too many wrong current passwords\./);
  later(15 * 60);
  const changed = await change(owner.password);
  expect(changed.status).toBe(200);
});
