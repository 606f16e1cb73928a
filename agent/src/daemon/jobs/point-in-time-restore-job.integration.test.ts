// The daemon's restore job with `pointInTime`: it downloads each slice from the server with the
// agent's credentials (a dropped connection resumed from the byte reached), checks the chain and
// replays it after the base backup into the replica-set test server. A scripted server stands in
// for the DBVault server here, serving the plan, the backup and the slices at the protocol's paths
// (agentApi.pointInTimePlan, agentApi.download, agentApi.sliceDownload) exactly as the real
// slices the shipper wrote; agent/test/pitr-long-plan.integration.test.ts runs the same job
// against the real server.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFile, mkdtemp, rm, writeFile, readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { MongoClient } from "mongodb";
import type { MongoTestServer } from "../../../../testkit/mongo-server/server.ts";
import { startReplicaSetWithClient, stopWithClient } from "../../../../testkit/mongo-server/replica-set/test-support.ts";
import {
  type AgentMessage,
  AgentHeaders,
  agentApi,
  type PointInTimePlanPage,
  type PointInTimePlanSlice,
  type ServerMessage,
} from "../../../../protocol/agent-protocol";
import type { OplogTime } from "../../../../protocol/oplog-position";
import { encodeMasterKey } from "../../archive/index.ts";
import { loadConfig } from "../../config.ts";
import { type Moment, recordHistory, snapshotDatabase } from "../../oplog/chain/test-support/recorded-history.ts";
import { createDaemonRuntime } from "../runtime.ts";
import { runRestoreJob } from "./restore-job.ts";

const KEY = Buffer.alloc(32, 3);
const TOKEN = "agent-token-1";
let rs: { server: MongoTestServer; client: MongoClient };
let dir: string;
let history: { base: string; moments: Moment[]; slices: string };
let served: Map<string, Uint8Array>;
let requests: { path: string; range: string | null; authorized: boolean }[] = [];
/** Paths whose first answer is cut after a few bytes, as a dropped connection is. */
const cutOnce = new Set<string>();
let scripted: ReturnType<typeof Bun.serve>;
let configPath: string;
let slices: PointInTimePlanSlice[];
/** The plan the scripted server serves for restore-1, two slices a page. */
let plan: { until: OplogTime; slices: PointInTimePlanSlice[] };

beforeAll(async () => {
  rs = await startReplicaSetWithClient();
  dir = await mkdtemp(join(tmpdir(), "dbvault-pitr-job-"));
  history = await recordHistory(rs.client, rs.server.uri, KEY, dir);
  served = new Map([[agentApi.download("base-1"), await readFile(history.base)]]);
  slices = [];
  for (const name of (await readdir(history.slices)).filter((entry) => entry.endsWith(".json")).sort()) {
    const description = JSON.parse(await readFile(join(history.slices, name), "utf8"));
    const id = `slice-${description.sequence}`;
    served.set(agentApi.sliceDownload(id), await readFile(join(history.slices, name.replace(/\.json$/, ".enc.dbvault"))));
    slices.push({ id, chain: description.chain, sequence: description.sequence, size: description.size, sha256: description.sha256 });
  }
  scripted = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      const url = new URL(request.url);
      const authorized = request.headers.get(AgentHeaders.agentToken) === TOKEN;
      requests.push({ path: url.pathname, range: request.headers.get("range"), authorized });
      if (authorized && url.pathname === agentApi.pointInTimePlan("restore-1")) return Response.json(planPage(url.searchParams.get("after")));
      const bytes = served.get(url.pathname);
      if (!authorized || !bytes) return Response.json({ message: "not found" }, { status: 404 });
      const from = Number(/^bytes=(\d+)-$/.exec(request.headers.get("range") ?? "")?.[1] ?? 0);
      if (cutOnce.delete(url.pathname)) {
        let pulls = 0;
        const body = new ReadableStream({
          pull: async (controller) => {
            if (pulls++ === 0) return controller.enqueue(bytes.slice(from, from + 100));
            // The connection drops after what came before: Bun's server flushes that chunk only
            // once this pull yields, so the drop is put after a pause (not a wait for anything).
            await Bun.sleep(50);
            controller.error(new Error("dropped"));
          },
        });
        return new Response(body, { headers: { "content-length": String(bytes.byteLength - from) } });
      }
      return new Response(bytes.slice(from) as Uint8Array<ArrayBuffer>, { status: from > 0 ? 206 : 200 });
    },
  });
  configPath = join(dir, "agent.json");
  const config = {
    version: 1,
    masterKey: encodeMasterKey(KEY),
    databases: [{ name: "shop", uri: `${rs.server.uri}shop` }],
    tools: { mode: "builtin" },
    server: { url: `http://127.0.0.1:${scripted.port}`, apiKey: "key-1", agentId: "agent-1", agentToken: TOKEN },
  };
  await writeFile(configPath, JSON.stringify(config), { mode: 0o600 });
}, 120_000);
afterAll(async () => {
  scripted?.stop(true);
  await stopWithClient(rs);
  await rm(dir, { recursive: true, force: true });
});

function planPage(after: string | null): PointInTimePlanPage {
  const rest = plan.slices.filter((slice) => after === null || slice.sequence > Number(after));
  const page = rest.slice(0, 2);
  const next = rest.length > 2 ? page.at(-1)!.sequence : null;
  return { restoreId: "restore-1", backupId: "base-1", until: plan.until, collections: null, total: plan.slices.length, slices: page, next };
}

async function runJob(pointInTime: { until: OplogTime; slices: PointInTimePlanSlice[] }, targetDatabase: string) {
  plan = pointInTime;
  const runtime = createDaemonRuntime({ configPath, config: await loadConfig(configPath), hello: { hostname: "test", platform: "linux" }, log: () => {} });
  const delivered: AgentMessage[] = [];
  const command: Extract<ServerMessage, { type: "restore" }> = {
    type: "restore",
    restoreId: "restore-1",
    backupId: "base-1",
    databaseName: "shop",
    size: served.get(agentApi.download("base-1"))!.byteLength,
    targetDatabase,
    pointInTime: { until: pointInTime.until, plan: { slices: pointInTime.slices.length, collections: false } },
  } as never;
  await runRestoreJob({ runtime, deliver: (message) => delivered.push(message), send: () => {}, signal: new AbortController().signal }, command);
  return delivered.at(-1) as AgentMessage & { error?: string };
}

test("fetches the plan page by page and downloads the slices with the agent's credentials, resuming a dropped one, and restores the moment", async () => {
  const moment = history.moments[3]!;
  requests = [];
  cutOnce.add(agentApi.sliceDownload(slices[1]!.id));
  const outcome = await runJob({ until: moment.until, slices }, "shop_daemon");
  expect(outcome.type).toBe("restore.completed");
  expect(await snapshotDatabase(rs.client, "shop_daemon")).toBe(moment.contents);
  const planRequests = requests.filter((request) => request.path === agentApi.pointInTimePlan("restore-1"));
  expect(planRequests.length).toBe(Math.max(1, Math.ceil(slices.length / 2)));
  expect(planRequests.every((request) => request.authorized)).toBe(true);
  const sliceRequests = requests.filter((request) => request.path.includes("/pitr/slices/"));
  expect(sliceRequests.every((request) => request.authorized)).toBe(true);
  expect(sliceRequests.filter((request) => request.path === agentApi.sliceDownload(slices[1]!.id)).map((request) => request.range)).toEqual([
    null,
    "bytes=100-",
  ]);
}, 60_000);

test("a slice the server lost a byte of: refused naming it, the target untouched, no slice left on disk", async () => {
  await rs.client
    .db("kept_daemon")
    .collection("c")
    .insertOne({ _id: "mine" } as never);
  const before = await snapshotDatabase(rs.client, "kept_daemon");
  const path = agentApi.sliceDownload(slices[1]!.id);
  const good = served.get(path)!;
  served.set(path, good.subarray(0, good.byteLength - 1));
  const leftBefore = (await readdir(tmpdir())).filter((name) => name.startsWith("dbvault-slices-")).length;
  try {
    const outcome = await runJob({ until: history.moments.at(-1)!.until, slices }, "kept_daemon");
    expect(outcome.type).toBe("restore.failed");
    expect(outcome.error).toBe(
      `slice ${slices[1]!.id} is ${good.byteLength - 1} bytes, not the ${good.byteLength} stored: it is truncated or damaged, so nothing was replaced (the target database is unchanged; restore from the slices as the agent shipped them); nothing was changed`,
    );
  } finally {
    served.set(path, good);
  }
  expect(await snapshotDatabase(rs.client, "kept_daemon")).toBe(before);
  expect((await readdir(tmpdir())).filter((name) => name.startsWith("dbvault-slices-")).length).toBe(leftBefore);
}, 60_000);

test("a plan that is not the one the command announced: refused before any slice is downloaded, the target untouched", async () => {
  await rs.client
    .db("kept_plan")
    .collection("c")
    .insertOne({ _id: "mine" } as never);
  const before = await snapshotDatabase(rs.client, "kept_plan");
  const until = history.moments.at(-1)!.until;
  requests = [];
  // The server lists one slice fewer than the command said.
  const runtime = createDaemonRuntime({ configPath, config: await loadConfig(configPath), hello: { hostname: "test", platform: "linux" }, log: () => {} });
  plan = { until, slices: slices.slice(0, -1) };
  const delivered: AgentMessage[] = [];
  const command = {
    type: "restore",
    restoreId: "restore-1",
    backupId: "base-1",
    databaseName: "shop",
    size: served.get(agentApi.download("base-1"))!.byteLength,
    targetDatabase: "kept_plan",
    pointInTime: { until, plan: { slices: slices.length, collections: false } },
  } as Extract<ServerMessage, { type: "restore" }>;
  await runRestoreJob({ runtime, deliver: (message) => delivered.push(message), send: () => {}, signal: new AbortController().signal }, command);
  const outcome = delivered.at(-1) as AgentMessage & { error?: string };
  expect(outcome.type).toBe("restore.failed");
  expect(outcome.error).toContain(
    `the server's plan is to ${until.t},${until.i} over ${slices.length - 1} slice(s), not to ${until.t},${until.i} over ${slices.length}`,
  );
  expect(requests.filter((request) => request.path.includes("/pitr/slices/"))).toEqual([]);
  expect(await snapshotDatabase(rs.client, "kept_plan")).toBe(before);
}, 60_000);
