// The daemon takes its jobs from the server's ledger over HTTP (issue 42): its hello says it
// fetches them, so the server's socket only says `work`; the daemon fetches the job with its own
// credentials, acknowledges it there and runs it once. The daemon's own code (startAgentDaemon)
// against the real server over loopback; the job is a verification, which needs no MongoDB: the
// stored file is random bytes, which the daemon reads back, fails to open and reports so.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { and, eq } from "drizzle-orm";
import { agentJobs, agents, backups, databases } from "@db/schema";
import { agentApi } from "../../protocol/agent-protocol.ts";
import { startBackup } from "../../server/src/modules/backups/service.ts";
import { startTestServer, type TestServer } from "../../server/test/harness.ts";
import { registerScriptedAgent } from "../../server/test/scripted-agent.ts";
import { waitUntil } from "../../testkit/wait-until.ts";
import { encodeMasterKey } from "../src/archive/index.ts";
import { loadConfig } from "../src/config.ts";
import { startAgentDaemon } from "../src/daemon/agent-daemon.ts";
import { createIdentityTransport } from "../src/daemon/identity-transport.ts";
import { createDaemonRuntime } from "../src/daemon/runtime.ts";

let server: TestServer;
let baseUrl: string;
let dir: string;
let daemon: ReturnType<typeof startAgentDaemon> | undefined;
const realFetch = globalThis.fetch;

beforeAll(async () => {
  server = await startTestServer();
  baseUrl = server.listen();
  dir = await mkdtemp(join(tmpdir(), "dbvault-fetch-jobs-"));
}, 60_000);

afterAll(async () => {
  globalThis.fetch = realFetch;
  await daemon?.stop();
  await server?.close();
  await rm(dir, { recursive: true, force: true });
});

test("a verification asked for reaches the daemon over HTTP: fetched, acknowledged and run once", async () => {
  const user = await server.registerUser();
  // The agent's first backup, made by a scripted stand-in with the agent's credentials.
  const scripted = await registerScriptedAgent(baseUrl, user.apiKey, ["shop"]);
  await scripted.connect({ databases: ["shop"] });
  const [shop] = await server.ctx.db
    .select()
    .from(databases)
    .where(and(eq(databases.organizationId, user.id), eq(databases.name, "shop")));
  const backup = await waitUntil(() => startBackup(server.ctx, shop!, "auto").catch(() => undefined), { message: "the agent to take backups" });
  const bytes = randomBytes(1500);
  expect((await scripted.upload(backup.id, bytes)).status).toBe(200);
  await scripted.disconnect();

  const configPath = join(dir, "agent.json");
  const config = {
    version: 1,
    masterKey: encodeMasterKey(randomBytes(32)),
    databases: [{ name: "shop", uri: "mongodb://127.0.0.1:9/shop" }],
    tools: { mode: "builtin" },
    server: { url: baseUrl, apiKey: user.apiKey, agentId: scripted.agentId, agentToken: scripted.agentToken },
  };
  await writeFile(configPath, JSON.stringify(config), { mode: 0o600 });
  const logs: string[] = [];
  // Watches (never answers) the daemon's HTTP requests: it runs in this process, on the global fetch.
  const requests: string[] = [];
  globalThis.fetch = Object.assign((input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    requests.push(`${init?.method ?? (input instanceof Request ? input.method : "GET")} ${url.pathname}`);
    return realFetch(input, init);
  }, realFetch);
  const runtime = createDaemonRuntime({
    configPath,
    config: await loadConfig(configPath),
    hello: { hostname: "db-host", platform: "linux" },
    log: (message) => void logs.push(message),
  });
  daemon = startAgentDaemon(runtime, await createIdentityTransport());
  await waitUntil(async () => (await server.ctx.db.select().from(agents).where(eq(agents.id, scripted.agentId)))[0]?.status === "active", {
    message: "the daemon to be online",
  });

  const asked = await server.call("POST", `/api/backups/${backup.id}/verify`, { token: user.token });
  expect(asked.status).toBe(202);
  const verified = await waitUntil(async () => (await server.ctx.db.select().from(backups).where(eq(backups.id, backup.id)))[0]?.verification ?? undefined, {
    message: "the daemon to report the verification",
    timeout: 30_000,
  });
  // Random bytes are no backup: read back, they fail to open, and the daemon says so.
  expect(verified.status).toBe("failed");
  const [job] = await server.ctx.db
    .select()
    .from(agentJobs)
    .where(and(eq(agentJobs.kind, "verify"), eq(agentJobs.subjectId, backup.id)));
  expect(job?.state).toBe("done");
  // Fetched once a `work` it was told (the hello's and the verification's may both bring it): run once.
  expect(job!.attempts).toBeGreaterThanOrEqual(1);
  expect(logs.filter((line) => line === "verifying the stored backup")).toHaveLength(1);
  // Over HTTP with its own credentials: fetched, and acknowledged there.
  expect(requests).toContain(`GET ${agentApi.jobs}`);
  await waitUntil(() => requests.includes(`POST ${agentApi.jobAck(job!.id)}`), { message: "the daemon to acknowledge the job over HTTP" });
  globalThis.fetch = realFetch;
});
