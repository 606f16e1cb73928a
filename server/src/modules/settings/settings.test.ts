import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { plans, organizations } from "@db/schema";
import { startTestServer, type TestServer, type TestUser } from "../../../test/harness";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

async function moveToPlan(user: TestUser, name: string) {
  const [plan] = await server.ctx.db.select().from(plans).where(eq(plans.name, name));
  await server.ctx.db.update(organizations).set({ planId: plan!.id }).where(eq(organizations.id, user.id));
}

describe("GET/PUT /api/settings", () => {
  test("a body that is not a JSON object, or a field of the wrong kind, is refused (400 naming it) and changes nothing", async () => {
    const user = await server.registerUser();
    const before = (await server.call("GET", "/api/settings", { token: user.token })).body;
    const notObject = "The request body must be a JSON object (Content-Type: application/json).";
    const json = { "content-type": "application/json" };
    const cases: [name: string, headers: Record<string, string>, body: string | undefined, message: string][] = [
      ["a string", json, JSON.stringify("daily"), notObject],
      ["null", json, "null", notObject],
      ["an array", json, JSON.stringify([{ frequency: "hourly" }]), notObject],
      ["a number", json, "12345", notObject],
      ["form data", { "content-type": "application/x-www-form-urlencoded" }, "frequency=hourly&retention=24", notObject],
      ["plain text", { "content-type": "text/plain" }, "frequency=hourly", notObject],
      ["no body", {}, undefined, notObject],
      [
        "notifications: 12345",
        json,
        JSON.stringify({ notifications: 12345 }),
        "notifications must hold backupSuccess, backupFailure and agentDisconnection as true or false",
      ],
      [
        "notifications: a string",
        json,
        JSON.stringify({ frequency: "hourly", notifications: "all" }),
        "notifications must hold backupSuccess, backupFailure and agentDisconnection as true or false",
      ],
      ["gfs: []", json, JSON.stringify({ gfs: [] }), "gfs must hold daily (0-90), weekly (0-104) and monthly (0-120) as whole numbers"],
      ["an unknown field", json, JSON.stringify({ bogus: 1 }), "bogus is not a field here"],
      ["an unknown field beside known ones", json, JSON.stringify({ frequency: "hourly", retentionDays: 1 }), "retentionDays is not a field here"],
    ];
    for (const [name, headers, body, message] of cases) {
      for (const path of ["/api/settings", "/api/settings/"]) {
        const refused = await server.call("PUT", path, { token: user.token, headers, rawBody: body });
        expect({ name, path, status: refused.status, message: refused.body.message?.split(":")[0] }).toEqual({
          name,
          path,
          status: 400,
          message: message.split(":")[0],
        });
      }
    }
    expect((await server.call("GET", "/api/settings", { token: user.token })).body).toEqual(before);
  });

  test("defaults: daily, 3 days, every notification on, age retention, no drills", async () => {
    const user = await server.registerUser();
    const res = await server.call("GET", "/api/settings", { token: user.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      frequency: 24,
      retention: 72,
      notifications: { backupSuccess: true, backupFailure: true, agentDisconnection: true },
      notificationEmail: null,
      retentionMode: "age",
      gfs: { daily: 7, weekly: 4, monthly: 6 },
      drillFrequency: "off",
      nextDrillAt: null,
    });
  });

  test("GFS retention and the drill schedule are saved, audited and checked", async () => {
    const user = await server.registerUser();
    const before = Date.now();
    const res = await server.call("PUT", "/api/settings", {
      token: user.token,
      body: { retentionMode: "gfs", gfs: { daily: 5, weekly: 3, monthly: 2 }, drillFrequency: "weekly" },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ retentionMode: "gfs", gfs: { daily: 5, weekly: 3, monthly: 2 }, drillFrequency: "weekly" });
    // The first scheduled drill is a week from now.
    const nextDrill = Date.parse(res.body.nextDrillAt);
    expect(nextDrill).toBeGreaterThanOrEqual(before + 168 * 3_600_000 - 1000);
    expect(nextDrill).toBeLessThanOrEqual(Date.now() + 168 * 3_600_000 + 1000);
    const logs = await server.call("GET", "/api/user/audit-logs", { token: user.token });
    const retention = logs.body.logs.find((l: { action: string }) => l.action === "RETENTION_UPDATED");
    expect(retention.details).toEqual({ from: 72, to: 72, mode: "gfs", gfs: { daily: 5, weekly: 3, monthly: 2 } });
    expect(logs.body.logs.find((l: { action: string }) => l.action === "DRILL_SETTINGS_UPDATED").details).toEqual({ from: "off", to: "weekly" });

    const off = await server.call("PUT", "/api/settings", { token: user.token, body: { drillFrequency: "off" } });
    expect(off.body).toMatchObject({ drillFrequency: "off", nextDrillAt: null, retentionMode: "gfs" });

    for (const [body, message] of [
      [{ gfs: { daily: 0, weekly: 0, monthly: 0 } }, "GFS retention must keep at least one daily, weekly or monthly backup."],
      [{ gfs: { daily: 91, weekly: 1, monthly: 1 } }, "gfs.daily must be a whole number from 0 to 90"],
      [{ gfs: { daily: 1.5, weekly: 1, monthly: 1 } }, "gfs.daily must be a whole number from 0 to 90"],
      [{ gfs: { daily: 1 } }, "gfs.weekly must be a whole number from 0 to 104"],
      [{ retentionMode: "forever" }, "retentionMode must be age or gfs"],
      [{ drillFrequency: "daily" }, "drillFrequency must be off, weekly or monthly"],
    ] as const) {
      const refused = await server.call("PUT", "/api/settings", { token: user.token, body });
      expect({ status: refused.status, message: refused.body.message }).toEqual({ status: 400, message });
    }
    expect((await server.call("GET", "/api/settings", { token: user.token })).body.gfs).toEqual({ daily: 5, weekly: 3, monthly: 2 });
  });

  test("saves the frequency word as hours and the retention in hours, with audit entries", async () => {
    const user = await server.registerUser();
    const res = await server.call("PUT", "/api/settings", {
      token: user.token,
      body: { frequency: "weekly", retention: 168, notifications: { backupSuccess: false } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ frequency: 168, retention: 168, notifications: { backupSuccess: false, backupFailure: true } });
    expect((await server.call("GET", "/api/settings", { token: user.token })).body.frequency).toBe(168);
    const logs = await server.call("GET", "/api/user/audit-logs", { token: user.token });
    const actions = logs.body.logs.map((l: { action: string }) => l.action).sort();
    expect(actions).toEqual(["FREQUENCY_UPDATED", "NOTIFICATIONS_UPDATED", "RETENTION_UPDATED", "SETTINGS_UPDATED"]);
  });

  test("options beyond the plan are refused with a clear message and nothing changes", async () => {
    const user = await server.registerUser();
    const hourly = await server.call("PUT", "/api/settings", { token: user.token, body: { frequency: "hourly", retention: 168 } });
    expect(hourly.status).toBe(403);
    expect(hourly.body.message).toBe("Your Free plan does not allow hourly backups. Choose a less frequent schedule or upgrade your plan.");
    const long = await server.call("PUT", "/api/settings", { token: user.token, body: { retention: 720 } });
    expect(long.status).toBe(403);
    expect(long.body.message).toContain("at most 7 days");
    expect((await server.call("GET", "/api/settings", { token: user.token })).body).toMatchObject({ frequency: 24, retention: 72 });

    await moveToPlan(user, "Pro");
    const allowed = await server.call("PUT", "/api/settings", { token: user.token, body: { frequency: "hourly", retention: 2160 } });
    expect(allowed.status).toBe(200);
    expect(allowed.body).toMatchObject({ frequency: 1, retention: 2160 });
  });

  test.each([
    [{ frequency: "fortnightly" }, "frequency must be one of hourly, daily, weekly, monthly"],
    [{ retention: 100 }, "retention must be one of 72, 168, 336, 720, 2160, 4320 hours"],
    [{ retention: "seventy" }, "retention must be one of 72, 168, 336, 720, 2160, 4320 hours"],
    [{ notificationEmail: "not-mail" }, "Please enter a valid email address"],
  ])("rejects %j", async (body, message) => {
    const user = await server.registerUser();
    const res = await server.call("PUT", "/api/settings", { token: user.token, body });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(message);
  });

  test("a downgrade brings settings back within the new plan", async () => {
    const user = await server.registerUser();
    await moveToPlan(user, "Pro");
    await server.call("PUT", "/api/settings", { token: user.token, body: { frequency: "hourly", retention: 2160 } });
    const [free] = await server.ctx.db.select().from(plans).where(eq(plans.name, "Free"));
    const res = await server.call("PUT", "/api/user/plan", { token: user.token, body: { plan: free!.id } });
    expect(res.status).toBe(200);
    expect((await server.call("GET", "/api/settings", { token: user.token })).body).toMatchObject({ frequency: 24, retention: 168 });
  });
});

describe("API key", () => {
  test("regenerating replaces the key at once and is audited", async () => {
    const user = await server.registerUser();
    const res = await server.call("POST", "/api/settings/regenerate-api-key", { token: user.token, body: { password: user.password } });
    expect(res.status).toBe(200);
    expect(res.body.apiKey).toStartWith("dbv_");
    expect(res.body.apiKey).not.toBe(user.apiKey);
    const profile = await server.call("GET", "/api/user/profile", { token: user.token });
    expect(profile.body.apiKey).toBe(res.body.apiKey);
    const [row] = await server.ctx.db.select().from(organizations).where(eq(organizations.id, user.id));
    // Stored neither in the clear nor as a plain hash of the key.
    expect(JSON.stringify(row)).not.toContain(res.body.apiKey);
    expect(row!.apiKeyHash).toBe(server.ctx.apiKeys.hash(res.body.apiKey));
    expect(row!.apiKeyHash).not.toBe(new Bun.CryptoHasher("sha256").update(res.body.apiKey).digest("hex"));
    const logs = await server.call("GET", "/api/user/audit-logs?action=API_KEY_REGENERATED", { token: user.token });
    expect(logs.body.logs).toHaveLength(1);
  });
});

describe("test notification", () => {
  test("mails the notification address, or the account's", async () => {
    const user = await server.registerUser();
    const res = await server.call("POST", "/api/settings/test-notification", { token: user.token });
    expect(res.status).toBe(200);
    expect(res.body.message).toBe("Test notification sent successfully. Please check your email.");
    expect(server.sentMail.at(-1)).toMatchObject({ to: user.email, subject: "DBVault test notification" });
    await server.call("PUT", "/api/settings", { token: user.token, body: { notificationEmail: "Ops@Example.com" } });
    await server.call("POST", "/api/settings/test-notification", { token: user.token });
    expect(server.sentMail.at(-1)!.to).toBe("ops@example.com");
  });
});
