// The accounts API over real HTTP on loopback, with mail delivered to a real SMTP server process.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startSmtpSink, type SmtpSink } from "../../testkit/smtp-sink-client";
import { waitUntil } from "../../testkit/wait-until";
import { startTestServer, type TestServer, uniqueEmail } from "./harness";

let smtp: SmtpSink;
let server: TestServer;
let base: string;

beforeAll(async () => {
  smtp = await startSmtpSink();
  server = await startTestServer({ SMTP_URL: smtp.smtpUrl, PUBLIC_URL: "https://vault.example.com" });
  base = server.listen();
});
afterAll(async () => {
  await server.close();
  smtp.stop();
});

const post = (path: string, body: unknown, token?: string) =>
  fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });

describe("over HTTP", () => {
  test("register, sign in and read the profile", async () => {
    const email = uniqueEmail("http");
    const registered = await post("/api/auth/register", { name: "Http User", email, password: "secret123" });
    expect(registered.status).toBe(201);
    const login = await post("/api/auth/login", { email, password: "secret123" });
    const { token, user } = (await login.json()) as { token: string; user: { email: string } };
    expect(user.email).toBe(email);
    const profile = await fetch(`${base}/api/user/profile`, { headers: { authorization: `Bearer ${token}` } });
    expect(profile.status).toBe(200);
    expect(((await profile.json()) as { name: string }).name).toBe("Http User");
  });

  test("every answer carries the security headers, errors included", async () => {
    for (const response of [
      await fetch(`${base}/api/settings/plans`),
      await fetch(`${base}/api/user/profile`),
      await fetch(`${base}/api/nothing-here`),
      await post("/api/auth/login", { email: "bad" }),
    ]) {
      expect(response.headers.get("content-security-policy")).toContain("script-src 'self'");
      expect(response.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      expect(response.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
      expect(response.headers.get("x-frame-options")).toBe("DENY");
      expect(response.headers.get("content-security-policy")).toContain("connect-src 'self';");
      expect(response.headers.get("permissions-policy")).toContain("camera=()");
      // This server's PUBLIC_URL is https, and API answers may carry secrets.
      expect(response.headers.get("strict-transport-security")).toBe("max-age=31536000; includeSubDomains");
      expect(response.headers.get("cache-control")).toBe("no-store");
      expect((await response.json()) as object).toBeObject();
    }
  });

  test("NUL characters and lone surrogates are refused with 400 naming the field, never a 500", async () => {
    const email = uniqueEmail("nul");
    const nul = await post("/api/auth/register", { name: "a\u0000b", email, password: "secret123" });
    expect(nul.status).toBe(400);
    expect((await nul.json()).message).toBe("name must not contain NUL characters");
    // The raw JSON escape \ud800 alone is a lone surrogate.
    const lone = await fetch(`${base}/api/auth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: `{"name":"x","email":"${email}","password":"secret123","tags":["ok","\\ud800"]}`,
    });
    expect(lone.status).toBe(400);
    expect((await lone.json()).message).toBe("tags.1 must be valid Unicode text (it has a lone surrogate)");
    const query = await fetch(`${base}/api/kb?search=a%00b`);
    expect(query.status).toBe(400);
    expect((await query.json()).message).toBe("search must not contain NUL characters");
    const path = await fetch(`${base}/api/kb/a%00b`);
    expect(path.status).toBe(400);
    // Nothing was created by the refused registrations.
    expect((await post("/api/auth/login", { email, password: "secret123" })).status).toBe(401);
  });

  test("an unknown API path is a JSON 404", async () => {
    const res = await fetch(`${base}/api/nothing-here`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ message: "Not found." });
  });

  test("a body over the limit is refused before it is read", async () => {
    const res = await fetch(`${base}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "a@example.com", password: "x".repeat(3 * 1024 * 1024) }),
    });
    expect(res.status).toBe(413);
  });

  test("the OpenAPI description lists the accounts API", async () => {
    const res = await fetch(`${base}/api/docs`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toStartWith("3.");
    for (const path of ["/api/auth/login", "/api/user/profile", "/api/settings/databases/{id}", "/api/admin/users/{id}/ban"]) {
      expect(Object.keys(doc.paths)).toContain(path);
    }
  });

  test("every request body in the OpenAPI description lists its JSON fields", async () => {
    type Operation = { requestBody?: { content: Record<string, { schema?: { properties?: object } }> } };
    const doc = (await (await fetch(`${base}/api/docs`)).json()) as { paths: Record<string, Record<string, Operation>> };
    const withBodies = Object.entries(doc.paths).flatMap(([path, operations]) =>
      Object.entries(operations).flatMap(([method, operation]) => (operation.requestBody ? [{ at: `${method} ${path}`, operation }] : [])),
    );
    expect(withBodies.length).toBeGreaterThanOrEqual(20);
    const undocumented = withBodies.filter(({ operation }) => !operation.requestBody!.content["application/json"]?.schema?.properties).map(({ at }) => at);
    expect(undocumented).toEqual([]);
    expect(doc.paths["/api/auth/login"]!.post!.requestBody!.content["application/json"]!.schema!.properties).toHaveProperty("password");
  });

  test("every operation in the OpenAPI description declares who may call it, with schemes it defines; the installers are described", async () => {
    type Operation = { security?: Record<string, string[]>[]; summary?: string; description?: string };
    const doc = (await (await fetch(`${base}/api/docs`)).json()) as {
      paths: Record<string, Record<string, Operation>>;
      components: { securitySchemes: Record<string, { type: string; in?: string; name?: string }> };
    };
    const operations = Object.entries(doc.paths).flatMap(([path, byMethod]) =>
      Object.entries(byMethod).map(([method, operation]) => ({ at: `${method.toUpperCase()} ${path}`, operation })),
    );
    expect(operations.filter(({ operation }) => !Array.isArray(operation.security)).map(({ at }) => at)).toEqual([]);
    const schemes = doc.components.securitySchemes;
    const unknown = operations.flatMap(({ at, operation }) =>
      operation.security!.flatMap((requirement) =>
        Object.keys(requirement)
          .filter((name) => !schemes[name])
          .map((name) => `${at}: ${name}`),
      ),
    );
    expect(unknown).toEqual([]);
    const securityAt = (at: string) => operations.find((operation) => operation.at === at)?.operation.security;
    expect(securityAt("GET /api/user/profile")).toEqual([{ bearer: [] }]);
    expect(securityAt("POST /api/agent/register")).toEqual([{ apiKey: [] }]);
    expect(securityAt("PUT /api/agent/backups/{backupId}/parts/{partNumber}")).toEqual([{ agentId: [], agentToken: [] }]);
    expect(securityAt("WS /api/agents/ws")).toEqual([{ agentId: [], agentToken: [] }]);
    expect(securityAt("GET /metrics")).toEqual([{ metricsToken: [] }]);
    expect(securityAt("POST /api/auth/login")).toEqual([]);
    expect(schemes.agentToken).toMatchObject({ type: "apiKey", in: "header", name: "X-Agent-Token" });
    expect(schemes.agentId).toMatchObject({ type: "apiKey", in: "header", name: "X-Agent-Id" });
    for (const installer of ["GET /install.sh", "GET /install.ps1"]) {
      const operation = operations.find(({ at }) => at === installer)?.operation;
      expect({ installer, security: operation?.security, described: (operation?.description?.length ?? 0) > 100 }).toEqual({
        installer,
        security: [],
        described: true,
      });
    }
    // Static files (the web app's assets) stay out.
    expect(Object.keys(doc.paths).filter((path) => path.includes(".") && !path.startsWith("/install."))).toEqual([]);
  });

  test("every operation in the OpenAPI description declares the schema of its answer", async () => {
    type Answer = { description?: string; content?: Record<string, { schema?: { type?: string; properties?: object; items?: object; anyOf?: object[] } }> };
    type Operation = { responses?: Record<string, Answer> };
    const doc = (await (await fetch(`${base}/api/docs`)).json()) as { paths: Record<string, Record<string, Operation>> };
    const operations = Object.entries(doc.paths).flatMap(([path, byMethod]) =>
      Object.entries(byMethod).map(([method, operation]) => ({ at: `${method} ${path}`, method, operation })),
    );
    expect(operations.length).toBeGreaterThanOrEqual(60);
    const undocumented = operations
      .filter(({ method, operation }) => {
        const answers = Object.entries(operation.responses ?? {});
        // A socket's answer is the protocol switch; its messages are in docs/ (not OpenAPI's to say).
        if (method === "ws") return !answers.some(([status]) => status === "101");
        // A browser's redirect (the SSO callback): its answer is where it sends the browser.
        const redirect = (answer: Answer & { headers?: Record<string, unknown> }) => answer.headers?.Location !== undefined;
        if (answers.some(([status, answer]) => /^3\d\d$/.test(status) && redirect(answer))) return false;
        return !answers.some(
          ([status, answer]) =>
            /^2\d\d$/.test(status) && Object.values(answer.content ?? {}).some((media) => media.schema && Object.keys(media.schema).length > 0),
        );
      })
      .map(({ at }) => at);
    expect(undocumented).toEqual([]);
    // Fields, not just a type: the sign-in answer names the token and the user's fields.
    const login = doc.paths["/api/auth/login"]!.post!.responses!["200"]!.content!["application/json"]!.schema as {
      properties: Record<string, { properties?: object }>;
    };
    expect(Object.keys(login.properties)).toEqual(expect.arrayContaining(["token", "user"]));
    expect(Object.keys(login.properties.user!.properties!)).toEqual(expect.arrayContaining(["email", "role", "twoFactorEnabled"]));
    // Errors share one documented shape.
    expect(doc.paths["/api/user/profile"]!.get!.responses!["4XX"]!.content!["application/json"]!.schema).toHaveProperty("properties.message");
  });
});

describe("password recovery with real mail", () => {
  test("the reset link arrives by mail, works once, and ends old sessions", async () => {
    const email = uniqueEmail("forgot");
    const registered = (await (await post("/api/auth/register", { name: "Forgetful", email, password: "old-pass-1" })).json()) as {
      token: string;
    };
    const asked = await post("/api/auth/forgot-password", { email });
    expect(asked.status).toBe(200);
    const answer = (await asked.json()) as Record<string, unknown>;
    expect(answer).toEqual({ message: "If an account with that email exists, a password reset link has been sent." });

    const mail = await smtp.waitFor(email, /Reset your DBVault password/);
    const link = mail.text.match(/https:\/\/vault\.example\.com\/reset-password\/([A-Za-z0-9_-]+)/);
    expect(link).not.toBeNull();
    const token = link![1]!;

    expect((await fetch(`${base}/api/auth/reset-password/${token}`)).status).toBe(200);
    const reset = await post(`/api/auth/reset-password/${token}`, { password: "new-pass-1" });
    expect(reset.status).toBe(200);
    const again = await post(`/api/auth/reset-password/${token}`, { password: "new-pass-2" });
    expect(again.status).toBe(400);
    expect(((await again.json()) as { message: string }).message).toBe("Invalid or expired reset token");
    expect((await fetch(`${base}/api/auth/reset-password/${token}`)).status).toBe(400);

    expect((await post("/api/auth/login", { email, password: "old-pass-1" })).status).toBe(401);
    expect((await post("/api/auth/login", { email, password: "new-pass-1" })).status).toBe(200);
    const oldSession = await fetch(`${base}/api/user/profile`, { headers: { authorization: `Bearer ${registered.token}` } });
    expect(oldSession.status).toBe(401);
  });

  test("a reset or a password change ends every other reset link", async () => {
    const email = uniqueEmail("links");
    expect((await post("/api/auth/register", { name: "Two Links", email, password: "first-pass-1" })).status).toBe(201);
    const linksSent = async (count: number) => {
      const found = await waitUntil(
        async () => {
          const tokens = (await smtp.messages())
            .filter((m) => m.to.includes(email))
            .map((m) => m.text.match(/\/reset-password\/([A-Za-z0-9_-]+)/)?.[1])
            .filter((token): token is string => Boolean(token));
          return tokens.length >= count && tokens;
        },
        { message: `${count} reset mail(s)` },
      );
      return found;
    };
    await post("/api/auth/forgot-password", { email });
    await linksSent(1);
    await post("/api/auth/forgot-password", { email });
    const [first, second] = await linksSent(2);
    expect((await post(`/api/auth/reset-password/${second}`, { password: "second-pass-2" })).status).toBe(200);
    expect((await post(`/api/auth/reset-password/${first}`, { password: "stolen-pass-3" })).status).toBe(400);

    await post("/api/auth/forgot-password", { email });
    const [, , third] = await linksSent(3);
    const session = (await (await post("/api/auth/login", { email, password: "second-pass-2" })).json()) as { token: string };
    const changed = await fetch(`${base}/api/user/password`, {
      method: "PUT",
      headers: { "content-type": "application/json", authorization: `Bearer ${session.token}` },
      body: JSON.stringify({ currentPassword: "second-pass-2", newPassword: "changed-pass-4" }),
    });
    expect(changed.status).toBe(200);
    expect((await post(`/api/auth/reset-password/${third}`, { password: "stolen-pass-5" })).status).toBe(400);
    expect((await post("/api/auth/login", { email, password: "changed-pass-4" })).status).toBe(200);
  });

  test("an unknown address gets the same answer and no mail", async () => {
    const email = uniqueEmail("nobody");
    const res = await post("/api/auth/forgot-password", { email });
    expect(await res.json()).toEqual({ message: "If an account with that email exists, a password reset link has been sent." });
    // A mail, if the server sent one, has reached the sink once the server's background work settled.
    await server.ctx.pendingWork.settled();
    expect((await smtp.messages()).some((m) => m.to.includes(email))).toBe(false);
  });

  test("an invented or malformed token is refused", async () => {
    expect((await fetch(`${base}/api/auth/reset-password/not-a-real-token`)).status).toBe(400);
    expect((await post("/api/auth/reset-password/not-a-real-token", { password: "whatever1" })).status).toBe(400);
    expect((await post("/api/auth/reset-password/x", { password: "1" })).status).toBe(400);
  });

  test("an expired token is refused", async () => {
    const email = uniqueEmail("late");
    await post("/api/auth/register", { name: "Late", email, password: "old-pass-1" });
    await post("/api/auth/forgot-password", { email });
    const mail = await smtp.waitFor(email, /Reset your DBVault password/);
    const token = mail.text.match(/reset-password\/([A-Za-z0-9_-]+)/)![1]!;
    const realNow = server.ctx.now;
    server.ctx.now = () => new Date(Date.now() + 2 * 60 * 60 * 1000);
    try {
      expect((await fetch(`${base}/api/auth/reset-password/${token}`)).status).toBe(400);
    } finally {
      server.ctx.now = realNow;
    }
    expect((await fetch(`${base}/api/auth/reset-password/${token}`)).status).toBe(200);
  });

  test("repeated requests for one account are rate limited", async () => {
    const email = uniqueEmail("spam");
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await post("/api/auth/forgot-password", { email })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });

  test("a test notification is delivered over SMTP", async () => {
    const email = uniqueEmail("notify");
    const { token } = (await (await post("/api/auth/register", { name: "Notify", email, password: "secret123" })).json()) as { token: string };
    const res = await post("/api/settings/test-notification", {}, token);
    expect(res.status).toBe(200);
    const mail = await smtp.waitFor(email, /DBVault test notification/);
    expect(mail.text).toContain("test notification from DBVault");
  });
});
