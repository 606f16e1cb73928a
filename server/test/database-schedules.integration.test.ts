// Per-database schedules (issue 44) over several days of a stopped server clock: the window and
// time of day are honoured, the plan's frequency limit refuses too frequent ones, the next run is
// answered by the API, and a slot that did not run says why.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { randomBytes } from "node:crypto";
import { backups, databases, organizations, plans } from "@db/schema";
import { UPLOAD_PART_SIZE } from "@protocol/agent-protocol";
import { failBackup } from "../src/modules/backups/service";
import { runDueBackups } from "../src/modules/scheduler/service";
import { announceAgentDisconnection, type StoppedClock, startTestServer, stopServerClock, type TestServer } from "./harness";
import { registerScriptedAgent } from "./scripted-agent";

const HOUR = 3_600_000;
let server: TestServer;
let base: string;
let clock: StoppedClock;
let midnight: number;

beforeAll(async () => {
  server = await startTestServer();
  base = server.listen();
  clock = stopServerClock(server);
  // Start each test's days at a UTC midnight, so slots read as times of day.
  midnight = Math.ceil(clock.now() / (24 * HOUR)) * 24 * HOUR;
});
afterAll(() => server.close());

async function userWithDatabase(name: string) {
  const user = await server.registerUser();
  const agent = await registerScriptedAgent(base, user.apiKey, [name]);
  await agent.connect();
  const [database] = await server.ctx.db
    .select()
    .from(databases)
    .where(and(eq(databases.organizationId, user.id), eq(databases.name, name)));
  return { user, agent, database: database! };
}

const setSchedule = (token: string, id: string, body: Record<string, string | null | undefined>) =>
  server.call("PUT", `/api/settings/databases/${id}/schedule`, {
    token,
    body: { frequency: null, timeOfDay: null, windowStart: null, windowEnd: null, ...body },
  });

/** Moves the clock to `to` by half hours, running the scheduler at each; ends each backup it starts. */
async function runUntil(to: number, organizationId: string) {
  const started: number[] = [];
  while (clock.now() < to) {
    // To the next half hour (slots fall on whole minutes of a UTC day; these tests use half hours).
    const step = 30 * 60_000;
    clock.move(Math.min((Math.floor(clock.now() / step) + 1) * step, to) - clock.now());
    await runDueBackups(server.ctx);
    for (const backup of await server.ctx.db.select().from(backups).where(eq(backups.organizationId, organizationId))) {
      if (backup.status !== "pending") continue;
      started.push(clock.now()); // createdAt is the database's clock, not the server's stopped one
      await failBackup(server.ctx, backup.id, "ended by the test");
    }
  }
  return started;
}

const hoursOfDay = (times: number[]) => times.map((time) => (time - midnight) / HOUR);

describe("per-database schedules", () => {
  test("a daily backup in a 01:00–04:00 UTC window runs at 01:00 each day, and the API says when next", async () => {
    clock.move(midnight - clock.now());
    const { user, database } = await userWithDatabase("orders");
    // The first backup after the agent connects runs at once; the window starts counting after it.
    await runUntil(midnight + 60_000, user.id);
    const set = await setSchedule(user.token, database.id, { frequency: "daily", windowStart: "01:00", windowEnd: "04:00" });
    expect(set.status).toBe(200);
    const row = set.body.find((d: { id: string }) => d.id === database.id);
    expect(row.nextBackupAt).toBe(new Date(midnight + HOUR).toISOString());
    expect(row.schedule).toEqual({ frequencyHours: 24, everyHours: 24, timeOfDay: null, windowStart: "01:00", windowEnd: "04:00" });
    expect(hoursOfDay(await runUntil(midnight + 3 * 24 * HOUR, user.id))).toEqual([1, 25, 49]);
    const listed = await server.call("GET", "/api/settings/databases", { token: user.token });
    expect(listed.body[0].nextBackupAt).toBe(new Date(midnight + 73 * HOUR).toISOString());
    expect(listed.body[0].missedBackup).toBeNull();
  });

  test("a time of day moves the next run to it; a slot claimed after its window closed is missed, with the reason", async () => {
    midnight += 10 * 24 * HOUR;
    clock.move(midnight + 22 * HOUR - clock.now());
    const { user, database } = await userWithDatabase("billing");
    await runUntil(clock.now() + 60_000, user.id);
    const set = await setSchedule(user.token, database.id, { timeOfDay: "02:30", windowStart: "02:00", windowEnd: "04:00" });
    expect(set.status).toBe(200);
    expect(set.body[0].nextBackupAt).toBe(new Date(midnight + 26.5 * HOUR).toISOString());
    expect(set.body[0].schedule.everyHours).toBe(24); // the account's default frequency
    // The server is "down" through the window: its first run after it is at 06:00.
    clock.move(midnight + 30 * HOUR - clock.now());
    await runDueBackups(server.ctx);
    const [after] = await server.ctx.db.select().from(databases).where(eq(databases.id, database.id));
    expect(after!.missedBackupReason).toStartWith("Window passed");
    expect(after!.nextBackupAt!.getTime()).toBe(midnight + 50.5 * HOUR);
    expect(await server.ctx.db.select().from(backups).where(eq(backups.databaseId, database.id))).toHaveLength(1);
    // The next day's slot runs, and the missed note is cleared.
    expect(hoursOfDay(await runUntil(midnight + 52 * HOUR, user.id))).toEqual([50.5]);
    const listed = await server.call("GET", "/api/settings/databases", { token: user.token });
    expect(listed.body[0].missedBackup).toBeNull();
  });

  test("a slot whose agent is offline is recorded as missed: agent offline", async () => {
    midnight += 10 * 24 * HOUR;
    clock.move(midnight - clock.now());
    const { user, agent, database } = await userWithDatabase("events");
    await runUntil(clock.now() + 60_000, user.id);
    await setSchedule(user.token, database.id, { timeOfDay: "03:00" });
    await agent.disconnect();
    await announceAgentDisconnection(server, agent.agentId);
    clock.move(midnight + 3 * HOUR - clock.now());
    await runDueBackups(server.ctx);
    const listed = await server.call("GET", "/api/settings/databases", { token: user.token });
    expect(listed.body[0].missedBackup).toEqual({ at: new Date(midnight + 3 * HOUR).toISOString(), reason: expect.stringMatching(/^Agent offline/) });
    expect(listed.body[0].nextBackupAt).toBe(new Date(midnight + 27 * HOUR).toISOString());
  });

  test("a scheduled backup the plan's storage refuses is recorded as missed: limit reached", async () => {
    const { user, agent, database } = await userWithDatabase("archive");
    const [tiny] = await server.ctx.db
      .insert(plans)
      .values({ name: `Tiny ${Date.now()}`, price: 0, storageLimit: UPLOAD_PART_SIZE + 100, dbLimit: 1, retentionLimit: 168, frequencyLimit: 24 })
      .returning();
    await server.ctx.db.update(organizations).set({ planId: tiny!.id }).where(eq(organizations.id, user.id));
    await runDueBackups(server.ctx);
    const { backupId } = await agent.waitFor("backup");
    expect((await agent.uploadPart(backupId, 0, randomBytes(UPLOAD_PART_SIZE))).status).toBe(200);
    expect((await agent.uploadPart(backupId, 1, randomBytes(1000))).status).toBe(413);
    const listed = await server.call("GET", "/api/settings/databases", { token: user.token });
    expect(listed.body.find((d: { id: string }) => d.id === database.id).missedBackup.reason).toStartWith("Limit reached: Storage limit exceeded");
  });

  test("the plan's frequency limit refuses too frequent schedules; malformed windows are 400; others' databases 404", async () => {
    const { user, agent, database } = await userWithDatabase("logs");
    const hourly = await setSchedule(user.token, database.id, { frequency: "hourly" });
    expect(hourly.status).toBe(403);
    expect(hourly.body).toEqual({
      code: "PLAN_LIMIT",
      message: "Your Free plan does not allow hourly backups. Choose a less frequent schedule or upgrade your plan.",
    });
    for (const body of [
      { windowStart: "25:00", windowEnd: "04:00" },
      { windowStart: "01:00" },
      { windowStart: "01:00", windowEnd: "01:00" },
      { timeOfDay: "05:00", windowStart: "01:00", windowEnd: "04:00" },
      { timeOfDay: "1:00" },
      { frequency: "fortnightly" },
    ]) {
      const answer = await setSchedule(user.token, database.id, body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.message).toBeString();
    }
    // `dbvault-agent status` reads the database's own frequency, not the account's (daily).
    expect((await setSchedule(user.token, database.id, { frequency: "weekly" })).status).toBe(200);
    const status = await server.call("GET", "/api/agent/status", { headers: agent.headers() });
    expect(status.body.databases[0]).toMatchObject({ name: "logs", everyHours: 168 });
    const stranger = await server.registerUser();
    expect((await setSchedule(stranger.token, database.id, { frequency: "weekly" })).status).toBe(404);
  });
});
