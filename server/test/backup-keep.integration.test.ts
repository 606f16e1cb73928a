// Keep forever and labels over real HTTP on PGlite: retention passes a kept backup by (it stays
// counted in storage), deleting it by hand asks to un-keep it first, Protect backups refuses the
// un-keeping, labels are checked (length, control characters), another organization's backup is
// not found, and a Viewer cannot change either.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { auditLogs, backups, organizations } from "@db/schema";
import { totpCode } from "../../testkit/totp";
import { BackupKeptError, deleteBackup } from "../src/modules/backups/deletion";
import { applyRetention } from "../src/modules/retention/service";
import { startTestServer, type TestServer, type TestUser } from "./harness";
import { createTeam } from "./teams";

// Two-factor sign-in for Protect backups takes several requests a test.
setDefaultTimeout(60_000);

const HOUR = 3_600_000;
let server: TestServer;
let offsetMs = 0;
const now = () => Date.now() + offsetMs;

beforeAll(async () => {
  server = await startTestServer();
  server.ctx.now = () => new Date(now());
}, 60_000);
afterAll(async () => {
  await server.close();
});

async function insertBackup(organizationId: string, ageMs: number, status: "completed" | "failed" | "in-progress" = "completed") {
  const [row] = await server.ctx.db
    .insert(backups)
    .values({ organizationId, databaseName: "orders", status, size: 1000, createdAt: new Date(now() - ageMs), completedAt: new Date(now() - ageMs) })
    .returning();
  // Counted in the organization's storage as a completed upload would be.
  if (status === "completed") {
    const [org] = await server.ctx.db.select().from(organizations).where(eq(organizations.id, organizationId));
    await server.ctx.db
      .update(organizations)
      .set({ storageUsed: org!.storageUsed + 1000 })
      .where(eq(organizations.id, organizationId));
  }
  return row!;
}

const exists = async (id: string) => (await server.ctx.db.select().from(backups).where(eq(backups.id, id))).length === 1;
const storageUsed = async (organizationId: string) =>
  (await server.ctx.db.select().from(organizations).where(eq(organizations.id, organizationId)))[0]!.storageUsed;
const keep = (user: TestUser, id: string, kept: unknown, headers?: Record<string, string>) =>
  server.call("PUT", `/api/backups/${id}/keep`, { token: user.token, body: { kept }, headers });
const label = (user: TestUser, id: string, value: unknown, headers?: Record<string, string>) =>
  server.call("PUT", `/api/backups/${id}/label`, { token: user.token, body: { label: value }, headers });

describe("keep forever", () => {
  test("retention passes a kept backup by and still counts it in storage; un-kept, the next pass takes it", async () => {
    const user = await server.registerUser({ name: "Kim Keeper" });
    const kept = await insertBackup(user.id, 200 * HOUR);
    const expired = await insertBackup(user.id, 190 * HOUR);
    await insertBackup(user.id, 1 * HOUR);

    const res = await keep(user, kept.id, true);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: kept.id, kept: true, keptBy: "Kim Keeper" });
    expect(Math.abs(Date.parse(res.body.keptAt) - now())).toBeLessThan(60_000);

    const preview = await server.call("GET", "/api/settings/retention-preview", { token: user.token });
    expect(preview.status).toBe(200);
    expect(preview.body.backups.find((row: { id: string }) => row.id === kept.id)).toMatchObject({ keep: true, reasons: ["kept-forever"] });

    expect(await applyRetention(server.ctx, { organizationId: user.id })).toBe(1);
    expect(await exists(kept.id)).toBe(true);
    expect(await exists(expired.id)).toBe(false);
    expect(await storageUsed(user.id)).toBe(2000);

    expect((await keep(user, kept.id, false)).body.kept).toBe(false);
    expect(await applyRetention(server.ctx, { organizationId: user.id })).toBe(1);
    expect(await exists(kept.id)).toBe(false);
    expect(await storageUsed(user.id)).toBe(1000);

    const actions = (await server.ctx.db.select().from(auditLogs).where(eq(auditLogs.organizationId, user.id))).map((row) => row.action);
    expect(actions.filter((action) => action === "BACKUP_KEPT" || action === "BACKUP_UNKEPT")).toEqual(["BACKUP_KEPT", "BACKUP_UNKEPT"]);
  });

  test("deleting a kept backup by hand asks to un-keep it first", async () => {
    const user = await server.registerUser();
    const backup = await insertBackup(user.id, 2 * HOUR);
    expect((await keep(user, backup.id, true)).status).toBe(200);

    const refused = await server.call("DELETE", `/api/backups/${backup.id}`, { token: user.token });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe("This backup is kept forever. Turn Keep forever off first, then delete it.");
    expect(await exists(backup.id)).toBe(true);

    expect((await keep(user, backup.id, false)).status).toBe(200);
    expect((await server.call("DELETE", `/api/backups/${backup.id}`, { token: user.token })).status).toBe(200);
  });

  test("a backup kept after retention chose it stays: the delete reads the mark under the row lock", async () => {
    const user = await server.registerUser();
    const backup = await insertBackup(user.id, 200 * HOUR);
    expect((await keep(user, backup.id, true)).status).toBe(200);
    // Retention read the row before it was kept.
    await expect(deleteBackup(server.ctx, { ...backup, kept: false }, "auto")).rejects.toBeInstanceOf(BackupKeptError);
    expect(await exists(backup.id)).toBe(true);
    expect(await storageUsed(user.id)).toBe(1000);
  });

  test("only a completed backup can be kept", async () => {
    const user = await server.registerUser();
    for (const status of ["failed", "in-progress"] as const) {
      const backup = await insertBackup(user.id, HOUR, status);
      const res = await keep(user, backup.id, true);
      expect(res.status).toBe(409);
      expect(res.body.message).toBe("Only a completed backup can be kept forever: this one holds no data.");
    }
  });

  test("Protect backups lets a backup be kept but refuses to un-keep it", async () => {
    const owner = await server.registerUser();
    const setup = await server.call("POST", "/api/auth/two-factor/setup", { token: owner.token, body: { password: owner.password } });
    const enabled = await server.call("POST", "/api/auth/two-factor/enable", { token: owner.token, body: { code: totpCode(setup.body.secret, now()) } });
    expect(enabled.status).toBe(200);
    const token = enabled.body.token as string;
    offsetMs += 30_000;
    const on = await server.call("POST", "/api/settings/backup-protection", {
      token,
      body: { password: owner.password, code: totpCode(setup.body.secret, now()) },
    });
    expect(on.status).toBe(200);

    const backup = await insertBackup(owner.id, HOUR);
    const kept = await keep({ ...owner, token }, backup.id, true);
    expect(kept.status).toBe(200);
    const refused = await keep({ ...owner, token }, backup.id, false);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe("BACKUPS_PROTECTED");
    expect(refused.body.message).toStartWith(
      "Protect backups is on for this account: a backup kept forever cannot be un-kept, as retention could then delete it.",
    );
    expect((await server.ctx.db.select().from(backups).where(eq(backups.id, backup.id)))[0]!.kept).toBe(true);
  });
});

describe("labels", () => {
  test("set, shown in the list, trimmed, removed when blank; audited", async () => {
    const user = await server.registerUser();
    const backup = await insertBackup(user.id, HOUR);
    const res = await label(user, backup.id, "  before migration 42 ");
    expect(res.status).toBe(200);
    expect(res.body.label).toBe("before migration 42");
    const list = await server.call("GET", "/api/backups", { token: user.token });
    expect(list.body.find((row: { id: string }) => row.id === backup.id).label).toBe("before migration 42");
    // 100 characters, counted as characters (an emoji is one), is the most.
    expect((await label(user, backup.id, "🚀".repeat(100))).status).toBe(200);
    expect((await label(user, backup.id, "   ")).body.label).toBeNull();
    const audit = await server.ctx.db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.organizationId, user.id), eq(auditLogs.action, "BACKUP_LABELED")));
    expect(audit.map((row) => (row.details as { label: string | null }).label)).toEqual(["before migration 42", "🚀".repeat(100), null]);
  });

  test("a label too long, with control characters or not text is refused with a 400 that says why", async () => {
    const user = await server.registerUser();
    const backup = await insertBackup(user.id, HOUR);
    const tooLong = await label(user, backup.id, "x".repeat(101));
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.message).toBe("label must be at most 100 characters.");
    // NUL is refused before the route by the server's own input check, in its own words.
    expect((await label(user, backup.id, "nul\u0000")).status).toBe(400);
    for (const bad of ["line\nbreak", "tab\there", "esc\u001b[31m", "next\u0085line"]) {
      const res = await label(user, backup.id, bad);
      expect(res.status).toBe(400);
      expect(res.body.message).toBe("label must be one line of text, without control characters (tabs, line breaks).");
    }
    const notText = await label(user, backup.id, 42);
    expect(notText.status).toBe(400);
    expect(notText.body.message).toBe("label must be text (at most 100 characters) or null");
    const notBoolean = await keep(user, backup.id, "yes");
    expect(notBoolean.status).toBe(400);
    expect(notBoolean.body.message).toBe("kept must be true or false");
    expect((await server.ctx.db.select().from(backups).where(eq(backups.id, backup.id)))[0]).toMatchObject({ label: null, kept: false });
  });
});

describe("ownership and roles", () => {
  test("another organization's backup is not found, and stays as it was", async () => {
    const owner = await server.registerUser();
    const stranger = await server.registerUser();
    const backup = await insertBackup(owner.id, HOUR);
    for (const res of [await keep(stranger, backup.id, true), await label(stranger, backup.id, "mine")]) {
      expect(res.status).toBe(404);
      expect(res.body.message).toBe("Backup not found.");
    }
    expect((await server.ctx.db.select().from(backups).where(eq(backups.id, backup.id)))[0]).toMatchObject({ label: null, kept: false });
  });

  test("a Viewer cannot keep or label; an Operator can", async () => {
    const owner = await server.registerUser();
    const viewer = await server.registerUser();
    const operator = await server.registerUser();
    const team = await createTeam(server, "Keepers", [
      { user: owner, role: "owner" },
      { user: viewer, role: "viewer" },
      { user: operator, role: "operator" },
    ]);
    const backup = await insertBackup(team.id, HOUR);
    const inTeam = { "X-Organization-Id": team.id };
    expect((await keep(viewer, backup.id, true, inTeam)).status).toBe(403);
    expect((await label(viewer, backup.id, "x", inTeam)).status).toBe(403);
    expect((await keep(operator, backup.id, true, inTeam)).body.kept).toBe(true);
    expect((await label(operator, backup.id, "release 3.1", inTeam)).body.label).toBe("release 3.1");
  });
});
