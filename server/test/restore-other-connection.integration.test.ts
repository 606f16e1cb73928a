// A restore into another connection an agent knows (issue 44), on the server's side, with scripted
// agents on real sockets: the wizard lists the online agents that can open the backup with their
// connection names (names only), and a restore into one of them goes to that agent as a restore
// command naming the connection; an unknown name, an agent of another organization, an offline
// agent or one that cannot open the backup are refused with a message and change nothing.
import { describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { agents, databases, restores } from "@db/schema";
import { startBackup } from "../src/modules/backups/service";
import { waitUntil } from "../../testkit/wait-until";
import { type TestUser, useListeningTestServer } from "./harness";
import { registerScriptedAgent, type ScriptedAgent } from "./scripted-agent";

const testServer = useListeningTestServer();
const KEY = "0123456789abcdef0123456789abcdef";

/** A user whose agent "db-host" backs up "shop", and an agent "staging-host" that knows the connections "staging" and "reports". */
async function world() {
  const user = await testServer.server.registerUser();
  const source = await registerScriptedAgent(testServer.base, user.apiKey, ["shop"], "db-host");
  await source.connect({ databases: ["shop"], keyIds: [KEY] });
  const other = await registerScriptedAgent(testServer.base, user.apiKey, ["staging", "reports"], "staging-host");
  await other.connect({ databases: ["staging", "reports"], keyIds: [KEY] });
  await helloRecorded(other);
  const [database] = await testServer.server.ctx.db
    .select()
    .from(databases)
    .where(and(eq(databases.organizationId, user.id), eq(databases.name, "shop")));
  await startBackup(testServer.server.ctx, database!, "auto");
  const { backupId } = await source.waitFor("backup");
  const bytes = randomBytes(1200);
  expect((await source.uploadPart(backupId, 0, bytes)).status).toBe(200);
  expect((await source.complete(backupId, bytes, 1, { collections: { "shop.orders": 3 }, keyId: KEY })).status).toBe(200);
  return { user, source, other, backupId };
}

const askRestore = (user: TestUser, backupId: string, body: Record<string, unknown>) =>
  testServer.server.call("POST", `/api/backups/${backupId}/restore`, { token: user.token, body });
const restoreCount = async (user: TestUser) => (await testServer.server.ctx.db.select().from(restores).where(eq(restores.organizationId, user.id))).length;
/** Waits until the agent's hello (its key ids) is recorded: until then any agent counts as able to read. */
const helloRecorded = (agent: ScriptedAgent) =>
  waitUntil(async () => (await testServer.server.ctx.db.select().from(agents).where(eq(agents.id, agent.agentId)))[0]?.keyIds !== null, {
    message: "the hello to be recorded",
  });
const restoreCommands = (agent: ScriptedAgent) => agent.received.filter((message) => message.type === "restore");

describe("restore into another connection of an agent", () => {
  test("lists the online agents that can open the backup with their connection names, and sends the restore to the chosen one by name", async () => {
    const { user, source, other, backupId } = await world();
    // An agent that cannot open the backup is not offered.
    const keyless = await registerScriptedAgent(testServer.base, user.apiKey, ["elsewhere"], "keyless-host");
    await keyless.connect({ databases: ["elsewhere"], keyIds: ["ffffffffffffffffffffffffffffffff"] });
    await helloRecorded(keyless);

    const listed = await testServer.server.call("GET", `/api/backups/${backupId}/restore-connections`, { token: user.token });
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({
      // db-host's only connection is the backup's own database: the wizard's other choices cover it.
      agents: [{ id: other.agentId, name: "staging-host", role: "backup", connections: ["reports", "staging"] }],
    });

    const asked = await askRestore(user, backupId, {
      databaseName: "shop_copy",
      targetDatabase: "shop_copy",
      connection: { agentId: other.agentId, name: "reports" },
    });
    expect(asked.status).toBe(201);
    expect(asked.body.message).toBe('Restore requested into "shop_copy" on staging-host\'s connection "reports". Follow its progress in Restore History.');
    expect(asked.body.restore).toMatchObject({ backupId, databaseName: "shop", targetDatabase: "shop_copy", status: "pending" });
    const command = await other.waitFor("restore");
    expect(command).toMatchObject({
      type: "restore",
      restoreId: asked.body.restore.id,
      backupId,
      databaseName: "reports",
      targetDatabase: "shop_copy",
      size: 1200,
    });
    expect(restoreCommands(source)).toEqual([]);

    // The typed confirmation is the target's name, always.
    const unconfirmed = await askRestore(user, backupId, {
      databaseName: "shop",
      targetDatabase: "other",
      connection: { agentId: other.agentId, name: "reports" },
    });
    expect(unconfirmed.status).toBe(400);
    expect(unconfirmed.body.message).toBe("Please type 'other' to confirm");

    // The same target on the same agent while the first runs: refused.
    const again = await askRestore(user, backupId, {
      databaseName: "shop_copy",
      targetDatabase: "shop_copy",
      connection: { agentId: other.agentId, name: "staging" },
    });
    expect(again.status).toBe(409);
    expect(again.body.message).toBe('A restore into "shop_copy" on "staging-host" is already running.');

    // The backup's own connection chosen here while a restore over the original runs: refused too.
    const over = await askRestore(user, backupId, { databaseName: "shop" });
    expect(over.status).toBe(201);
    const ownConnection = await askRestore(user, backupId, { databaseName: "shop", connection: { agentId: source.agentId, name: "shop" } });
    expect(ownConnection.status).toBe(409);
    expect(ownConnection.body.message).toBe('A restore into "shop" on "db-host" is already running.');
  });

  test("refuses an unknown connection name, another organization's agent, an offline agent and one that cannot open the backup, changing nothing", async () => {
    const { user, other, backupId } = await world();
    const before = await restoreCount(user);

    const unknown = await askRestore(user, backupId, { databaseName: "shop", connection: { agentId: other.agentId, name: "prod-eu" } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toBe(
      'The agent "staging-host" has no connection named "prod-eu", so nothing was changed. Its connections: "reports", "staging". Add one on its machine with dbvault-agent db add, then try again.',
    );
    // A name another agent of the organization declared is still not this agent's connection.
    const notItsOwn = await askRestore(user, backupId, { databaseName: "shop", connection: { agentId: other.agentId, name: "shop" } });
    expect(notItsOwn.status).toBe(400);

    const stranger = await testServer.server.registerUser();
    const foreign = await registerScriptedAgent(testServer.base, stranger.apiKey, ["reports"], "their-host");
    await foreign.connect({ databases: ["reports"], keyIds: [KEY] });
    const theirs = await askRestore(user, backupId, { databaseName: "shop", connection: { agentId: foreign.agentId, name: "reports" } });
    expect(theirs.status).toBe(404);
    expect(theirs.body.message).toBe("Agent not found.");
    // Nor can the stranger list or restore this user's backup.
    expect((await testServer.server.call("GET", `/api/backups/${backupId}/restore-connections`, { token: stranger.token })).status).toBe(404);

    const keyless = await registerScriptedAgent(testServer.base, user.apiKey, ["elsewhere"], "keyless-host");
    await keyless.connect({ databases: ["elsewhere"], keyIds: ["ffffffffffffffffffffffffffffffff"] });
    await helloRecorded(keyless);
    const unreadable = await askRestore(user, backupId, { databaseName: "shop", connection: { agentId: keyless.agentId, name: "elsewhere" } });
    expect(unreadable.status).toBe(409);
    expect(unreadable.body.message).toStartWith(`The agent "keyless-host" cannot open this backup: it does not hold the key ${KEY}, so nothing was changed.`);

    await other.disconnect();
    await waitUntil(async () => (await testServer.server.ctx.db.select().from(agents).where(eq(agents.id, other.agentId)))[0]?.status === "offline");
    const offline = await askRestore(user, backupId, { databaseName: "shop", connection: { agentId: other.agentId, name: "reports" } });
    expect(offline.status).toBe(409);
    expect(offline.body).toMatchObject({
      code: "AGENT_OFFLINE",
      message: 'The agent "staging-host" is offline, so nothing was changed. Start it with dbvault-agent run on its machine, then try again.',
    });

    const badShape = await askRestore(user, backupId, { databaseName: "shop", connection: { agentId: other.agentId, name: "" } });
    expect(badShape.status).toBe(400);
    expect(await restoreCount(user)).toBe(before);
    expect(restoreCommands(foreign)).toEqual([]);
    expect(restoreCommands(keyless)).toEqual([]);
  });
});
