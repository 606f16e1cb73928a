// `dbvault-agent key rotate` while `dbvault-agent run` runs (issue 46 §1): the server learnt an
// agent's key ids only from its hello, so it refused restores of backups made (or rewrapped)
// with the new key, "No agent can read this backup", until the agent was restarted. The CLI now
// tells the server at once. The real compiled agent, server and MongoDB test server over loopback.
import { expect, test } from "bun:test";
import { decodeMasterKey, deriveKeyId } from "../src/archive/index.ts";
import { chmod, readFile } from "node:fs/promises";
import { setUpUserWithAgent, useEndToEndWorld, waitForBackupEnd } from "./support/end-to-end-world.ts";
import { BINARY_PATH, runAgent } from "./support/run-agent.ts";
import { and, eq } from "drizzle-orm";
import { databases } from "../../db/schema";
import { startBackup } from "../../server/src/modules/backups/service";
import { waitUntil } from "../../testkit/wait-until";

const world = useEndToEndWorld();

async function seeded(prefix: string) {
  const database = world.env.uniqueDatabase(prefix);
  await world.env.client
    .db(database)
    .collection("orders")
    .insertMany([
      { _id: 1, total: 10 },
      { _id: 2, total: 20 },
    ] as never[]);
  return database;
}

type Api = Awaited<ReturnType<typeof setUpUserWithAgent>>["api"];

/** A backup of "main" as the scheduler starts one (two manual ones in a row are refused by the plan), completed. */
async function completedBackup(api: Api, organizationId: string) {
  const [main] = await world.server.ctx.db
    .select()
    .from(databases)
    .where(and(eq(databases.organizationId, organizationId), eq(databases.name, "main")));
  const backup = await startBackup(world.server.ctx, main!, "auto");
  expect(await waitForBackupEnd(api, backup.id)).toMatchObject({ status: "completed" });
  return backup.id;
}

/** Asks for a restore of the backup into "main" and waits for its end. */
async function restoreOf(api: Api, backupId: string) {
  const requested = await api("POST", `/api/backups/${backupId}/restore`, { databaseName: "main" });
  expect({ status: requested.status, message: requested.body.message }).toEqual({
    status: 201,
    message: "Restore requested. Follow its progress in Restore History.",
  });
  const restoreId = requested.body.restore._id as string;
  return waitUntil(
    async () => {
      const restore = ((await api("GET", "/api/backups/restores/all")).body as { _id: string; status: string }[]).find((r) => r._id === restoreId);
      return restore && ["completed", "failed"].includes(restore.status) ? restore : undefined;
    },
    { message: "the restore to end", timeout: 60_000 },
  );
}

const masterKeyId = async (configPath: string) => deriveKeyId(decodeMasterKey(JSON.parse(await readFile(configPath, "utf8")).masterKey));

test("without --rewrap: the backup made right after the rotation restores from the dashboard, no restart", async () => {
  const { user, api, configPath, start } = await setUpUserWithAgent(world, await seeded("rotate"));
  const agent = await start();
  await completedBackup(api, user.id);

  const rotated = await runAgent(["key", "rotate", "--config", configPath], { command: [BINARY_PATH] });
  expect(rotated.exitCode).toBe(0);
  expect(rotated.stderr).toContain(
    "dbvault-agent: told the DBVault server the key ids of this keyring: restores of backups made with its keys go to this agent at once, without restarting dbvault-agent run\n",
  );
  const newKeyId = await masterKeyId(configPath);
  const after = await completedBackup(api, user.id);
  expect((await api("GET", `/api/backups/${after}`)).body.keyId).toBe(newKeyId);

  expect(await restoreOf(api, after)).toMatchObject({ status: "completed" });
  // The same process all along.
  expect(agent.running()).toBe(true);
  expect(agent.log()).not.toContain("disconnected from the server");
}, 180_000);

test("with --rewrap: every rewrapped backup restores from the dashboard, no restart", async () => {
  const { user, api, configPath, start } = await setUpUserWithAgent(world, await seeded("rewrap"));
  const agent = await start();
  const before = await completedBackup(api, user.id);

  const rotated = await runAgent(["key", "rotate", "--rewrap", "--config", configPath], { command: [BINARY_PATH] });
  expect(rotated.exitCode).toBe(0);
  expect((await api("GET", `/api/backups/${before}`)).body.keyId).toBe(await masterKeyId(configPath));

  expect(await restoreOf(api, before)).toMatchObject({ status: "completed" });
  expect(agent.running()).toBe(true);
  expect(agent.log()).not.toContain("disconnected from the server");
}, 180_000);

test("a server that cannot be told: the rotation stands, and it says to restart the agent", async () => {
  const { configPath } = await setUpUserWithAgent(world, await seeded("unreachable"));
  const config = JSON.parse(await readFile(configPath, "utf8"));
  const elsewhere = `${configPath}.elsewhere.json`;
  // A port nothing listens on.
  await Bun.write(elsewhere, JSON.stringify({ ...config, server: { ...config.server, url: "http://127.0.0.1:9" } }));
  await chmod(elsewhere, 0o600);

  const rotated = await runAgent(["key", "rotate", "--config", elsewhere], { command: [BINARY_PATH] });
  expect(rotated.exitCode).toBe(0);
  expect(rotated.stderr).toMatch(
    /dbvault-agent: warning: could not tell the DBVault server about the new key \(cannot reach the DBVault server at http:\/\/127\.0\.0\.1:9: [^\n]+\): it refuses restores of backups made with it until dbvault-agent run reconnects; restart it \(or its service\) now\n$/,
  );
  expect(await masterKeyId(elsewhere)).not.toBe(deriveKeyId(decodeMasterKey(config.masterKey)));
}, 60_000);
