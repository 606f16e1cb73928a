// STORAGE_OBJECT_LOCK end to end, on moto's Object Lock-enforcing S3 server: a backup uploaded
// by an agent lands with its file and manifest locked until its retention rule lets it go; a user
// (or a stolen session) cannot delete it earlier, the retention pass waits for the lock instead
// of failing, deletes it once the lock ends, and extends the lock of a backup GFS promotes.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { auditLogs, backups, organizations, pitrSlices, settings } from "@db/schema";
import { findMoto, type MotoServer, startMoto } from "../../testkit/moto-server";
import { waitUntil } from "../../testkit/wait-until";
import { backupStorage } from "../src/modules/stored-files/keys";
import { planOfUser } from "../src/modules/plans/service";
import { prunePitrSlices } from "../src/modules/pitr/retention";
import { applyRetention } from "../src/modules/retention/service";
import { startTestServer, type TestServer } from "./harness";
import { consistentBackup, uploadSlice, userShippingPitr } from "./pitr-support";
import { registerScriptedAgent } from "./scripted-agent";

const { missing } = findMoto();
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const BUCKET = "dbvault-locked";

let moto: MotoServer;
let server: TestServer;
let base: string;

beforeAll(async () => {
  if (missing) return;
  moto = await startMoto();
  const url = await moto.createBucket(BUCKET);
  server = await startTestServer({ STORAGE_URL: url, STORAGE_OBJECT_LOCK: "compliance" });
  base = server.listen();
});
afterAll(async () => {
  await server?.close();
  await moto?.stop();
});

/** The Object Lock S3 reports on the current version of a stored key (ms), or null. */
async function lockOf(key: string): Promise<number | null> {
  const head = await moto.s3.fetch(`${moto.endpoint}/${BUCKET}/${key}`, { method: "HEAD" });
  const until = head.headers.get("x-amz-object-lock-retain-until-date");
  return until ? new Date(until).getTime() : null;
}

/** A user with a connected agent and a backup of "orders" created `createdAt` (set before the upload completes, as if it had run then). */
async function userWithBackups(createdAts: Date[]) {
  const user = await server.registerUser();
  const agent = await registerScriptedAgent(base, user.apiKey, ["orders"]);
  await agent.connect();
  const ids: string[] = [];
  for (const createdAt of createdAts) {
    await server.call("POST", "/api/backups", { token: user.token, body: { databaseName: "orders" } });
    const { backupId } = await agent.waitFor("backup");
    await server.ctx.db.update(backups).set({ createdAt }).where(eq(backups.id, backupId));
    expect((await agent.upload(backupId, randomBytes(1000))).status).toBe(200);
    ids.push(backupId);
  }
  return { user, ids };
}

describe.skipIf(missing !== null)(`STORAGE_OBJECT_LOCK=compliance${missing ? `: skipped, ${missing}` : ""}`, () => {
  test("a backup's file and manifest are locked until its age rule lets it go; deleting it earlier answers 409 and keeps it whole", async () => {
    const createdAt = new Date(Date.now() - HOUR);
    const { user, ids } = await userWithBackups([createdAt]);
    const [row] = await server.ctx.db
      .select({ retention: settings.retention, planId: organizations.planId })
      .from(settings)
      .innerJoin(organizations, eq(organizations.id, settings.organizationId))
      .where(eq(settings.organizationId, user.id));
    const hours = Math.min(row!.retention, (await planOfUser(server.ctx.db, row!.planId)).retentionLimit);
    for (const key of [backupStorage.file(user.id, ids[0]!), backupStorage.manifest(user.id, ids[0]!)]) {
      expect(await lockOf(key)).toBe(createdAt.getTime() + hours * HOUR);
    }
    const used = (await server.call("GET", "/api/user/profile", { token: user.token })).body.storageUsed;
    const refused = await server.call("DELETE", `/api/backups/${ids[0]}`, { token: user.token });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe("This backup is locked in storage (Object Lock) until its retention ends. It can be deleted then.");
    expect((await server.call("GET", `/api/backups/${ids[0]}`, { token: user.token })).body.status).toBe("completed");
    expect((await server.call("GET", "/api/user/profile", { token: user.token })).body.storageUsed).toBe(used);
    const download = await fetch(`${base}/api/backups/${ids[0]}/download`, { headers: { authorization: `Bearer ${user.token}` }, redirect: "follow" });
    expect((await download.arrayBuffer()).byteLength).toBe(1000);
  });

  test("the retention pass leaves a locked backup for later (logged, row and storage used kept) and deletes it, every version, once the lock ends", async () => {
    // Written as if 72 h minus 10 s ago under a 72 h rule: locked for 10 more seconds (S3 keeps
    // real time; the upload must land inside them even on a loaded machine). Then the rule is
    // shortened to 24 h, so retention wants it gone at once, while S3 still holds it.
    const nearlyExpired = new Date(Date.now() - 72 * HOUR + 10_000);
    const { user, ids } = await userWithBackups([nearlyExpired, new Date()]);
    await server.ctx.db.update(settings).set({ retention: 72 }).where(eq(settings.organizationId, user.id));
    expect(await lockOf(backupStorage.file(user.id, ids[0]!))).toBe(nearlyExpired.getTime() + 72 * HOUR);
    await server.ctx.db.update(settings).set({ retention: 24 }).where(eq(settings.organizationId, user.id));
    const used = (await server.call("GET", "/api/user/profile", { token: user.token })).body.storageUsed;

    expect(await applyRetention(server.ctx, { organizationId: user.id })).toBe(0);
    expect((await server.ctx.db.select().from(backups).where(eq(backups.organizationId, user.id))).map((b) => b.id).sort()).toEqual([...ids].sort());
    expect((await server.call("GET", "/api/user/profile", { token: user.token })).body.storageUsed).toBe(used);

    await waitUntil(async () => (await applyRetention(server.ctx, { organizationId: user.id })) === 1, {
      message: "the lock to end and retention to delete the backup",
    });
    expect((await server.ctx.db.select().from(backups).where(eq(backups.organizationId, user.id))).map((b) => b.id)).toEqual([ids[1]!]);
    expect((await server.call("GET", "/api/user/profile", { token: user.token })).body.storageUsed).toBe(used - 1000);
    const versions = await (await moto.s3.fetch(`${moto.endpoint}/${BUCKET}?versions&prefix=${backupStorage.prefix(user.id, ids[0]!)}`)).text();
    expect(versions).not.toContain("<Key>"); // no version and no delete marker left: the bytes are gone
    const audit = await server.ctx.db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.organizationId, user.id), eq(auditLogs.action, "BACKUP_DELETED_AUTO")));
    expect(audit).toHaveLength(1);
  });

  test("a GFS promotion extends the lock: yesterday's daily backup is locked for the daily rule's days", async () => {
    const startOfToday = Math.floor(Date.now() / DAY) * DAY;
    const yesterday = new Date(startOfToday - 60_000); // the last minute of yesterday: its day is over
    const { user, ids } = await userWithBackups([yesterday]);
    await server.ctx.db.update(settings).set({ retentionMode: "gfs", gfsDaily: 7, gfsWeekly: 0, gfsMonthly: 0 }).where(eq(settings.organizationId, user.id));
    const file = backupStorage.file(user.id, ids[0]!);
    const manifest = backupStorage.manifest(user.id, ids[0]!);
    // Written under the age rule (72 h); the switch to GFS makes it yesterday's daily pick.
    const [{ planId }] = (await server.ctx.db.select({ planId: organizations.planId }).from(organizations).where(eq(organizations.id, user.id))) as [
      { planId: string | null },
    ];
    const limit = (await planOfUser(server.ctx.db, planId)).retentionLimit;
    const written = await lockOf(file);

    await applyRetention(server.ctx, { organizationId: user.id });
    const promoted = Math.min(startOfToday - DAY + 7 * DAY, yesterday.getTime() + limit * HOUR);
    expect(promoted).toBeGreaterThan(written!);
    expect(await lockOf(file)).toBe(promoted);
    expect(await lockOf(manifest)).toBe(promoted);
  });

  test("an oplog slice is locked until its end plus the plan's point-in-time window, and pruning waits for the lock", async () => {
    const { agent, databaseId, plan } = await userShippingPitr(server, base, "orders");
    const end = Math.floor(Date.now() / 1000) - 60;
    const { id, storageKey } = await uploadSlice(server.ctx, base, agent, "orders", {
      chain: "c".repeat(32),
      sequence: 0,
      start: `${end - 10},1`,
      end: `${end},1`,
    });
    expect(await lockOf(storageKey)).toBe(end * 1000 + plan.pitrWindowHours * HOUR);
    // A base backup newer than the slice: point-in-time retention alone would let the slice go now,
    // but its lock holds it for the window, so pruning leaves it (row, quota and bytes) for later.
    await consistentBackup(server.ctx, agent, databaseId, { t: end + 5, i: 1 });
    await prunePitrSlices(server.ctx);
    expect(await server.ctx.db.select({ id: pitrSlices.id }).from(pitrSlices).where(eq(pitrSlices.id, id))).toEqual([{ id }]);
    // With the server's own credentials, the slice's version cannot be deleted before then.
    const head = await moto.s3.fetch(`${moto.endpoint}/${BUCKET}/${storageKey}`, { method: "HEAD" });
    const version = head.headers.get("x-amz-version-id")!;
    const removal = await moto.s3.fetch(`${moto.endpoint}/${BUCKET}/${storageKey}?versionId=${version}`, { method: "DELETE" });
    expect(removal.status).toBe(403);
  });
});
