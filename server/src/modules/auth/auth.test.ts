import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer, uniqueEmail } from "../../../test/harness";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

describe("POST /api/auth/register", () => {
  test("creates an account and answers a token and the user", async () => {
    const email = uniqueEmail();
    const res = await server.call("POST", "/api/auth/register", { body: { name: "Ada Lovelace", email, password: "secret1" } });
    expect(res.status).toBe(201);
    expect(res.body.token).toBeString();
    expect(res.body.user).toMatchObject({ email, name: "Ada Lovelace", role: "user", isBanned: false, banReason: null, bannedAt: null });
    expect(res.body.user.id).toMatch(/^[0-9a-f]{24}$/);
    expect(res.body.user.apiKey).toStartWith("dbv_");
    const profile = await server.call("GET", "/api/user/profile", { token: res.body.token });
    expect(profile.status).toBe(200);
    expect(profile.body.email).toBe(email);
  });

  test("stores e-mail case-insensitively and refuses a second account for it", async () => {
    const email = uniqueEmail();
    await server.registerUser({ email });
    const again = await server.call("POST", "/api/auth/register", {
      body: { name: "Someone", email: email.toUpperCase(), password: "secret1" },
    });
    expect(again.status).toBe(409);
    expect(again.body.message).toBe("An account with this email already exists.");
  });

  test.each([
    [{ name: "A", email: "a@example.com", password: "secret1" }, "Name must be at least 2 characters"],
    [{ name: "Ada", email: "not-an-email", password: "secret1" }, "Please enter a valid email address"],
    [{ name: "Ada", email: "a@example.com", password: "12345" }, "Password must be at least 6 characters"],
    [{ name: "Ada", email: "a@example.com" }, "Password must be at least 6 characters"],
    [{ name: "Ada", email: 42, password: "secret1" }, "Please enter a valid email address"],
  ])("rejects %j with the spec's message", async (body, message) => {
    const res = await server.call("POST", "/api/auth/register", { body });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(message);
  });

  test("malformed JSON gets 400 with a message, not a 500", async () => {
    const res = await server.call("POST", "/api/auth/register", {
      rawBody: "{not json",
      headers: { "content-type": "application/json" },
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe("The request body is not valid JSON.");
  });

  test("an oversized body gets 413", async () => {
    const res = await server.call("POST", "/api/auth/register", {
      body: { name: "x".repeat(2 * 1024 * 1024), email: "a@example.com", password: "secret1" },
    });
    expect(res.status).toBe(413);
    expect(res.body.message).toContain("too large");
  });
});

describe("POST /api/auth/login", () => {
  test("answers the token and the full user", async () => {
    const user = await server.registerUser();
    const res = await server.call("POST", "/api/auth/login", { body: { email: user.email, password: user.password } });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.user).sort()).toEqual(
      ["_id", "apiKey", "banReason", "bannedAt", "email", "id", "isBanned", "name", "role", "twoFactorEnabled", "twoFactorRequired"].sort(),
    );
    expect(res.body.user.apiKey).toBe(user.apiKey);
    // The token carries an expiry claim the web app checks.
    const claims = JSON.parse(Buffer.from(res.body.token.split(".")[1], "base64url").toString());
    expect(claims.exp).toBeGreaterThan(Date.now() / 1000);
  });

  test("a wrong password and an unknown e-mail get the same 401", async () => {
    const user = await server.registerUser();
    const wrong = await server.call("POST", "/api/auth/login", { body: { email: user.email, password: "wrong-password" } });
    const unknown = await server.call("POST", "/api/auth/login", { body: { email: uniqueEmail(), password: "whatever1" } });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body.message).toBe("Invalid email or password");
    expect(unknown.body.message).toBe(wrong.body.message);
  });

  test("validates input with the spec's messages", async () => {
    const res = await server.call("POST", "/api/auth/login", { body: { email: "nope", password: "secret1" } });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe("Please enter a valid email address");
  });

  test("repeated failures for one account from one address answer 429 with the wait", async () => {
    const user = await server.registerUser();
    // The waits are counted on the server's clock: stopped here, so a slow machine cannot outlast them.
    const realNow = server.ctx.now;
    const stopped = realNow();
    server.ctx.now = () => stopped;
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        statuses.push((await server.call("POST", "/api/auth/login", { body: { email: user.email, password: "bad-pass" } })).status);
      }
      expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
      const blocked = await server.call("POST", "/api/auth/login", { body: { email: user.email, password: user.password } });
      expect(blocked.status).toBe(429);
      expect(blocked.body.message).toMatch(/Too many sign-in attempts for this account\. Please wait \d+ seconds? and try again\./);
    } finally {
      server.ctx.now = realNow;
    }
  });
});

describe("session tokens", () => {
  test("no token, a forged token and an expired token get 401", async () => {
    const user = await server.registerUser();
    expect((await server.call("GET", "/api/user/profile")).status).toBe(401);
    const [header, payload] = user.token.split(".");
    const forged = `${header}.${payload}.${"A".repeat(43)}`;
    expect((await server.call("GET", "/api/user/profile", { token: forged })).status).toBe(401);
    const { createSessionTokens } = await import("./session-tokens");
    const { loadServerSecrets } = await import("../../lib/secrets");
    const secrets = loadServerSecrets(server.ctx.config.dataDir, {});
    const { jwt } = await import("@elysiajs/jwt");
    const signer = jwt({ name: "j", secret: secrets.jwtSecret }).decorator.j;
    const expired = await signer.sign({ sub: user.id, tv: 0, exp: Math.floor(Date.now() / 1000) - 60 });
    const res = await server.call("GET", "/api/user/profile", { token: expired });
    expect(res.status).toBe(401);
    expect(res.body.message).toContain("sign in again");
    // A token signed by us with a valid expiry still works, proving the expired one failed on exp.
    const fresh = await createSessionTokens(secrets.jwtSecret, 1).issue(user.id, 0);
    expect((await server.call("GET", "/api/user/profile", { token: fresh })).status).toBe(200);
  });
});
