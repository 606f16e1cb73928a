import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../../../test/harness";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const plansByName = async () => {
  const res = await server.call("GET", "/api/settings/plans");
  return Object.fromEntries((res.body as { name: string; _id: string }[]).map((p) => [p.name, p])) as Record<string, { _id: string }>;
};

describe("GET /api/user/profile and /api/user/plan", () => {
  test("the profile carries name, email, apiKey, plan id and storage used", async () => {
    const user = await server.registerUser({ name: "Grace Hopper" });
    const res = await server.call("GET", "/api/user/profile", { token: user.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: "Grace Hopper", email: user.email, apiKey: user.apiKey, storageUsed: 0 });
    expect(res.body.plan).toBe((await plansByName()).Free!._id);
    expect(res.body.passwordHash).toBeUndefined();
    expect(res.body.apiKeyHash).toBeUndefined();
  });

  test("a new account is on the Free plan with its limits", async () => {
    const user = await server.registerUser();
    const res = await server.call("GET", "/api/user/plan", { token: user.token });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: "Free", storageLimit: 1024 ** 3, dbLimit: 1, frequencyLimit: 24, retentionLimit: 168 });
  });
});

describe("PUT /api/user/plan", () => {
  test("a paid plan cannot be chosen by the client", async () => {
    const user = await server.registerUser();
    const plans = await plansByName();
    const res = await server.call("PUT", "/api/user/plan", { token: user.token, body: { plan: plans.Pro!._id } });
    expect(res.status).toBe(403);
    expect(res.body.message).toContain("Only free plans");
    expect((await server.call("GET", "/api/user/plan", { token: user.token })).body.name).toBe("Free");
  });

  test("switching to a free plan answers the spec's message and logs PLAN_CHANGED", async () => {
    const user = await server.registerUser();
    const plans = await plansByName();
    const res = await server.call("PUT", "/api/user/plan", { token: user.token, body: { plan: plans.Free!._id } });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe("Plan updated to Free!");
  });

  test("an unknown or malformed plan id is a 4xx, not a 500", async () => {
    const user = await server.registerUser();
    expect((await server.call("PUT", "/api/user/plan", { token: user.token, body: { plan: "0123456789abcdef01234567" } })).status).toBe(404);
    expect((await server.call("PUT", "/api/user/plan", { token: user.token, body: { plan: 7 } })).status).toBe(400);
    expect((await server.call("PUT", "/api/user/plan", { token: user.token, body: {} })).status).toBe(400);
  });
});

// PUT /api/user/update: email-change/email-change.test.ts (a new e-mail is confirmed by a link).

describe("PUT /api/user/password", () => {
  test("needs the current password, then old tokens stop working and the new password signs in", async () => {
    const user = await server.registerUser();
    const wrong = await server.call("PUT", "/api/user/password", { token: user.token, body: { currentPassword: "nope-nope", newPassword: "brand-new-1" } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toBe("Current password is incorrect");

    const ok = await server.call("PUT", "/api/user/password", { token: user.token, body: { currentPassword: user.password, newPassword: "brand-new-1" } });
    expect(ok.status).toBe(200);
    expect(ok.body.message).toBe("Password updated successfully!");
    expect((await server.call("GET", "/api/user/profile", { token: user.token })).status).toBe(401);
    expect((await server.call("GET", "/api/user/profile", { token: ok.body.token })).status).toBe(200);
    expect((await server.call("POST", "/api/auth/login", { body: { email: user.email, password: user.password } })).status).toBe(401);
    expect((await server.call("POST", "/api/auth/login", { body: { email: user.email, password: "brand-new-1" } })).status).toBe(200);
  });

  test("validates the new password", async () => {
    const user = await server.registerUser();
    const res = await server.call("PUT", "/api/user/password", { token: user.token, body: { currentPassword: user.password, newPassword: "123" } });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe("Password must be at least 6 characters");
  });
});

describe("audit log", () => {
  test("pages 20 at a time, newest first, with an action filter", async () => {
    const user = await server.registerUser();
    for (let i = 0; i < 23; i++) {
      const retention = i % 2 === 0 ? 168 : 72;
      await server.call("PUT", "/api/settings", { token: user.token, body: { retention } });
    }
    const first = await server.call("GET", "/api/user/audit-logs?page=1&action=", { token: user.token });
    expect(first.status).toBe(200);
    expect(first.body.logs).toHaveLength(20);
    expect(first.body.pagination).toMatchObject({ page: 1, pages: 3, total: 46 });
    const times = first.body.logs.map((l: { timestamp: string }) => Date.parse(l.timestamp));
    expect([...times].sort((x, y) => y - x)).toEqual(times);

    const filtered = await server.call("GET", "/api/user/audit-logs?page=2&action=RETENTION_UPDATED", { token: user.token });
    expect(filtered.body.pagination).toMatchObject({ page: 2, pages: 2, total: 23 });
    expect(filtered.body.logs.every((l: { action: string }) => l.action === "RETENTION_UPDATED")).toBe(true);

    const all = await server.call("GET", "/api/user/audit-logs?action=all", { token: user.token });
    expect(all.body.pagination.total).toBe(46);
  });

  test("bad page or action values are a 400", async () => {
    const user = await server.registerUser();
    expect((await server.call("GET", "/api/user/audit-logs?page=0", { token: user.token })).status).toBe(400);
    expect((await server.call("GET", "/api/user/audit-logs?page=abc", { token: user.token })).status).toBe(400);
    expect((await server.call("GET", "/api/user/audit-logs?action=DROP_TABLE", { token: user.token })).status).toBe(400);
  });

  test("audit actions lists every action name", async () => {
    const user = await server.registerUser();
    const res = await server.call("GET", "/api/user/audit-actions", { token: user.token });
    expect(res.status).toBe(200);
    expect(res.body).toContain("BACKUP_CREATED");
    expect(res.body).toContain("STORAGE_LIMIT_EXCEEDED");
    // The spec's 20 actions, plus BACKUP_SKIPPED (a slot skipped while the agent is offline) and AGENT_REMOVED.
    expect(res.body).toContain("BACKUP_SKIPPED");
    expect(res.body).toContain("AGENT_REMOVED");
    expect(res.body).toContain("TWO_FACTOR_ENABLED");
    // Trust (issue 14): verification, anomalies and drills.
    for (const action of [
      "BACKUP_VERIFIED",
      "BACKUP_VERIFICATION_FAILED",
      "BACKUP_ANOMALY",
      "ANOMALY_RESOLVED",
      "DRILL_REQUESTED",
      "DRILL_COMPLETED",
      "DRILL_FAILED",
      "DRILL_SETTINGS_UPDATED",
    ]) {
      expect(res.body).toContain(action);
    }
    // Webhooks (issue 14).
    expect(res.body).toContain("WEBHOOK_CREATED");
    expect(res.body).toContain("WEBHOOK_DELETED");
    // Every name once: the filter menu lists each action a single time.
    expect(new Set(res.body).size).toBe(res.body.length);
    // E-mail changes (issue 28): asked, confirmed (EMAIL_CHANGED), undone.
    for (const action of ["EMAIL_CHANGE_REQUESTED", "EMAIL_CHANGED", "EMAIL_CHANGE_UNDONE"]) expect(res.body).toContain(action);
    // Agents set up again on their machine, and renamed (issue 29).
    for (const action of ["AGENT_REREGISTERED", "AGENT_RENAMED"]) expect(res.body).toContain(action);
    // A user let a machine register an existing agent again without its credentials (issue 41).
    expect(res.body).toContain("AGENT_SETUP_APPROVED");
    // API tokens for automation (issue 30): created and revoked.
    for (const action of ["API_TOKEN_CREATED", "API_TOKEN_REVOKED"]) expect(res.body).toContain(action);
    // Protect backups (issue 27): on, asked off, cancelled, off once the wait is over.
    for (const action of ["BACKUP_PROTECTION_ON", "BACKUP_PROTECTION_OFF_REQUESTED", "BACKUP_PROTECTION_OFF_CANCELLED", "BACKUP_PROTECTION_OFF"]) {
      expect(res.body).toContain(action);
    }
    // Single sign-on (issue 30): an owner's connection saved or removed, and each sign-in through it.
    for (const action of ["SSO_CONFIGURED", "SSO_REMOVED", "SSO_SIGNED_IN"]) expect(res.body).toContain(action);
    // Teams (issue 30): organizations and every membership change.
    for (const action of [
      "ORGANIZATION_CREATED",
      "ORGANIZATION_RENAMED",
      "ORGANIZATION_DELETED",
      "MEMBER_INVITED",
      "INVITATION_ACCEPTED",
      "INVITATION_REVOKED",
      "MEMBER_ROLE_CHANGED",
      "MEMBER_REMOVED",
      "MEMBER_LEFT",
      "OWNERSHIP_TRANSFERRED",
    ]) {
      expect(res.body).toContain(action);
    }
    // Issue 41: a domain proved for single sign-on, and a set-up code approved for an agent.
    for (const action of ["SSO_DOMAIN_VERIFIED", "AGENT_SETUP_APPROVED"]) expect(res.body).toContain(action);
    // Issue 44: keep forever and labels.
    for (const action of ["BACKUP_KEPT", "BACKUP_UNKEPT", "BACKUP_LABELED"]) expect(res.body).toContain(action);
    expect(res.body).toHaveLength(64);
  });
});
