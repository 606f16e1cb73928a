// Point-in-time recovery through the compiled agent and the DBVault server: a user on the Pro
// plan whose `dbvault-agent run` ships one database of a replica-set test server, switched on as
// the owner does it, and the slices the server stored read back as the user holds them.
import { expect } from "bun:test";
import { eq } from "drizzle-orm";
import { databases, organizations, pitrSlices, plans } from "@db/schema";
import type { TestServer } from "../../../server/test/harness.ts";
import { waitUntil } from "../../../testkit/wait-until.ts";
import { decodeMasterKey } from "../../src/archive/index.ts";
import { type RunningAgent, runSetup, startAgentProcess } from "./end-to-end.ts";
import { apiFor } from "./server-faults.ts";

export type PitrSliceRow = typeof pitrSlices.$inferSelect;

/**
 * Sets the agent up for `databases` (the first is shipped), starts it, waits until the server
 * shows it online and switches point-in-time recovery on. `start()` runs it again after a test
 * stopped it; every agent started is pushed to `agents` (for the file's afterAll).
 */
export async function setUpShippingAgent(options: {
  server: TestServer;
  baseUrl: string;
  databases: { name: string; uri: string }[];
  directory: string;
  agents: RunningAgent[];
}) {
  const { server, baseUrl } = options;
  const user = await server.registerUser();
  const [pro] = await server.ctx.db.select().from(plans).where(eq(plans.name, "Pro"));
  await server.ctx.db.update(organizations).set({ planId: pro!.id }).where(eq(organizations.id, user.id));
  const api = apiFor(baseUrl, user.token);
  const setup = await runSetup({ baseUrl, apiKey: user.apiKey, databases: options.databases, directory: options.directory });
  expect(setup.exitCode).toBe(0);
  const start = async () => {
    const agent = startAgentProcess(setup.configPath);
    options.agents.push(agent);
    await waitUntil(async () => (await api("GET", "/api/settings/system-status")).body.agents?.[0]?.status === "active", {
      message: "the agent to be online",
      timeout: 30_000,
    });
    return agent;
  };
  const agent = await start();
  const name = options.databases[0]!.name;
  const [database] = (await server.ctx.db.select().from(databases).where(eq(databases.organizationId, user.id))).filter((row) => row.name === name);
  expect((await api("PUT", `/api/pitr/databases/${database!.id}`, { enabled: true })).status).toBe(200);
  const masterKey = decodeMasterKey(JSON.parse(await Bun.file(setup.configPath).text()).masterKey);

  /** The database's slices the server stored, in chain order within each chain. */
  const storedSlices = async () =>
    (await server.ctx.db.select().from(pitrSlices).where(eq(pitrSlices.databaseId, database!.id)))
      .filter((row) => row.stored)
      .sort((a, b) => (a.startTs < b.startTs ? -1 : a.startTs > b.startTs ? 1 : a.sequence - b.sequence));
  /** A stored slice's file, as the server keeps it. */
  const sliceFile = async (row: PitrSliceRow) => {
    const chunks: Uint8Array[] = [];
    for await (const chunk of await server.ctx.storage.get(row.storageKey)) chunks.push(chunk);
    return Buffer.concat(chunks);
  };
  return { user, api, configPath: setup.configPath, agent, start, databaseId: database!.id, masterKey, storedSlices, sliceFile };
}
