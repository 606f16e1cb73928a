// Restore agents on the server's side (issue 27 §4), against a real database and scripted agents
// on real sockets. A write-only backup agent seals its backups to a public key and reads none of
// them (its hello names no key id that opens them); a restore agent's hello names that key. The
// server sends the verifications, drills and restores of those backups to the restore agent, and
// while none that can read them is online they wait and say why, in the API, and go when one
// connects. An identity pasted for a restore by the backup agent reaches the server only sealed to
// that agent's transport key (its hello's identityRecipient): readable in no request, command,
// bus message, table, log line or file of the data directory.
import { describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { armor, Decrypter, generateX25519Identity, identityToRecipient } from "age-encryption";
import { and, eq } from "drizzle-orm";
import { agents, databases, restores } from "@db/schema";
import { startBackup } from "../src/modules/backups/service";
import { noReaderSetUp } from "../src/modules/agents/readers";
import { noReaderAtAll } from "../src/modules/restores/service";
import { failStalledOperations } from "../src/modules/scheduler/service";
import { PENDING_TIMEOUT_MS, QUEUED_LIMIT_MS } from "../src/modules/agent-jobs/deadlines";
import { waitUntil } from "../../testkit/wait-until";
import { advanceServerClock, type TestUser, useListeningTestServer } from "./harness";
import { registerScriptedAgent, type ScriptedAgent } from "./scripted-agent";
import { captureServerLog, whereServerKeeps } from "./secret-search";
import { sealIdentity } from "../../web/src/features/dashboard/utils/seal-identity";

const testServer = useListeningTestServer();

/** The public key's fingerprint a write-only agent's backups name (what `keyId` holds for them). */
const RECIPIENT = "5eed0f1e5eed0f1e5eed0f1e5eed0f1e";

type World = { user: TestUser; backupAgent: ScriptedAgent };

/** A user whose backup agent is write-only: its hello names no key, so it can read none of its backups. */
async function writeOnlyWorld(hello: { identityRecipient?: string } = {}): Promise<World> {
  const user = await testServer.server.registerUser();
  const backupAgent = await registerScriptedAgent(testServer.base, user.apiKey, ["shop"], "db-host");
  await backupAgent.connect({ databases: ["shop"], keyIds: [], ...hello });
  return { user, backupAgent };
}

async function registerRestoreAgent(user: TestUser, name = "recovery-laptop") {
  return registerScriptedAgent(testServer.base, user.apiKey, ["shop"], name, { role: "restore" });
}

const connectRestoreAgent = (agent: ScriptedAgent) => agent.connect({ role: "restore", keyIds: [RECIPIENT], databases: ["shop"] });

/** One completed backup of "shop", sealed to RECIPIENT. */
async function sealedBackup({ user, backupAgent }: World) {
  const [database] = await testServer.server.ctx.db
    .select()
    .from(databases)
    .where(and(eq(databases.organizationId, user.id), eq(databases.name, "shop")));
  await startBackup(testServer.server.ctx, database!, "auto");
  const { backupId } = await backupAgent.waitFor("backup");
  const bytes = randomBytes(1500);
  expect((await backupAgent.uploadPart(backupId, 0, bytes)).status).toBe(200);
  expect((await backupAgent.complete(backupId, bytes, 1, { collections: { "shop.orders": 3 }, keyId: RECIPIENT })).status).toBe(200);
  return backupId;
}

const askRestore = (user: TestUser, backupId: string, body: Record<string, unknown>) =>
  testServer.server.call("POST", `/api/backups/${backupId}/restore`, { token: user.token, body });

/** A fresh identity sealed as the web does, to a transport key no agent here holds. */
const sealedForSomeAgent = async () =>
  sealIdentity(`dbvid1_${randomBytes(36).toString("base64url")}`, await identityToRecipient(await generateX25519Identity()));

const getBackup = async (user: TestUser, id: string) => (await testServer.server.call("GET", `/api/backups/${id}`, { token: user.token })).body;
const listRestores = async (user: TestUser) =>
  (await testServer.server.call("GET", "/api/backups/restores/all", { token: user.token })).body as Record<string, unknown>[];
const commandTypes = (agent: ScriptedAgent) => agent.received.map((message) => message.type).filter((type) => type !== "pitr");

describe("verification of a write-only agent's backup", () => {
  test("waits for a restore agent, saying why, and goes to the restore agent once it connects; never to the backup agent", async () => {
    const world = await writeOnlyWorld();
    const backupId = await sealedBackup(world);
    const waiting = await waitUntil(async () => (await getBackup(world.user, backupId)).verificationWaitingFor, { message: "the verification to wait" });
    expect(waiting).toBe(noReaderSetUp(RECIPIENT));
    expect(waiting).toStartWith(`Waiting for an agent that holds the key ${RECIPIENT}: none of this organization's agents can open this backup.`);

    const restoreAgent = await registerRestoreAgent(world.user);
    // Its databases are where it restores: it runs none of them, and gets no backup.
    const [shop] = await testServer.server.ctx.db.select().from(databases).where(eq(databases.organizationId, world.user.id));
    expect(shop!.agentId).toBe(world.backupAgent.agentId);
    await connectRestoreAgent(restoreAgent);
    const verify = await restoreAgent.waitFor("verify");
    const { sha256 } = await getBackup(world.user, backupId);
    expect(verify).toEqual({ type: "verify", backupId, databaseName: "shop", size: 1500, expected: { "shop.orders": 3 }, sha256 });
    expect((await getBackup(world.user, backupId)).verificationWaitingFor).toBeNull();
    const [row] = await testServer.server.ctx.db.select({ role: agents.role }).from(agents).where(eq(agents.id, restoreAgent.agentId));
    expect(row!.role).toBe("restore");
    const listed = (await testServer.server.call("GET", "/api/settings/system-status", { token: world.user.token })).body.agents as {
      id: string;
      role: string;
    }[];
    expect(listed.find((agent) => agent.id === restoreAgent.agentId)?.role).toBe("restore");

    // The restore agent may download what it verifies; it reports, and the report is recorded.
    const download = await fetch(`${testServer.base}/api/agent/backups/${backupId}/download`, { headers: restoreAgent.headers() });
    expect(download.status).toBe(200);
    await download.arrayBuffer();
    restoreAgent.send({ type: "backup.verified", backupId, verification: { status: "ok", namespaces: { "shop.orders": 3 } } });
    await waitUntil(async () => (await getBackup(world.user, backupId)).verification?.status === "ok", { message: "the verification to be recorded" });

    // Asked again with the restore agent offline: it waits, naming who can read it.
    await restoreAgent.disconnect();
    await waitUntil(async () => (await testServer.server.ctx.db.select().from(agents).where(eq(agents.id, restoreAgent.agentId)))[0]?.status === "offline");
    const again = await testServer.server.call("POST", `/api/backups/${backupId}/verify`, { token: world.user.token });
    expect(again.status).toBe(202);
    const noneOnline = "Waiting for a restore agent: none online. recovery-laptop can read this backup; start dbvault-agent run there and it begins at once.";
    expect(again.body).toEqual({ message: `Verification requested. ${noneOnline}`, waitingFor: noneOnline });
    expect((await getBackup(world.user, backupId)).verificationWaitingFor).toBe(noneOnline);
    await connectRestoreAgent(restoreAgent);
    expect((await restoreAgent.waitFor("verify")).backupId).toBe(backupId);
    expect(commandTypes(world.backupAgent)).not.toContain("verify");
  });
});

describe("drills and restores of a write-only agent's backup", () => {
  test("go to the online restore agent; with it offline they wait, say why, are not failed as stalled, and go when it connects", async () => {
    const world = await writeOnlyWorld();
    const backupId = await sealedBackup(world);
    const restoreAgent = await registerRestoreAgent(world.user);
    await connectRestoreAgent(restoreAgent);
    await restoreAgent.waitFor("verify");

    // Online: straight to it.
    const drill = await testServer.server.call("POST", "/api/drills", { token: world.user.token, body: { databaseName: "shop" } });
    expect(drill.status).toBe(201);
    expect(await restoreAgent.waitFor("drill")).toMatchObject({ backupId, databaseName: "shop", scratchDatabase: "shop_dbvault_drill" });
    restoreAgent.send({ type: "restore.failed", restoreId: drill.body.restore.id, error: "drill failed: test" });
    await waitUntil(async () => (await listRestores(world.user)).find((row) => row.id === drill.body.restore.id)?.status === "failed");

    // Offline: both wait, with the reason in the answer and in Restore History.
    await restoreAgent.disconnect();
    await waitUntil(async () => (await testServer.server.ctx.db.select().from(agents).where(eq(agents.id, restoreAgent.agentId)))[0]?.status === "offline");
    const noneOnline = "Waiting for a restore agent: none online. recovery-laptop can read this backup; start dbvault-agent run there and it begins at once.";
    const waitingDrill = await testServer.server.call("POST", "/api/drills", { token: world.user.token, body: { databaseName: "shop" } });
    expect(waitingDrill.status).toBe(201);
    expect(waitingDrill.body.message).toBe(`Drill requested. ${noneOnline}`);
    expect(waitingDrill.body.restore).toMatchObject({ status: "pending", waitingFor: noneOnline });
    const waitingRestore = await testServer.server.call("POST", `/api/backups/${backupId}/restore`, {
      token: world.user.token,
      body: { databaseName: "shop_copy", targetDatabase: "shop_copy" },
    });
    expect(waitingRestore.status).toBe(201);
    expect(waitingRestore.body.message).toBe(`Restore requested. ${noneOnline}`);
    expect((await listRestores(world.user)).filter((row) => row.waitingFor === noneOnline).map((row) => row.kind)).toEqual(
      expect.arrayContaining(["drill", "restore"]),
    );
    // A sweep past the time an agent has to start a job leaves them waiting.
    advanceServerClock(testServer.server, PENDING_TIMEOUT_MS + 60_000);
    await failStalledOperations(testServer.server.ctx);
    const stillWaiting = await testServer.server.ctx.db.select().from(restores).where(eq(restores.organizationId, world.user.id));
    expect(stillWaiting.filter((row) => row.status === "pending").length).toBe(2);

    await connectRestoreAgent(restoreAgent);
    expect(await restoreAgent.waitFor("drill")).toMatchObject({ restoreId: waitingDrill.body.restore.id, scratchDatabase: "shop_dbvault_drill" });
    expect(await restoreAgent.waitFor("restore")).toEqual({
      type: "restore",
      restoreId: waitingRestore.body.restore.id,
      backupId,
      databaseName: "shop",
      size: 1500,
      targetDatabase: "shop_copy",
      // Its job in the ledger (modules/agent-jobs/), acknowledged with job.taken.
      jobId: expect.any(String),
    });
    const sent = await testServer.server.ctx.db.select().from(restores).where(eq(restores.organizationId, world.user.id));
    expect(sent.every((row) => row.waitingFor === null)).toBe(true);
    // It reports as any agent does.
    restoreAgent.send({ type: "restore.started", restoreId: waitingRestore.body.restore.id });
    await waitUntil(async () => (await listRestores(world.user)).find((row) => row.id === waitingRestore.body.restore.id)?.status === "in-progress");
    expect(commandTypes(world.backupAgent).filter((type) => type === "drill" || type === "restore")).toEqual([]);
  });

  test("with no agent at all that can read the backup, a drill and a restore are refused saying what to do", async () => {
    const world = await writeOnlyWorld();
    const backupId = await sealedBackup(world);
    const refusal = noReaderAtAll(RECIPIENT).message;
    expect(refusal).toContain("set up a restore agent where its identity is kept (dbvault-agent setup --role restore --identity FILE)");
    const drill = await testServer.server.call("POST", "/api/drills", { token: world.user.token, body: { databaseName: "shop" } });
    expect(drill.status).toBe(409);
    expect(drill.body.message).toBe(refusal);
    const restore = await testServer.server.call("POST", `/api/backups/${backupId}/restore`, { token: world.user.token, body: { databaseName: "shop" } });
    expect(restore.status).toBe(409);
    expect(restore.body.message).toBe(refusal);
  });

  test("a restore agent going offline does not take over the databases it declared", async () => {
    const world = await writeOnlyWorld();
    const restoreAgent = await registerRestoreAgent(world.user);
    await connectRestoreAgent(restoreAgent);
    await world.backupAgent.disconnect();
    await waitUntil(
      async () => (await testServer.server.ctx.db.select().from(agents).where(eq(agents.id, world.backupAgent.agentId)))[0]?.status === "offline",
    );
    const [shop] = await testServer.server.ctx.db.select().from(databases).where(eq(databases.organizationId, world.user.id));
    expect(shop!.agentId).toBe(world.backupAgent.agentId);
  });
});

describe("an identity pasted for a restore by the backup agent", () => {
  test("reaches the server only sealed to that agent: no request, command, bus message, table, log line or file holds it readable", async () => {
    const serverLog = captureServerLog(testServer.server);
    // The cluster bus is the database's LISTEN/NOTIFY: what crosses it must not carry the identity readable.
    const onBus: string[] = [];
    const unsubscribe = testServer.server.ctx.bus.subscribe((message) => void onBus.push(JSON.stringify(message)));
    try {
      // The agent's transport key pair: its hello says the public part, the private part stays with it.
      const agentKey = await generateX25519Identity();
      const recipient = await identityToRecipient(agentKey);
      const world = await writeOnlyWorld({ identityRecipient: recipient });
      const backupId = await sealedBackup(world);
      const identity = `dbvid1_${randomBytes(36).toString("base64url")}`;
      const secretPart = identity.slice(7);
      const bodies: string[] = [];
      const restore = async (body: Record<string, unknown>) => {
        bodies.push(JSON.stringify(body));
        return askRestore(world.user, backupId, body);
      };

      // The web is given the key to seal to with the agent.
      const status = await testServer.server.call("GET", "/api/settings/system-status", { token: world.user.token });
      expect(status.body.agents.find((agent: { id: string }) => agent.id === world.backupAgent.agentId).identityRecipient).toBe(recipient);

      // In plaintext, it is refused without being used or repeated.
      const plain = await askRestore(world.user, backupId, { databaseName: "shop", identity });
      expect(plain.status).toBe(400);
      expect(plain.body.message).toBe(
        "The server takes no identity in plaintext, so nothing was changed: paste it in the restore wizard, which seals it to the restoring agent (sealedIdentity), or keep it on a restore agent (dbvault-agent setup --role restore --identity FILE).",
      );
      // Nor does a plaintext identity pass as a sealed one.
      const unsealed = await askRestore(world.user, backupId, { databaseName: "shop", sealedIdentity: identity });
      expect(unsealed.status).toBe(400);
      expect(unsealed.body.message).toBe(
        "sealedIdentity must be an identity sealed in the restore wizard to the restoring agent's identityRecipient (an armored age file)",
      );
      expect(await testServer.server.ctx.db.select().from(restores).where(eq(restores.backupId, backupId))).toEqual([]);

      // What the web sends: the identity sealed to the agent's recipient.
      const sealedIdentity = await sealIdentity(identity, recipient);
      const asked = await restore({ databaseName: "shop", sealedIdentity });
      expect(asked.status).toBe(201);
      expect(asked.body.restore.waitingFor).toBeNull();
      expect(await world.backupAgent.waitFor("restore")).toEqual({
        type: "restore",
        restoreId: asked.body.restore.id,
        backupId,
        databaseName: "shop",
        size: 1500,
        sealedIdentity,
        // Its job in the ledger (modules/agent-jobs/), acknowledged with job.taken.
        jobId: expect.any(String),
      });
      // Only the agent's private key opens what the server forwarded.
      const decrypter = new Decrypter();
      decrypter.addIdentity(agentKey);
      expect(await decrypter.decrypt(armor.decode(sealedIdentity), "text")).toBe(identity);
      world.backupAgent.send({ type: "restore.completed", restoreId: asked.body.restore.id, stats: { "shop.orders": { restored: 3, failed: 0 } } });
      await waitUntil(async () => (await listRestores(world.user)).find((row) => row.id === asked.body.restore.id)?.status === "completed");
      await testServer.server.ctx.pendingWork.settled();

      expect(bodies.join("\n")).not.toContain(secretPart);
      expect(JSON.stringify(world.backupAgent.received)).not.toContain(secretPart);
      expect(onBus.some((message) => message.includes(asked.body.restore.id))).toBe(true);
      expect(onBus.join("\n")).not.toContain(secretPart);
      expect(serverLog.lines.some((line) => line.includes(asked.body.restore.id))).toBe(true);
      expect(serverLog.lines.join("\n")).not.toContain(secretPart);
      expect(await whereServerKeeps(testServer.server, secretPart)).toEqual([]);
    } finally {
      unsubscribe();
      serverLog.stop();
    }
  });

  test("is refused for a backup agent too old to say the key to seal it to", async () => {
    const world = await writeOnlyWorld();
    const backupId = await sealedBackup(world);
    const sealedIdentity = await sealedForSomeAgent();
    const asked = await askRestore(world.user, backupId, { databaseName: "shop", sealedIdentity });
    expect(asked.status).toBe(409);
    expect(asked.body.message).toBe(
      'The agent "db-host" is too old to take a pasted identity, so nothing was changed. Update it (dbvault-agent update), or set up a restore agent where the identity is kept (dbvault-agent setup --role restore --identity FILE).',
    );
    expect(await testServer.server.ctx.db.select().from(restores).where(eq(restores.backupId, backupId))).toEqual([]);
  });

  test("is refused when the backup agent is offline: it is kept nowhere to send later", async () => {
    const world = await writeOnlyWorld();
    const backupId = await sealedBackup(world);
    await world.backupAgent.disconnect();
    await waitUntil(
      async () => (await testServer.server.ctx.db.select().from(agents).where(eq(agents.id, world.backupAgent.agentId)))[0]?.status === "offline",
    );
    const sealedIdentity = await sealedForSomeAgent();
    const asked = await askRestore(world.user, backupId, { databaseName: "shop", sealedIdentity });
    expect(asked.status).toBe(409);
    expect(asked.body.code).toBe("AGENT_OFFLINE");
    expect(await testServer.server.ctx.db.select().from(restores).where(eq(restores.backupId, backupId))).toEqual([]);
  });
});

// Last in the file: it moves the server's clock half a day on.
describe("a job that waits for a restore agent for too long", () => {
  test("is failed after 12 hours, saying why and what to do", async () => {
    const world = await writeOnlyWorld();
    await sealedBackup(world);
    const restoreAgent = await registerRestoreAgent(world.user);
    await connectRestoreAgent(restoreAgent);
    await restoreAgent.waitFor("verify");
    await restoreAgent.disconnect();
    await waitUntil(async () => (await testServer.server.ctx.db.select().from(agents).where(eq(agents.id, restoreAgent.agentId)))[0]?.status === "offline");
    const drill = await testServer.server.call("POST", "/api/drills", { token: world.user.token, body: { databaseName: "shop" } });
    expect(drill.body.restore.waitingFor).toStartWith("Waiting for a restore agent: none online.");

    // To a minute before the limit, from the row's own creation time (the database's clock).
    const createdAt = Date.parse(drill.body.restore.createdAt);
    advanceServerClock(testServer.server, createdAt + QUEUED_LIMIT_MS - 60_000 - testServer.server.ctx.now().getTime());
    await failStalledOperations(testServer.server.ctx);
    expect((await listRestores(world.user)).find((row) => row.id === drill.body.restore.id)?.status).toBe("pending");
    advanceServerClock(testServer.server, 120_000);
    await failStalledOperations(testServer.server.ctx);
    expect((await listRestores(world.user)).find((row) => row.id === drill.body.restore.id)).toMatchObject({
      status: "failed",
      error:
        "No restore agent that can read this backup came online within 12 hours. Start one with dbvault-agent run where the identity is kept, then ask again.",
    });
  });
});
