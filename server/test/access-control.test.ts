// Route-by-route permission checks, driven by the app's own route table so that a route added
// later is covered (or must be declared public here, on purpose).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer, type TestUser } from "./harness";

// Routes anyone may call, and routes authenticated by an agent's API key instead of a session.
const PUBLIC_ROUTES = new Set([
  "POST /api/auth/register",
  "POST /api/auth/login",
  "POST /api/auth/forgot-password",
  "GET /api/auth/reset-password/:token",
  "POST /api/auth/reset-password/:token",
  "POST /api/auth/email-change/confirm/:token",
  "POST /api/auth/email-change/undo/:token",
  "GET /api/invitations/:token",
  // Single sign-on: the provider's answer and the one-time code it leads to are the credentials.
  "POST /api/auth/sso/start",
  "GET /api/auth/sso/callback",
  "POST /api/auth/sso/exchange",
  "GET /api/settings/plans",
  "GET /api/docs",
  "GET /api/kb",
  "GET /api/kb/categories",
  "GET /api/kb/tags",
  "GET /api/kb/:slug",
  "GET /api/agents/server-status",
]);
const isAgentRoute = (path: string) => path.startsWith("/api/agent/") || path === "/api/agents/ws";
const isBrowserSocket = (path: string) => path === "/api/ws";

let server: TestServer;
let alice: TestUser;
let bob: TestUser;
let admin: TestUser;
let routes: { method: string; path: string }[];

beforeAll(async () => {
  server = await startTestServer();
  alice = await server.registerUser({ name: "Alice" });
  bob = await server.registerUser({ name: "Bob" });
  admin = await server.registerAdmin();
  routes = server.app.routes
    .filter((r) => r.path.startsWith("/api/") && !["HEAD", "OPTIONS", "ALL", "WS"].includes(r.method))
    .map((r) => ({ method: r.method, path: r.path.length > 1 ? r.path.replace(/\/$/, "") : r.path }));
});
afterAll(() => server.close());

const SIGN_OUT = "POST /api/auth/logout";
const fill = (path: string) => path.replace(/:[a-zA-Z]+/g, "0123456789abcdef01234567");
const protectedRoutes = () => routes.filter((r) => !PUBLIC_ROUTES.has(`${r.method} ${r.path}`) && !isAgentRoute(r.path) && !isBrowserSocket(r.path));

describe("every protected route", () => {
  test("the route table was read", () => {
    expect(protectedRoutes().length).toBeGreaterThan(15);
  });

  test("answers 401 without a token or with a forged one, whatever the body", async () => {
    for (const route of protectedRoutes()) {
      const none = await server.call(route.method, fill(route.path), { body: { junk: true } });
      expect(`${route.method} ${route.path} -> ${none.status}`).toBe(`${route.method} ${route.path} -> 401`);
      const forged = await server.call(route.method, fill(route.path), { token: "abc.def.ghi", body: {} });
      expect(`${route.method} ${route.path} -> ${forged.status}`).toBe(`${route.method} ${route.path} -> 401`);
    }
  });

  test("answers 403 with the reason to a banned user", async () => {
    const banned = await server.registerUser();
    await server.call("PUT", `/api/admin/users/${banned.id}/ban`, { token: admin.token, body: { isBanned: true, banReason: "Chargeback" } });
    for (const route of protectedRoutes().filter((r) => `${r.method} ${r.path}` !== SIGN_OUT)) {
      const res = await server.call(route.method, fill(route.path), { token: banned.token, body: {} });
      expect(`${route.method} ${route.path} -> ${res.status} ${res.body.banReason}`).toBe(`${route.method} ${route.path} -> 403 Chargeback`);
    }
  });

  test("lets a banned user sign out (the banned page's 'Sign Out'): 200, and the token stops working", async () => {
    const banned = await server.registerUser();
    await server.call("PUT", `/api/admin/users/${banned.id}/ban`, { token: admin.token, body: { isBanned: true, banReason: "Chargeback" } });
    const signedOut = await server.call("POST", "/api/auth/logout", { token: banned.token });
    expect([signedOut.status, signedOut.body.message]).toEqual([200, "Signed out"]);
    expect((await server.call("GET", "/api/user/profile", { token: banned.token })).status).toBe(401);
  });
});

describe("admin routes", () => {
  test("answer 403 to a signed-in non-admin", async () => {
    const adminRoutes = routes.filter((r) => r.path.startsWith("/api/admin/") || r.path === "/api/kb/admin/all");
    expect(adminRoutes.length).toBeGreaterThanOrEqual(8);
    for (const route of adminRoutes) {
      const res = await server.call(route.method, fill(route.path), { token: alice.token, body: {} });
      expect(`${route.method} ${route.path} -> ${res.status}`).toBe(`${route.method} ${route.path} -> 403`);
    }
  });
});

describe("one user cannot read or change another's data", () => {
  test("profile, settings, databases and audit log are per user", async () => {
    await server.call("PUT", "/api/settings", { token: alice.token, body: { frequency: "weekly" } });
    const bobSettings = await server.call("GET", "/api/settings", { token: bob.token });
    expect(bobSettings.body.frequency).toBe(24);
    const bobLogs = await server.call("GET", "/api/user/audit-logs", { token: bob.token });
    expect(bobLogs.body.logs.some((l: { action: string }) => l.action === "FREQUENCY_UPDATED")).toBe(false);
    const bobProfile = await server.call("GET", "/api/user/profile", { token: bob.token });
    expect(bobProfile.body.email).toBe(bob.email);
    expect(bobProfile.body.apiKey).not.toBe(alice.apiKey);
  });
});
