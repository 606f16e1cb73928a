// Who may hold a session: tokens only as the server issues them, a banned account gets its ban
// (not a token) and no reset link, an inactive one is signed out and refused, and only the newest
// reset link works.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { jwt } from "@elysiajs/jwt";
import { mailOutbox } from "@db/schema";
import { AgentHeaders, agentApi } from "@protocol/agent-protocol";
import { startTestServer, type TestServer, type TestUser } from "../../../test/harness";
import { waitUntil } from "../../../../testkit/wait-until";
import { loadServerSecrets } from "../../lib/secrets";
import { INACTIVE_ACCOUNT_MESSAGE } from "./guard";

let server: TestServer;
let admin: TestUser;
beforeAll(async () => {
  server = await startTestServer();
  admin = await server.registerAdmin();
});
afterAll(() => server.close());

const login = (user: TestUser) => server.call("POST", "/api/auth/login", { body: { email: user.email, password: user.password } });
const profile = (token: string) => server.call("GET", "/api/user/profile", { token });

describe("session tokens", () => {
  test("a token of another algorithm, without exp, or unsigned is refused even with our secret", async () => {
    const user = await server.registerUser();
    const secret = loadServerSecrets(server.ctx.config.dataDir, {}).jwtSecret;
    const signer = (options: { alg?: "HS256" | "HS512"; exp?: string }) => jwt({ name: "j", secret, ...options }).decorator.j;
    const hs512 = await signer({ alg: "HS512", exp: "1h" }).sign({ sub: user.id, tv: 0 });
    const noExp = await signer({ alg: "HS256" }).sign({ sub: user.id, tv: 0 });
    const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
    const unsigned = `${encode({ alg: "none", typ: "JWT" })}.${encode({ sub: user.id, tv: 0, exp: Math.floor(Date.now() / 1000) + 3600 })}.`;
    for (const token of [hs512, noExp, unsigned]) {
      const res = await profile(token);
      expect(res.status).toBe(401);
      expect(res.body.message).toBe("Your session has expired or is invalid. Please sign in again.");
    }
    // The same claims as the server makes them work: the refusals were about algorithm and exp.
    const ours = await signer({ alg: "HS256", exp: "1h" }).sign({ sub: user.id, tv: 0 });
    expect((await profile(ours)).status).toBe(200);
  });
});

describe("a banned account", () => {
  test("signing in answers 403 with the reason and no token; no reset link is sent, an earlier one no longer works", async () => {
    const user = await server.registerUser();
    await server.call("POST", "/api/auth/forgot-password", { body: { email: user.email } });
    const mail = await waitUntil(() => server.sentMail.find((m) => m.to === user.email), { message: "the reset link" });
    const resetToken = mail.text.match(/reset-password\/([A-Za-z0-9_-]+)/)![1]!;
    expect(
      (await server.call("PUT", `/api/admin/users/${user.id}/ban`, { token: admin.token, body: { isBanned: true, banReason: "Chargebacks" } })).status,
    ).toBe(200);

    const signIn = await login(user);
    expect(signIn.status).toBe(403);
    expect(signIn.body).toMatchObject({ code: "BANNED", banReason: "Chargebacks", message: "Your account has been suspended. Reason: Chargebacks" });
    expect(signIn.body.token).toBeUndefined();
    // A wrong password says only that.
    expect((await login({ ...user, password: "wrong-one-1" })).status).toBe(401);

    const reset = await server.call("POST", `/api/auth/reset-password/${resetToken}`, { body: { password: "new-pass-123" } });
    expect(reset.status).toBe(403);
    expect(reset.body.code).toBe("BANNED");
    const queuedFor = async () => (await server.ctx.db.select().from(mailOutbox).where(eq(mailOutbox.recipient, user.email))).length;
    const before = await queuedFor();
    expect((await server.call("POST", "/api/auth/forgot-password", { body: { email: user.email } })).status).toBe(200);
    await server.ctx.pendingWork.settled();
    expect(await queuedFor()).toBe(before);
    expect((await login(user)).status).toBe(403);
  });
});

describe("an inactive account", () => {
  test("is signed out everywhere, refused at sign-in and for new agents; its agents keep working; active again signs in", async () => {
    const user = await server.registerUser();
    const register = (name: string) =>
      server.call("POST", agentApi.register, {
        headers: { authorization: `Bearer ${user.apiKey}` },
        body: { name, hostname: "db1", platform: "linux-x64", version: "1.0.0", databases: ["orders"] },
      });
    const agent = await register("kept");
    expect(agent.status).toBe(201);

    expect((await server.call("PUT", `/api/admin/users/${user.id}`, { token: admin.token, body: { status: "inactive" } })).status).toBe(200);
    expect((await profile(user.token)).status).toBe(401);
    const signIn = await login(user);
    expect(signIn.status).toBe(403);
    expect(signIn.body).toMatchObject({ code: "INACTIVE", message: INACTIVE_ACCOUNT_MESSAGE });
    const another = await register("new-one");
    expect(another.status).toBe(403);
    expect(another.body.message).toBe("This account is inactive, so no new agent can be set up. Agents already set up keep running.");
    const agentHeaders = {
      authorization: `Bearer ${user.apiKey}`,
      [AgentHeaders.agentId]: agent.body.agentId,
      [AgentHeaders.agentToken]: agent.body.agentToken,
    };
    expect((await server.call("POST", agentApi.databases, { headers: agentHeaders, body: { name: "billing" } })).status).toBe(200);

    expect((await server.call("PUT", `/api/admin/users/${user.id}`, { token: admin.token, body: { status: "active" } })).status).toBe(200);
    expect((await login(user)).status).toBe(200);
  });
});

test("a new reset link ends the older ones", async () => {
  const user = await server.registerUser();
  const linkOf = async (count: number) => {
    await server.call("POST", "/api/auth/forgot-password", { body: { email: user.email } });
    const mails = await waitUntil(
      () => {
        const found = server.sentMail.filter((m) => m.to === user.email);
        return found.length >= count ? found : null;
      },
      { message: `reset mail ${count}` },
    );
    return mails[count - 1]!.text.match(/reset-password\/([A-Za-z0-9_-]+)/)![1]!;
  };
  const older = await linkOf(1);
  const newer = await linkOf(2);
  expect((await server.call("GET", `/api/auth/reset-password/${older}`)).status).toBe(400);
  expect((await server.call("GET", `/api/auth/reset-password/${newer}`)).status).toBe(200);
});
