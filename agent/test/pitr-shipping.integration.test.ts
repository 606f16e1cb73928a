// Point-in-time recovery end to end: the compiled agent (`dbvault-agent run`) against a
// replica-set test server and the DBVault server over loopback. The owner switches it on, the
// agent ships the database's oplog while it takes writes, is SIGKILLed and started again, and
// the server's timeline covers the whole time with no gap, while the slices it stored hold every
// entry of the database exactly once.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { MongoClient } from "mongodb";
import { checkChains, expectedPositions, openSlice, sortSlices } from "../src/oplog/shipping/test-support/slice-sink.ts";
import { startTestServer, type TestServer } from "../../server/test/harness.ts";
import type { MongoTestServer } from "../../testkit/mongo-server/server.ts";
import { startReplicaSetWithClient, stopWithClient } from "../../testkit/mongo-server/replica-set/test-support.ts";
import { waitUntil } from "../../testkit/wait-until.ts";
import { buildReleasePublicKey } from "../../testkit/signed-agent-release.ts";
import { ensureFreshBinary, type RunningAgent } from "./support/end-to-end.ts";
import { setUpShippingAgent } from "./support/pitr-agent.ts";

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
  const shipping = await setUpShippingAgent({ server, baseUrl: base, databases: [{ name: "shop", uri: `${rs.server.uri}shop` }], directory: dir, agents });
  const { api, start, agent: first } = shipping;

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
  const slicesStored = shipping.storedSlices;
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

  const readStored = async () =>
    sortSlices(await Promise.all((await slicesStored()).map(async (row) => openSlice(await shipping.sliceFile(row), shipping.masterKey))));
  const slices = await waitUntil(
    async () => {
      const read = await readStored();
      return read.some((s) => s.entries.some((e) => String((e.o as { _id?: unknown })?._id) === lastWrite && e.op === "i")) ? read : undefined;
    },
    { message: "the last write shipped", timeout: 60_000, interval: 200 },
  );

  const timeline = (await api("GET", `/api/pitr/databases/${shipping.databaseId}/timeline`)).body;
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
