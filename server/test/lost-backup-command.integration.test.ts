// A backup command lost while the agent swapped sockets (a network blip, its process restarting,
// its credentials reset): the job ledger (modules/agent-jobs/) sends it again when the agent says
// hello, for the backups it has not started yet and the stalled-operation sweep would still keep. Over real HTTP and
// WebSockets with a scripted agent, whose `intercept` loses the command as a closing socket would.
import { describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { agents, databases } from "@db/schema";
import type { ServerMessage } from "@protocol/agent-protocol";
import { waitUntil } from "../../testkit/wait-until";
import { startBackup } from "../src/modules/backups/service";
import { PENDING_TIMEOUT_MS } from "../src/modules/agent-jobs/lease-rules";
import { advanceServerClock, type TestUser, useListeningTestServer } from "./harness";
import { registerScriptedAgent, type ScriptedAgent } from "./scripted-agent";

const world = useListeningTestServer();

type BackupCommand = Extract<ServerMessage, { type: "backup" }>;

/** A user's agent holding "shop", online, whose backup commands are lost until `lost.stop()`. */
async function agentLosingCommands() {
  const user = await world.server.registerUser();
  const agent = await registerScriptedAgent(world.base, user.apiKey, ["shop"]);
  const lost: BackupCommand[] = [];
  agent.intercept = (message) => message.type === "backup" && lost.push(message) > 0;
  await agent.connect({ databases: ["shop"] });
  await waitUntil(async () => (await agentStatus(agent)) === "active", { message: "the agent to be online" });
  /** The socket swap: the agent goes, its commands are no longer lost, it says hello again (`before` runs between). */
  const reconnect = async (hello: Parameters<ScriptedAgent["connect"]>[0] = { databases: ["shop"] }, before?: () => void) => {
    await agent.disconnect();
    agent.intercept = undefined;
    before?.();
    await agent.connect(hello);
  };
  return { user, agent, lost, reconnect };
}

async function agentRow(agent: ScriptedAgent) {
  const [row] = await world.server.ctx.db.select({ status: agents.status, role: agents.role }).from(agents).where(eq(agents.id, agent.agentId));
  return row;
}
const agentStatus = async (agent: ScriptedAgent) => (await agentRow(agent))?.status;

/** A scheduled backup of "shop", as the scheduler starts one (no manual rate limit), its command lost. */
async function scheduledBackup(agent: ScriptedAgent, lost: BackupCommand[]) {
  const [shop] = await world.server.ctx.db
    .select()
    .from(databases)
    .where(and(eq(databases.agentId, agent.agentId), eq(databases.name, "shop")));
  const backup = await startBackup(world.server.ctx, shop!, "auto");
  expect(backup.status).toBe("pending");
  await waitUntil(() => lost.some((command) => command.backupId === backup.id), { message: "the backup command to be lost" });
  return backup.id;
}

const backupStatus = async (user: TestUser, backupId: string) =>
  ((await world.server.call("GET", "/api/backups", { token: user.token })).body as { id: string; status: string }[]).find((backup) => backup.id === backupId)
    ?.status;

/**
 * Waits until the server handled the hello (an agent's messages are handled in order: a marker
 * sent after it, recorded), then the backup commands the agent got since.
 */
async function backupCommandsAfterHello(agent: ScriptedAgent) {
  const marker = `handled-${Math.random()}`;
  agent.send({ type: "update.status", status: "checking", message: marker });
  await waitUntil(
    async () => {
      const [row] = await world.server.ctx.db.select({ message: agents.updateMessage }).from(agents).where(eq(agents.id, agent.agentId));
      return row?.message === marker;
    },
    { message: "the agent's hello to be handled" },
  );
  return agent.received.filter((message): message is BackupCommand => message.type === "backup");
}

describe("a backup command lost while the agent swapped sockets", () => {
  test("is sent again, as it was, when the agent says hello; once, and the backup stays pending", async () => {
    const { user, agent, lost, reconnect } = await agentLosingCommands();
    const backupId = await scheduledBackup(agent, lost);
    await reconnect();

    const again = await agent.waitFor("backup");
    expect(again).toEqual(lost[0]!);
    expect(await backupCommandsAfterHello(agent)).toEqual([]);
    expect(await backupStatus(user, backupId)).toBe("pending");
    // The agent runs it as if the first had arrived.
    agent.send({ type: "backup.progress", backupId, progress: { current: 1, total: 10, percentage: 10, collection: "shop.orders" } });
    await waitUntil(async () => (await backupStatus(user, backupId)) === "in-progress", { message: "the backup to run" });
  });

  test("a backup the agent started, or finished, is not sent again; one still pending is", async () => {
    const { user, agent, lost, reconnect } = await agentLosingCommands();
    const started = await scheduledBackup(agent, lost);
    agent.send({ type: "backup.progress", backupId: started, progress: { current: 1, total: 10, percentage: 10, collection: "shop.orders" } });
    await waitUntil(async () => (await backupStatus(user, started)) === "in-progress", { message: "the backup to start" });
    const finished = await scheduledBackup(agent, lost);
    expect((await agent.upload(finished, new Uint8Array(3000).fill(7))).status).toBe(200);
    expect(await backupStatus(user, finished)).toBe("completed");
    // The newest: sent last, after any older one wrongly sent again.
    const pending = await scheduledBackup(agent, lost);
    await reconnect();

    expect((await agent.waitFor("backup")).backupId).toBe(pending);
    expect(await backupCommandsAfterHello(agent)).toEqual([]);
  });

  test("a restore agent's hello gets none: it runs no backups", async () => {
    const { agent, lost, reconnect } = await agentLosingCommands();
    await scheduledBackup(agent, lost);
    await reconnect({ role: "restore", databases: ["shop"] });

    await waitUntil(async () => (await agentRow(agent))?.role === "restore", { message: "the restore agent's hello to be recorded" });
    expect(await backupCommandsAfterHello(agent)).toEqual([]);
  });

  // Last: the server's clock stays moved on.
  test("a backup the sweep would fail as never started is not sent again", async () => {
    const { agent, lost, reconnect } = await agentLosingCommands();
    await scheduledBackup(agent, lost);
    await reconnect(undefined, () => advanceServerClock(world.server, PENDING_TIMEOUT_MS + 1_000));

    await waitUntil(async () => (await agentStatus(agent)) === "active", { message: "the agent to be online again" });
    expect(await backupCommandsAfterHello(agent)).toEqual([]);
  });
});
