// "Protect backups" (Settings → Security) plays the attacks it is for: with the policy on, the
// user's own session (as a thief holding it), an admin and the API key cannot delete a kept
// backup, delete the account or shorten retention; each refusal answers 409 with the date the
// change becomes possible. Turning it off waits 7 days on the server's clock (ctx.now, moved by
// the test), is announced at once through real SMTP (testkit/smtp-sink) and a real webhook
// receiver on loopback, and can be cancelled.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { auditLogs, backups, databases, users } from "@db/schema";
import { startSmtpSink, type SmtpSink } from "../../testkit/smtp-sink-client";
import { totpCode } from "../../testkit/totp";
import { waitUntil } from "../../testkit/wait-until";
import { startWebhookReceiver, type WebhookReceiver } from "../../testkit/webhook-receiver";
import { runMaintenance } from "../src/modules/scheduler/service";
import { startTestServer, type TestServer, type TestUser } from "./harness";

// Each test signs in with two factors several times over real HTTP and SMTP: slow on a busy machine.
setDefaultTimeout(60_000);

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
let server: TestServer;
let smtp: SmtpSink;
let receiver: WebhookReceiver;
let offsetMs = 0;
const now = () => Date.now() + offsetMs;
const nextStep = () => void (offsetMs += 30_000);

beforeAll(async () => {
  smtp = await startSmtpSink();
  receiver = startWebhookReceiver();
  server = await startTestServer({ SMTP_URL: smtp.smtpUrl, WEBHOOK_ALLOW_PRIVATE: "true" });
  server.ctx.now = () => new Date(now());
}, 60_000);
afterAll(async () => {
  receiver.close();
  smtp.stop();
  await server.close();
});

type Owner = TestUser & { seed: string };

/** A user with two-factor sign-in on, signed in with both factors (the token is not re-authenticated). */
async function ownerWithTwoFactor(): Promise<Owner> {
  const user = await server.registerUser();
  const setup = await server.call("POST", "/api/auth/two-factor/setup", { token: user.token, body: { password: user.password } });
  const enabled = await server.call("POST", "/api/auth/two-factor/enable", { token: user.token, body: { code: totpCode(setup.body.secret, now()) } });
  expect(enabled.status).toBe(200);
  nextStep();
  return { ...user, token: enabled.body.token, seed: setup.body.secret };
}

/** The password and a fresh code, as the owner types them to confirm a security change. */
function credentials(owner: Owner) {
  nextStep();
  return { password: owner.password, code: totpCode(owner.seed, now()) };
}

async function protect(owner: Owner) {
  const res = await server.call("POST", "/api/settings/backup-protection", { token: owner.token, body: credentials(owner) });
  expect(res.status).toBe(200);
  expect(res.body.protection.state).toBe("on");
}

async function completedBackup(owner: TestUser, ageMs: number, status: "completed" | "failed" = "completed") {
  const [row] = await server.ctx.db
    .insert(backups)
    .values({ organizationId: owner.id, databaseName: "orders", status, size: 1000, createdAt: new Date(now() - ageMs) })
    .returning();
  return row!;
}

const backupExists = async (id: string) => (await server.ctx.db.select().from(backups).where(eq(backups.id, id))).length === 1;
const auditActions = async (userId: string) =>
  (await server.ctx.db.select().from(auditLogs).where(eq(auditLogs.organizationId, userId)))
    .map((row) => row.action)
    .filter((a) => a.startsWith("BACKUP_PROTECTION"));
const utc = (ms: number) => `${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;

describe("turning Protect backups on", () => {
  test("needs two-factor sign-in, then a re-authentication", async () => {
    const plain = await server.registerUser();
    const refused = await server.call("POST", "/api/settings/backup-protection", { token: plain.token, body: { password: plain.password } });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe(
      "Turn two-factor sign-in on first (Settings → Security): Protect backups needs it, so a stolen password alone cannot undo it.",
    );
    expect((await server.call("GET", "/api/settings/backup-protection", { token: plain.token })).body.state).toBe("off");

    const owner = await ownerWithTwoFactor();
    const unconfirmed = await server.call("POST", "/api/settings/backup-protection", { token: owner.token, body: {} });
    expect(unconfirmed.status).toBe(403);
    expect(unconfirmed.body.code).toBe("REAUTHENTICATION_REQUIRED");
    await protect(owner);
    expect((await server.call("GET", "/api/settings/backup-protection", { token: owner.token })).body).toMatchObject({ state: "on", offAt: null, waitDays: 7 });
    expect(await auditActions(owner.id)).toEqual(["BACKUP_PROTECTION_ON"]);

    // The protection rests on the second factor: it cannot be turned off underneath it.
    const twoFactorOff = await server.call("POST", "/api/auth/two-factor/disable", { token: owner.token, body: credentials(owner) });
    expect(twoFactorOff.status).toBe(409);
    expect(twoFactorOff.body.code).toBe("BACKUPS_PROTECTED");
    expect(twoFactorOff.body.message).toStartWith(
      "Protect backups is on for this account, and it needs two-factor sign-in: that stays on until the protection is off",
    );
    expect((await server.call("GET", "/api/auth/two-factor", { token: owner.token })).body.enabled).toBe(true);
  });
});

describe("with the policy on", () => {
  test("nobody deletes a kept backup: not the owner's session, not the API key, not an admin deleting the account", async () => {
    const owner = await ownerWithTwoFactor();
    const kept = await completedBackup(owner, 1 * HOUR);
    const expired = await completedBackup(owner, 100 * HOUR);
    const failed = await completedBackup(owner, 1 * HOUR, "failed");
    await protect(owner);

    const refused = await server.call("DELETE", `/api/backups/${kept.id}`, { token: owner.token });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe("BACKUPS_PROTECTED");
    const until = kept.createdAt.getTime() + 72 * HOUR;
    expect(refused.body.message).toBe(
      `Protect backups is on for this account: this backup is kept until ${utc(until)}, when its retention lets it go. It cannot be deleted before then.`,
    );
    expect(Date.parse(refused.body.possibleFrom)).toBe(until);
    // The API key authenticates agents only: as a bearer token it opens no user route.
    expect((await server.call("DELETE", `/api/backups/${kept.id}`, { token: owner.apiKey })).status).toBe(401);
    expect(await backupExists(kept.id)).toBe(true);
    // What retention already lets go (and a failed backup, which holds no data) can still be deleted.
    expect((await server.call("DELETE", `/api/backups/${expired.id}`, { token: owner.token })).status).toBe(200);
    expect((await server.call("DELETE", `/api/backups/${failed.id}`, { token: owner.token })).status).toBe(200);

    const admin = await server.registerAdmin();
    const asked = now();
    const deletion = await server.call("DELETE", `/api/admin/users/${owner.id}`, { token: admin.token });
    const answered = now();
    expect(deletion.status).toBe(409);
    expect(deletion.body.code).toBe("BACKUPS_PROTECTED");
    const possibleFrom = Date.parse(deletion.body.possibleFrom);
    expect(possibleFrom).toBeGreaterThanOrEqual(asked + 7 * DAY);
    expect(possibleFrom).toBeLessThanOrEqual(answered + 7 * DAY);
    expect(deletion.body.message).toBe(
      `Protect backups is on for this account: the account and its backups cannot be deleted until the protection is off, at the earliest 7 days after Protect backups is turned off in Settings → Security (${utc(possibleFrom)} if asked now).`,
    );
    expect(await server.ctx.db.select().from(users).where(eq(users.id, owner.id))).toHaveLength(1);
    expect(await backupExists(kept.id)).toBe(true);
    const listed = (await server.call("GET", "/api/admin/users", { token: admin.token })).body.find((u: { id: string }) => u.id === owner.id);
    expect(listed.backupProtection).toMatchObject({ state: "on", offAt: null });
  });

  test("retention's own pass still deletes what it lets go, which the owner could not delete by hand", async () => {
    const owner = await ownerWithTwoFactor();
    expect((await server.call("PUT", "/api/settings", { token: owner.token, body: { retentionMode: "gfs" } })).status).toBe(200);
    // Two backups of one day three days ago: GFS keeps that day's newest and lets the other go.
    const day = new Date(now() - 3 * DAY);
    const at = (hour: number) => now() - Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate(), hour);
    const newest = await completedBackup(owner, 1 * HOUR);
    const dayPick = await completedBackup(owner, at(11));
    const thinned = await completedBackup(owner, at(10));
    await protect(owner);
    expect((await server.call("DELETE", `/api/backups/${thinned.id}`, { token: owner.token })).status).toBe(409);
    await runMaintenance(server.ctx);
    expect(await backupExists(thinned.id)).toBe(false);
    expect(await backupExists(dayPick.id)).toBe(true);
    expect(await backupExists(newest.id)).toBe(true);
  });

  test("retention cannot be shortened, by the owner or by an admin's plan change; lengthening is fine", async () => {
    const owner = await ownerWithTwoFactor();
    const admin = await server.registerAdmin();
    const plans = (await server.call("GET", "/api/admin/plans", { token: admin.token })).body as { _id: string; name: string }[];
    const planId = (name: string) => plans.find((p) => p.name === name)!._id;
    expect((await server.call("PUT", `/api/admin/users/${owner.id}`, { token: admin.token, body: { plan: planId("Pro") } })).status).toBe(200);
    expect((await server.call("PUT", "/api/settings", { token: owner.token, body: { retention: 168 } })).status).toBe(200);
    await protect(owner);

    const shorter = await server.call("PUT", "/api/settings", { token: owner.token, body: { retention: 72 } });
    expect(shorter.status).toBe(409);
    expect(shorter.body.code).toBe("BACKUPS_PROTECTED");
    expect(shorter.body.message).toStartWith("Protect backups is on for this account: retention cannot be shortened, as kept backups would expire earlier.");
    const gfs = await server.call("PUT", "/api/settings", { token: owner.token, body: { retentionMode: "gfs" } });
    expect(gfs.status).toBe(409);
    expect((await server.call("PUT", "/api/settings", { token: owner.token, body: { retention: 720 } })).status).toBe(200);
    // Free keeps at most 168 hours: the move would cut the 720 the owner chose.
    const downgrade = await server.call("PUT", `/api/admin/users/${owner.id}`, { token: admin.token, body: { plan: planId("Free") } });
    expect(downgrade.status).toBe(409);
    expect(downgrade.body.code).toBe("BACKUPS_PROTECTED");
    expect((await server.call("GET", "/api/settings", { token: owner.token })).body.retention).toBe(720);
  });
});

describe("point-in-time recovery under the policy", () => {
  test("cannot be turned off while the policy is on; turning it on stays possible", async () => {
    const owner = await ownerWithTwoFactor();
    const [shipped] = await server.ctx.db.insert(databases).values({ organizationId: owner.id, name: "orders", pitrEnabled: true }).returning();
    const [unshipped] = await server.ctx.db.insert(databases).values({ organizationId: owner.id, name: "billing", pitrEnabled: false }).returning();
    await protect(owner);

    // The server's clock runs (real time plus the test's offset): the answer is read between two readings of it.
    const asked = now();
    const off = await server.call("PUT", `/api/pitr/databases/${shipped!.id}`, { token: owner.token, body: { enabled: false } });
    const answered = now();
    expect(off.status).toBe(409);
    expect(off.body.code).toBe("BACKUPS_PROTECTED");
    const possibleFrom = Date.parse(off.body.possibleFrom);
    expect(possibleFrom).toBeGreaterThanOrEqual(asked + 7 * DAY);
    expect(possibleFrom).toBeLessThanOrEqual(answered + 7 * DAY);
    expect(off.body.message).toBe(
      `Protect backups is on for this account: point-in-time recovery cannot be turned off until the protection is off, at the earliest 7 days after Protect backups is turned off in Settings → Security (${utc(possibleFrom)} if asked now).`,
    );
    const [row] = await server.ctx.db.select().from(databases).where(eq(databases.id, shipped!.id));
    expect(row!.pitrEnabled).toBe(true);
    // Switching off what is already off destroys nothing: answered as before.
    expect((await server.call("PUT", `/api/pitr/databases/${unshipped!.id}`, { token: owner.token, body: { enabled: false } })).status).toBe(200);
  });
});

describe("turning Protect backups off", () => {
  test("waits 7 days, is announced at once by e-mail and webhook, and can be cancelled", async () => {
    const owner = await ownerWithTwoFactor();
    const hook = await server.call("POST", "/api/settings/webhooks", {
      token: owner.token,
      body: { url: `${receiver.url}/protection-${owner.id}`, events: ["backup_protection.off_requested"] },
    });
    expect(hook.status).toBe(201);
    await protect(owner);

    const unconfirmed = await server.call("POST", "/api/settings/backup-protection/turn-off", { token: owner.token, body: {} });
    expect(unconfirmed.status).toBe(403);
    const asked = await server.call("POST", "/api/settings/backup-protection/turn-off", { token: owner.token, body: credentials(owner) });
    expect(asked.status).toBe(200);
    const offAt = Date.parse(asked.body.protection.offAt);
    expect(offAt - now()).toBeWithin(7 * DAY - 60_000, 7 * DAY + 1);
    expect(asked.body.protection.state).toBe("turning-off");

    const mail = await smtp.waitFor(owner.email, /Protect backups will turn off in 7 days/);
    expect(mail.text).toContain(`It takes effect on ${utc(offAt)}.`);
    const delivery = await waitUntil(() => receiver.received.find((d) => d.path === `/protection-${owner.id}`), { message: "the off_requested delivery" });
    expect(delivery.event).toBe("backup_protection.off_requested");
    expect(delivery.body.protection).toMatchObject({ state: "turning-off", offAt: new Date(offAt).toISOString() });

    // During the wait the policy holds; the refusal names the day it ends when that comes first.
    offsetMs += 6 * DAY;
    const admin = await server.registerAdmin();
    const listed = (await server.call("GET", "/api/admin/users", { token: admin.token })).body.find((u: { id: string }) => u.id === owner.id);
    expect(listed.backupProtection).toMatchObject({ state: "turning-off", offAt: new Date(offAt).toISOString() });
    const during = await server.call("DELETE", `/api/admin/users/${owner.id}`, { token: admin.token });
    expect(during.status).toBe(409);
    expect(Date.parse(during.body.possibleFrom)).toBe(offAt);

    // Cancelled: still on after the 7 days.
    const cancelled = await server.call("DELETE", "/api/settings/backup-protection/turn-off", { token: owner.token });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.protection.state).toBe("on");
    offsetMs += 2 * DAY;
    await runMaintenance(server.ctx);
    expect((await server.call("GET", "/api/settings/backup-protection", { token: owner.token })).body.state).toBe("on");
    const kept = await completedBackup(owner, 1 * HOUR);
    expect((await server.call("DELETE", `/api/backups/${kept.id}`, { token: owner.token })).status).toBe(409);

    // Asked again and left to run: off once the wait is over, and the audit log says when.
    const again = await server.call("POST", "/api/settings/backup-protection/turn-off", { token: owner.token, body: credentials(owner) });
    expect(again.status).toBe(200);
    offsetMs += 7 * DAY - HOUR;
    expect((await server.call("GET", "/api/settings/backup-protection", { token: owner.token })).body.state).toBe("turning-off");
    offsetMs += 2 * HOUR;
    await runMaintenance(server.ctx);
    const off = await server.ctx.db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.organizationId, owner.id), eq(auditLogs.action, "BACKUP_PROTECTION_OFF")));
    expect(off).toHaveLength(1);
    expect((await server.call("GET", "/api/settings/backup-protection", { token: owner.token })).body.state).toBe("off");
    expect(await auditActions(owner.id)).toEqual([
      "BACKUP_PROTECTION_ON",
      "BACKUP_PROTECTION_OFF_REQUESTED",
      "BACKUP_PROTECTION_OFF_CANCELLED",
      "BACKUP_PROTECTION_OFF_REQUESTED",
      "BACKUP_PROTECTION_OFF",
    ]);
    expect((await server.call("DELETE", `/api/admin/users/${owner.id}`, { token: admin.token })).status).toBe(200);
  });
});
