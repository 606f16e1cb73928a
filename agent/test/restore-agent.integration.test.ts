// Restore agents (issue 27 §4) on the real path: the server, two compiled agents of one account
// and the MongoDB test server over loopback. The backup agent is write-only: it seals its backups
// to a public key and cannot read them back, so its backup waits for a verification, saying why.
// A restore agent set up with the identity (`setup --role restore --identity FILE`) connects and
// verifies it (decrypting and comparing with the counts dumped), then runs the drill and the
// restore the server sends it. With the restore agent stopped, a restore on the backup agent with
// the identity pasted works: sealed (as the web wizard does) to the transport key the backup
// agent's hello said, it is readable in no request body or command of the server, and afterwards
// in no table, log line or file of the server, nor in the backup agent's config or log.
import { expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { agentJobs, backups } from "@db/schema";
import { openAgentCommand } from "../../server/src/lib/agent-commands.ts";
import { captureServerLog, whereServerKeeps } from "../../server/test/secret-search.ts";
import { sealIdentity } from "../../web/src/features/dashboard/utils/seal-identity.ts";
import { waitUntil } from "../../testkit/wait-until";
import { runSetup, startAgentProcess } from "./support/end-to-end.ts";
import { setUpUserWithAgent, useEndToEndWorld, waitForBackupEnd } from "./support/end-to-end-world.ts";

const world = useEndToEndWorld();

test("a restore agent verifies, drills and restores a write-only agent's backups; an identity pasted for the backup agent is kept nowhere", async () => {
  const database = world.env.uniqueDatabase("restoreagent");
  const orders = world.env.client.db(database).collection("orders");
  await orders.insertMany([{ _id: 1, total: 10 } as never, { _id: 2, total: 20 } as never, { _id: 3, total: 30 } as never]);
  const offline = await world.env.makeTempDir();
  const identityFile = join(offline, "identity.txt");
  const backupHost = await setUpUserWithAgent(world, database, ["--key-mode", "write-only", "--identity-out", identityFile]);
  const { api } = backupHost;
  const serverLog = captureServerLog(world.server);
  const backupAgent = await backupHost.start();

  // Made and stored, but its own agent cannot read it back: the verification waits, saying why.
  const created = await api("POST", "/api/backups", { databaseName: "main" });
  expect(created.status).toBe(201);
  const backup = await waitForBackupEnd(api, created.body._id, 60_000);
  expect(backup.status).toBe("completed");
  expect(backup.collections).toEqual({ [`${database}.orders`]: 3 });
  const waiting = await waitUntil(async () => (await api("GET", `/api/backups/${backup.id}`)).body.verificationWaitingFor, {
    message: "the verification to wait for a restore agent",
  });
  expect(waiting).toStartWith("Waiting for an agent that holds the key ");
  await waitUntil(() => backupAgent.log().includes("this agent is write-only: a restore agent verifies the stored backup"), {
    message: "the backup agent to leave the verification to a restore agent",
  });
  expect((await api("GET", `/api/backups/${backup.id}`)).body.verification).toBeNull();

  // The restore agent: a second machine of the account, with the identity and its own connection.
  const setup = await runSetup({
    baseUrl: world.base,
    apiKey: backupHost.user.apiKey,
    databases: [{ name: "main", uri: world.env.uriFor(database) }],
    directory: await world.env.makeTempDir(),
    name: "recovery-laptop",
    extraArgs: ["--role", "restore", "--identity", identityFile],
  });
  expect(setup.exitCode).toBe(0);
  expect(setup.stderr).toContain(`dbvault-agent: this is a restore agent: it opens the backups sealed to the public key ${backup.keyId} and runs`);
  const restoreConfig = JSON.parse(await readFile(setup.configPath, "utf8"));
  expect(restoreConfig.role).toBe("restore");
  expect(restoreConfig.identities).toEqual([(await readFile(identityFile, "utf8")).trim()]);
  expect(restoreConfig.masterKey).toBeUndefined();
  const restoreAgent = startAgentProcess(setup.configPath);
  world.agents.push(restoreAgent);

  // It connects, is sent the waiting verification, decrypts the stored file and compares.
  const verified = await waitUntil(
    async () => {
      const current = (await api("GET", `/api/backups/${backup.id}`)).body;
      return current.verification ? current : undefined;
    },
    { message: "the restore agent to verify the backup", timeout: 60_000 },
  );
  expect(verified.verification).toEqual({ status: "ok", namespaces: { [`${database}.orders`]: 3 } });
  expect(verified.verificationWaitingFor).toBeNull();
  const agents = (await api("GET", "/api/settings/system-status")).body.agents as { name: string; role: string; keyIds: string[] }[];
  expect(agents.map((agent) => [agent.name, agent.role, agent.keyIds.includes(backup.keyId)])).toEqual([
    ["e2e-agent", "backup", false],
    ["recovery-laptop", "restore", true],
  ]);

  // It compares the file it read with the SHA-256 recorded at upload: a record that disagrees fails.
  await world.server.ctx.db
    .update(backups)
    .set({ sha256: "0".repeat(64) })
    .where(eq(backups.id, backup.id));
  expect((await api("POST", `/api/backups/${backup.id}/verify`)).status).toBe(202);
  const mismatch = await waitUntil(
    async () => {
      const current = (await api("GET", `/api/backups/${backup.id}`)).body;
      return current.verification?.status === "failed" ? current.verification : undefined;
    },
    { message: "the checksum mismatch to be reported", timeout: 60_000 },
  );
  expect(mismatch.error).toBe(`the stored file's SHA-256 ${backup.sha256} is not the one recorded at upload (${"0".repeat(64)})`);
  await world.server.ctx.db.update(backups).set({ sha256: backup.sha256 }).where(eq(backups.id, backup.id));

  // A drill runs on it.
  const drill = await api("POST", "/api/drills", { databaseName: "main" });
  expect(drill.status).toBe(201);
  const drilled = await waitForRestore(api, drill.body.restore.id);
  expect(drilled).toMatchObject({ status: "completed", drill: { documents: { expected: 3, restored: 3 }, scratchDropped: true } });
  expect(restoreAgent.log()).toContain("restore drill passed");

  // A restore too, over the database as it is now.
  await orders.deleteMany({});
  const restore = await api("POST", `/api/backups/${backup.id}/restore`, { databaseName: "main" });
  expect(restore.status).toBe(201);
  expect((await waitForRestore(api, restore.body.restore.id)).status).toBe("completed");
  expect(await orders.countDocuments()).toBe(3);
  expect(restoreAgent.log()).toContain("restore completed");

  // The restore agent stopped: a restore on the backup agent, with the identity pasted in the web.
  await restoreAgent.stop("SIGTERM");
  await orders.deleteMany({});
  const identity = (await readFile(identityFile, "utf8")).trim();
  const secret = identity.slice("dbvid1_".length);
  // What crosses the cluster bus: with the job ledger, only "agent X has work".
  const busEvents: string[] = [];
  const unsubscribe = world.server.ctx.bus.subscribe((event) => void busEvents.push(JSON.stringify(event)));
  // As the web wizard does: sealed to the backup agent's transport key, which its hello said.
  const listed = (await api("GET", "/api/settings/system-status")).body.agents as { name: string; identityRecipient: string | null }[];
  const recipient = listed.find((agent) => agent.name === "e2e-agent")?.identityRecipient;
  expect(recipient).toMatch(/^age1[a-z0-9]{58}$/);
  const requestBody = { databaseName: "main", sealedIdentity: await sealIdentity(identity, recipient!) };
  const pasted = await api("POST", `/api/backups/${backup.id}/restore`, requestBody);
  expect(pasted.status).toBe(201);
  expect((await waitForRestore(api, pasted.body.restore.id)).status).toBe("completed");
  expect(await orders.countDocuments()).toBe(3);
  await world.server.ctx.pendingWork.settled();
  unsubscribe();
  expect(JSON.stringify(requestBody)).not.toContain(secret);
  // The command waits in the ledger with its identity sealed apart, and goes to the agent as sealed to it.
  const [job] = await world.server.ctx.db.select().from(agentJobs).where(eq(agentJobs.subjectId, pasted.body.restore.id));
  expect(JSON.stringify(job!.command)).not.toContain("sealedIdentity");
  const command = JSON.stringify(openAgentCommand(world.server.ctx.commandBox, job!.command as Record<string, unknown>, job!.sealed ?? undefined));
  expect(command).toContain("sealedIdentity");
  expect(command).not.toContain(secret);
  expect(busEvents.join("\n")).not.toContain("sealedIdentity");
  expect(busEvents.join("\n")).not.toContain(secret);
  expect(await whereServerKeeps(world.server, secret)).toEqual([]);
  serverLog.stop();
  expect(serverLog.lines.some((line) => line.includes(pasted.body.restore.id))).toBe(true);
  expect(serverLog.lines.join("\n")).not.toContain(secret);
  expect(await readFile(backupHost.configPath, "utf8")).not.toContain(secret);
  expect(backupAgent.log()).not.toContain(secret);
});

async function waitForRestore(api: Awaited<ReturnType<typeof setUpUserWithAgent>>["api"], restoreId: string) {
  return waitUntil(
    async () => {
      const rows = (await api("GET", "/api/backups/restores/all")).body as { id: string; status: string }[];
      const row = rows.find((each) => each.id === restoreId);
      return row && (row.status === "completed" || row.status === "failed") ? row : undefined;
    },
    { message: "the restore to end", timeout: 60_000 },
  );
}
