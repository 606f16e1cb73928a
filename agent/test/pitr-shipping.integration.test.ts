// Point-in-time recovery end to end: the compiled agent (`dbvault-agent run`) against a
// replica-set test server and the DBVault server over loopback. The owner switches it on, the
// agent ships the database's oplog while it takes writes, is SIGKILLed and started again, and
// the server's timeline covers the whole time with no gap, while the slices it stored hold every
// entry of the database exactly once.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import type { MongoClient } from "mongodb";
import { databases, pitrSlices, plans, organizations } from "@db/schema";
import { decodeMasterKey } from "../src/archive/index.ts";
import { checkChains, expectedPositions, openSlice, sortSlices } from "../src/oplog/shipping/test-support/slice-sink.ts";
import { startTestServer, type TestServer } from "../../server/test/harness.ts";
import type { MongoTestServer } from "../../testkit/mongo-server/server.ts";
import { startReplicaSetWithClient, stopWithClient } from "../../testkit/mongo-server/replica-set/test-support.ts";
import { waitUntil } from "../../testkit/wait-until.ts";
import { buildReleasePublicKey } from "../../testkit/signed-agent-release.ts";
import { ensureFreshBinary, type RunningAgent, runSetup, startAgentProcess } from "./support/end-to-end.ts";
import { apiFor } from "./support/server-faults.ts";

let rs: { server: MongoTestServer; client: MongoClient };
let server: TestServer;
let base: string;
let dir: string;
const agents: RunningAgent[] = [];

beforeAll(async () => {
  await ensureFreshBinary();
  rs = await startReplicaSetWithClient();
  server = await startTestServer({ RELEASE_PUBLIC_KEY: buildReleasePublicKey() });
  base = server.listen();
  dir = await mkdtemp(join(tmpdir(), "dbvault-pitr-e2e-"));
}, 300_000);
afterAll(async () => {
  for (const agent of agents) await agent.stop("SIGKILL");
  await server.close();
  await stopWithClient(rs);
  await rm(dir, { recursive: true, force: true });
});

test("switched on, the agent ships the oplog through a SIGKILL and a restart: no gap, every entry once", async () => {
  const user = await server.registerUser();
  const [pro] = await server.ctx.db.select().from(plans).where(eq(plans.name, "Pro"));
  await server.ctx.db.update(organizations).set({ planId: pro!.id }).where(eq(organizations.id, user.id));
  const api = apiFor(base, user.token);
  const setup = await runSetup({ baseUrl: base, apiKey: user.apiKey, databases: [{ name: "shop", uri: `${rs.server.uri}shop` }], directory: dir });
  expect(setup.exitCode).toBe(0);
  const start = async () => {
    const agent = startAgentProcess(setup.configPath);
    agents.push(agent);
    await waitUntil(async () => (await api("GET", "/api/settings/system-status")).body.agents?.[0]?.status === "active", {
      message: "the agent to be online",
      timeout: 30_000,
    });
    return agent;
  };
  const first = await start();
  const [shop] = await server.ctx.db.select().from(databases).where(eq(databases.organizationId, user.id));
  expect((await api("PUT", `/api/pitr/databases/${shop!.id}`, { enabled: true })).status).toBe(200);

  const orders = rs.client.db("shop").collection("orders");
  let n = 0;
  const write = async () => {
    await orders.insertOne({ _id: n, at: "e2e" } as never);
    if (n % 4 === 0) await orders.updateOne({ _id: n } as never, { $set: { touched: true } });
    await rs.client
      .db("elsewhere")
      .collection("c")
      .insertOne({ n } as never);
    n++;
  };
  const slicesStored = async () => (await server.ctx.db.select().from(pitrSlices).where(eq(pitrSlices.databaseId, shop!.id))).filter((s) => s.stored);
  // Writes go on until the first slices are on the server, then through the kill and the restart.
  await waitUntil(
    async () => {
      await write();
      return (await slicesStored()).some((s) => s.entryCount > 0);
    },
    { message: "the first slices on the server", timeout: 60_000, interval: 100 },
  );
  await first.stop("SIGKILL");
  for (let i = 0; i < 30; i++) await write();
  await start();
  for (let i = 0; i < 30; i++) await write();
  const lastWrite = `${n - 1}`;

  const masterKey = decodeMasterKey(JSON.parse(await Bun.file(setup.configPath).text()).masterKey);
  const readStored = async () => {
    const rows = await slicesStored();
    const files = await Promise.all(
      rows.map(async (row) => {
        const chunks: Uint8Array[] = [];
        for await (const chunk of await server.ctx.storage.get(row.storageKey)) chunks.push(chunk);
        return openSlice(Buffer.concat(chunks), masterKey);
      }),
    );
    return sortSlices(files);
  };
  const slices = await waitUntil(
    async () => {
      const read = await readStored();
      return read.some((s) => s.entries.some((e) => String((e.o as { _id?: unknown })?._id) === lastWrite && e.op === "i")) ? read : undefined;
    },
    { message: "the last write shipped", timeout: 60_000, interval: 200 },
  );

  const timeline = (await api("GET", `/api/pitr/databases/${shop!.id}/timeline`)).body;
  expect(timeline.gaps).toEqual([]);
  expect(timeline.ranges.length).toBe(1);
  expect(new Set(slices.map((s) => s.description.chain)).size).toBe(1);
  const held = checkChains(slices, "shop");
  expect(new Set(held).size).toBe(held.length);
  expect(held).toEqual(await expectedPositions(rs.client, "shop", slices[0]!.description.start, slices.at(-1)!.description.end));
  expect(held.length).toBeGreaterThan(n);
  // The server learnt bounds, counts and sizes, never an entry: its rows hold no document.
  const rows = await slicesStored();
  expect(JSON.stringify(rows, (_, value) => (typeof value === "bigint" ? String(value) : value))).not.toContain("e2e");
}, 240_000);
