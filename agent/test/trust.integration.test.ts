// Trust end to end (server + compiled agent + MongoDB test server over loopback): every backup is
// read back from storage and verified with the dumped counts; a drill restores the latest backup
// into <name>_dbvault_drill, checks it and drops it; a file corrupted in storage afterwards is
// caught by a later verification and by a drill, and alerted; a backup much smaller than the ones
// before it is flagged, and retention keeps the last good backup while the anomaly stands.
import { beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { backups, databases } from "@db/schema";
import { startBackup } from "../../server/src/modules/backups/service.ts";
import { backupStorage } from "../../server/src/modules/stored-files/keys.ts";
import { applyRetention } from "../../server/src/modules/retention/service.ts";
import type { TestUser } from "../../server/test/harness.ts";
import { buildAwkwardDatabase } from "./support/awkward-database.ts";
import { runSetup, startAgentProcess } from "./support/end-to-end.ts";
import { useEndToEndWorld, waitForBackupEnd } from "./support/end-to-end-world.ts";
import { apiFor } from "./support/server-faults.ts";
import { waitUntil } from "../../testkit/wait-until";

const world = useEndToEndWorld();
const NAME = `trust${randomBytes(3).toString("hex")}`;
const SCRATCH = `${NAME}_dbvault_drill`;

let user: TestUser;
let api: ReturnType<typeof apiFor>;
let source: string;
let sourceCounts: Record<string, number>;

/** Counts of every collection of a database, views as 0 (as the agent reports them). */
async function countsOf(database: string) {
  const counts: Record<string, number> = {};
  for (const info of await world.env.client.db(database).listCollections().toArray()) {
    counts[`${database}.${info.name}`] = info.type === "view" ? 0 : await world.env.client.db(database).collection(info.name).countDocuments();
  }
  return counts;
}

/** A backup of the world's database through the scheduler's path (no manual rate limit), once the agent has verified it. */
async function verifiedBackup(name = NAME) {
  const [database] = await world.server.ctx.db
    .select()
    .from(databases)
    .where(and(eq(databases.organizationId, user.id), eq(databases.name, name)));
  const { id } = await startBackup(world.server.ctx, database!, "auto");
  expect(await waitForBackupEnd(api, id)).toMatchObject({ status: "completed" });
  return waitUntil(
    async () => {
      const backup = (await api("GET", `/api/backups/${id}`)).body;
      return backup.verifiedAt ? backup : undefined;
    },
    { message: "the backup to be verified", timeout: 60_000 },
  );
}

async function waitForRestoreEnd(restoreId: string) {
  return waitUntil(
    async () => {
      const row = (await api("GET", "/api/backups/restores/all")).body.find((r: { id: string }) => r.id === restoreId);
      return row && ["completed", "failed"].includes(row.status) ? row : undefined;
    },
    { message: "the drill to end", timeout: 60_000 },
  );
}

const databaseNames = async () =>
  ((await world.env.client.db("admin").command({ listDatabases: 1, nameOnly: true })).databases as { name: string }[]).map((d) => d.name);
const mailTo = (subject: string) => world.server.sentMail.filter((mail) => mail.to === user.email && mail.subject.startsWith(subject));

beforeAll(async () => {
  source = world.env.uniqueDatabase("trust");
  await buildAwkwardDatabase(world.env.client.db(source), { largeDocuments: false });
  sourceCounts = await countsOf(source);
  user = await world.server.registerUser();
  api = apiFor(world.base, user.token);
  const setup = await runSetup({
    baseUrl: world.base,
    apiKey: user.apiKey,
    databases: [{ name: NAME, uri: world.env.uriFor(source) }],
    directory: await world.env.makeTempDir(),
  });
  expect(setup.exitCode).toBe(0);
  const agent = startAgentProcess(setup.configPath);
  world.agents.push(agent);
  await waitUntil(async () => (await api("GET", "/api/settings/system-status")).body.agents[0]?.status === "active", {
    message: "the agent to be online",
    timeout: 30_000,
  });
});

describe("verified backups and drills", () => {
  let backupId: string;

  test("a backup is read back from storage and verified with the dumped counts", async () => {
    const backup = await verifiedBackup();
    backupId = backup.id;
    expect(backup.verification).toEqual({ status: "ok", namespaces: sourceCounts });
    expect(backup.collections).toEqual(sourceCounts);
    expect(Date.parse(backup.verifiedAt)).toBeGreaterThanOrEqual(Date.parse(backup.completedAt));
    expect(world.agents[0]!.log()).toContain('"msg":"backup verified"');
  });

  test("a drill restores the latest backup into <name>_dbvault_drill, checks it and drops it", async () => {
    const started = await api("POST", "/api/drills", { databaseName: NAME });
    expect(started.status).toBe(201);
    const drill = await waitForRestoreEnd(started.body.restore.id);
    const documents = Object.values(sourceCounts).reduce((sum, count) => sum + count, 0);
    expect(drill).toMatchObject({ kind: "drill", status: "completed", backupId, targetDatabase: SCRATCH, error: null });
    expect(drill.drill).toMatchObject({ documents: { expected: documents, restored: documents }, scratchDropped: true });
    expect(drill.drill.indexes.found).toBe(drill.drill.indexes.expected);
    expect(drill.drill.indexes.expected).toBeGreaterThan(Object.keys(sourceCounts).length / 2);
    expect(drill.drill.durationMs).toBeGreaterThan(0);
    // Every collection went into the scratch database, which is gone again.
    expect(Object.keys(drill.stats).sort()).toEqual(
      Object.keys(sourceCounts)
        .map((ns) => ns.replace(`${source}.`, `${SCRATCH}.`))
        .sort(),
    );
    expect(await databaseNames()).not.toContain(SCRATCH);
    expect(await countsOf(source)).toEqual(sourceCounts); // the source was not touched
    await world.server.ctx.pendingWork.settled(); // mail goes out through the outbox, in the background
    expect(mailTo("Restore drill")).toEqual([]);
  });

  test("a file corrupted in storage after upload is caught by a later verification and by a drill, and alerted", async () => {
    const key = backupStorage.file(user.id, backupId);
    const chunks: Uint8Array[] = [];
    for await (const chunk of await world.server.ctx.storage.get(key)) chunks.push(chunk);
    const bytes = Buffer.concat(chunks);
    bytes[Math.floor(bytes.length / 2)]! ^= 0x01; // one bit flipped, in the middle of a chunk
    await world.server.ctx.storage.put(key, bytes);

    const asked = await api("POST", `/api/backups/${backupId}/verify`);
    expect(asked.status).toBe(202);
    const failed = await waitUntil(
      async () => {
        const backup = (await api("GET", `/api/backups/${backupId}`)).body;
        return backup.verification?.status === "failed" ? backup : undefined;
      },
      { message: "the verification to fail", timeout: 60_000 },
    );
    expect(failed.verification.error).toMatch(/^the stored backup could not be read back: .*chunk/i);
    const [mail] = await waitUntil(
      () => (mailTo(`Backup verification failed: ${NAME}`).length > 0 ? mailTo(`Backup verification failed: ${NAME}`) : undefined),
      {
        message: "the verification failure mail",
      },
    );
    expect(mail!.text).toContain(backupId);

    const started = await api("POST", "/api/drills", { databaseName: NAME });
    const drill = await waitForRestoreEnd(started.body.restore.id);
    expect(drill).toMatchObject({ kind: "drill", status: "failed" });
    expect(drill.error).toMatch(/^drill failed: .*chunk/i);
    await waitUntil(() => mailTo(`Restore drill failed: ${NAME}`)[0], { message: "the drill failure mail" });
    expect(await databaseNames()).not.toContain(SCRATCH);
    expect(await countsOf(source)).toEqual(sourceCounts);
  });
});

describe("anomalies", () => {
  test("a size drop raises an anomaly, and retention keeps the last good backup until it is resolved", async () => {
    const name = `${NAME}b`;
    const blobs = world.env.uniqueDatabase("shrink");
    const collection = world.env.client.db(blobs).collection("files");
    await collection.insertMany(Array.from({ length: 200 }, (_, i) => ({ _id: i, data: randomBytes(4096) })) as never[]);
    // A second agent on the same account, for the database that shrinks.
    const setup = await runSetup({
      baseUrl: world.base,
      apiKey: user.apiKey,
      databases: [{ name, uri: world.env.uriFor(blobs) }],
      directory: await world.env.makeTempDir(),
      name: "shrink-agent",
    });
    expect(setup.exitCode).toBe(0);
    const agent = startAgentProcess(setup.configPath);
    world.agents.push(agent);
    await waitUntil(
      async () => (await api("GET", "/api/settings/system-status")).body.agents.filter((a: { status: string }) => a.status === "active").length === 2,
      {
        message: "the second agent to be online",
        timeout: 30_000,
      },
    );
    const good = [await verifiedBackup(name), await verifiedBackup(name)];
    for (const backup of good) expect(backup.anomaly).toBeNull();

    // The same 200 documents, each a few bytes now: the count holds, the size falls.
    await collection.updateMany({}, { $set: { data: "x" } });
    const shrunk = await verifiedBackup(name);
    expect(shrunk.verification.status).toBe("ok");
    expect(shrunk.anomaly).toMatchObject({ kind: "size_drop", detail: expect.stringContaining("under half the median") });
    await waitUntil(() => mailTo(`Unusual backup: ${name}`)[0], { message: "the anomaly mail" });

    // Past the retention, the older good backup goes; the last good one and the newest stay.
    await world.server.ctx.db
      .update(backups)
      .set({ createdAt: new Date(Date.now() - 9 * 86_400_000) })
      .where(eq(backups.id, good[0]!.id));
    await world.server.ctx.db
      .update(backups)
      .set({ createdAt: new Date(Date.now() - 8 * 86_400_000) })
      .where(eq(backups.id, good[1]!.id));
    await world.server.ctx.db
      .update(backups)
      .set({ createdAt: new Date(Date.now() - 7 * 86_400_000) })
      .where(eq(backups.id, shrunk.id));
    await applyRetention(world.server.ctx, { organizationId: user.id });
    const ids = async () => (await api("GET", `/api/backups?databaseName=${name}`)).body.map((b: { id: string }) => b.id).sort();
    expect(await ids()).toEqual([good[1]!.id, shrunk.id].sort());

    expect((await api("POST", `/api/backups/${shrunk.id}/anomaly/resolve`)).status).toBe(200);
    await applyRetention(world.server.ctx, { organizationId: user.id });
    expect(await ids()).toEqual([shrunk.id]);
  });
});
