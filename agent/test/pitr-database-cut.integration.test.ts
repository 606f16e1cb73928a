// Issue 47 §4 end to end: the compiled agent ships a database it reaches through a TCP proxy, and
// the test cuts the proxy while the application keeps writing. The agent's own heartbeat to the
// database fails, the server hears it with the next heartbeat, the timeline shows the database
// unreachable with a growing lag, and pitr.lag is mailed once the cut has lasted 2 minutes (the
// server's clock moved on by the test). Healed, the database answers again.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { MongoClient } from "mongodb";
import { startTestServer, type TestServer } from "../../server/test/harness.ts";
import type { MongoTestServer } from "../../testkit/mongo-server/server.ts";
import { startReplicaSetWithClient, stopWithClient } from "../../testkit/mongo-server/replica-set/test-support.ts";
import { buildReleasePublicKey } from "../../testkit/signed-agent-release.ts";
import { startTcpProxy, type TcpProxy } from "../../testkit/tcp-proxy.ts";
import { waitUntil } from "../../testkit/wait-until.ts";
import { ensureFreshBinary, type RunningAgent } from "./support/end-to-end.ts";
import { setUpShippingAgent } from "./support/pitr-agent.ts";

let rs: { server: MongoTestServer; client: MongoClient };
let proxy: TcpProxy;
let server: TestServer;
let base: string;
let dir: string;
const agents: RunningAgent[] = [];

beforeAll(async () => {
  await ensureFreshBinary();
  rs = await startReplicaSetWithClient();
  proxy = await startTcpProxy(rs.server.port);
  server = await startTestServer({ RELEASE_PUBLIC_KEY: buildReleasePublicKey() });
  base = server.listen();
  dir = await mkdtemp(join(tmpdir(), "dbvault-pitr-cut-"));
}, 300_000);
afterAll(async () => {
  for (const agent of agents) await agent.stop("SIGKILL");
  await server.close();
  await proxy.close();
  await stopWithClient(rs);
  await rm(dir, { recursive: true, force: true });
});

test("a cut between the agent and its database raises the lag, shows it unreachable and alerts within 5 minutes", async () => {
  const uri = `mongodb://127.0.0.1:${proxy.port}/shop?directConnection=true`;
  const shipping = await setUpShippingAgent({ server, baseUrl: base, databases: [{ name: "shop", uri }], directory: dir, agents });
  const timeline = async () => (await shipping.api("GET", `/api/pitr/databases/${shipping.databaseId}/timeline`)).body;
  const orders = rs.client.db("shop").collection("orders");
  let n = 0;
  const write = async () => void (await orders.insertOne({ n: n++ }));
  await waitUntil(
    async () => {
      await write();
      const now = await timeline();
      return (await shipping.storedSlices()).some((s) => s.entryCount > 0) && now.lagSeconds !== null && now.unreachableSince === null;
    },
    { message: "shipping under way and a lag reported", timeout: 60_000, interval: 200 },
  );

  proxy.cut();
  const cutAt = Date.now();
  const cut = await waitUntil(
    async () => {
      await write(); // the application goes on writing, straight to the database
      const now = await timeline();
      return now.unreachableSince !== null && now.lagSeconds >= 10 ? now : undefined;
    },
    { message: "the database reported unreachable with a growing lag", timeout: 90_000, interval: 500 },
  );
  expect(Date.parse(cut.unreachableSince)).toBeGreaterThanOrEqual(cutAt - 15_000);
  expect(server.sentMail.filter((mail) => mail.subject === "Point-in-time recovery behind: shop")).toEqual([]);

  // Two minutes on the server's clock: the next heartbeat that still says unreachable alerts.
  server.ctx.now = () => new Date(Date.now() + 125_000);
  const mail = await waitUntil(() => server.sentMail.find((m) => m.subject === "Point-in-time recovery behind: shop"), {
    message: "the pitr.lag e-mail",
    timeout: 60_000,
  });
  expect(mail.text).toContain(`The agent shipping "shop"'s oplog can't reach the database since`);

  proxy.heal();
  await waitUntil(async () => (await timeline()).unreachableSince === null, { message: "the database answering again", timeout: 90_000, interval: 500 });
}, 300_000);
