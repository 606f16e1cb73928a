// Idle agents: N agents (1,000 by default) registered through the real API (POST
// /api/agent/register, no databases, so the scheduler leaves them alone), then connected to one
// server process from a separate client process (bench/support/idle-agent-client.ts) that sends
// `hello` and a heartbeat every HEARTBEAT_INTERVAL_MS (15 s, staggered), as dbvault-agent does.
// The server's resident set is read from /proc before and after the agents connect, and its CPU
// time (utime + stime) over a window at rest; the server must list every agent as active.
//
//   bun bench/idle-agents.ts [--agents 1000] [--window 20]
import { join } from "node:path";
import { agentApi } from "@protocol/agent-protocol";
import { createUser, makeDataDir, MB, removeDataDir, root, type ServerProcess, startServer } from "./support/server-process";

function readOptions(argv: string[]) {
  const options = { agents: 1000, windowSeconds: 20 };
  for (let i = 0; i < argv.length; i += 2) {
    const [name, value] = [argv[i], Number(argv[i + 1])];
    if (name === "--agents" && value >= 1) options.agents = value;
    else if (name === "--window" && value >= 1) options.windowSeconds = value;
    else {
      console.error("usage: bun bench/idle-agents.ts [--agents 1000] [--window 20]");
      process.exit(2);
    }
  }
  return options;
}

type Credentials = { agentId: string; agentToken: string };

async function registerAgents(server: ServerProcess, apiKey: string, count: number): Promise<Credentials[]> {
  const agents: Credentials[] = [];
  const register = async (index: number) => {
    const res = await fetch(`${server.url}${agentApi.register}`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ name: `idle-${index}`, hostname: `host-${index}.internal`, platform: "linux-x64", version: "1.0.0", databases: [] }),
    });
    if (res.status !== 201) throw new Error(`register failed: ${res.status} ${await res.text()}`);
    agents.push((await res.json()) as Credentials);
  };
  for (let i = 0; i < count; i += 10) await Promise.all(Array.from({ length: Math.min(10, count - i) }, (_, k) => register(i + k)));
  return agents;
}

async function countActive(server: ServerProcess, token: string) {
  const res = await fetch(`${server.url}/api/settings/system-status`, { headers: { authorization: `Bearer ${token}` } });
  const body = (await res.json()) as { agents: { status: string }[] };
  return body.agents.filter((a) => a.status === "active").length;
}

/** CPU use of the server over `seconds`, as a percentage of one core. */
async function measureCpu(server: ServerProcess, seconds: number) {
  const cpu = server.cpuSeconds();
  const started = performance.now();
  await Bun.sleep(seconds * 1000);
  return ((server.cpuSeconds() - cpu) / ((performance.now() - started) / 1000)) * 100;
}

const options = readOptions(process.argv.slice(2));
const dataDir = makeDataDir("idle-agents");
let server: ServerProcess | null = null;
let client: ReturnType<typeof Bun.spawn> | null = null;
try {
  server = await startServer(dataDir, 39_882);
  const user = await createUser(server);
  const started = performance.now();
  const agents = await registerAgents(server, user.apiKey, options.agents);
  console.log(`registered ${agents.length} agents through POST ${agentApi.register} in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  await Bun.sleep(5000);
  const rssBefore = server.rssMb();
  const cpuBefore = await measureCpu(server, Math.min(10, options.windowSeconds));
  console.log(`server at rest, no agent connected: RSS ${rssBefore.toFixed(0)} MB, CPU ${cpuBefore.toFixed(1)} % of one core`);

  client = Bun.spawn([process.execPath, join(root, "bench/support/idle-agent-client.ts"), server.url, user.apiKey], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "inherit",
  });
  (client.stdin as import("bun").FileSink).write(JSON.stringify(agents));
  (client.stdin as import("bun").FileSink).end();
  const reader = (client.stdout as ReadableStream<Uint8Array>).getReader();
  const ready = new TextDecoder().decode((await reader.read()).value);
  if (!ready.startsWith("connected")) throw new Error(`client failed: ${ready}`);
  console.log(`client process: ${ready.trim()}`);

  await Bun.sleep(5000);
  const active = await countActive(server, user.token);
  const rssAfter = server.rssMb();
  const cpuAtRest = await measureCpu(server, options.windowSeconds);
  const rssEnd = server.rssMb();
  const perAgentKb = (rss: number) => (((rss - rssBefore) * MB) / 1024 / options.agents).toFixed(0);
  console.log(`\n${options.agents} agents connected, ${active} listed active by GET /api/settings/system-status`);
  console.log(`  server RSS      ${rssBefore.toFixed(0)} MB before → ${rssAfter.toFixed(0)} MB connected → ${rssEnd.toFixed(0)} MB after the window`);
  console.log(`  memory per agent ${perAgentKb(rssAfter)} KB just after connecting, ${perAgentKb(rssEnd)} KB after the window at rest`);
  console.log(`  server CPU at rest over ${options.windowSeconds} s (heartbeats every 15 s each): ${cpuAtRest.toFixed(1)} % of one core`);
  console.log(`${active === options.agents ? "PASS" : "FAIL"}  every agent connected and active: ${active}/${options.agents}`);
} finally {
  client?.kill();
  await client?.exited;
  await server?.stop();
  removeDataDir(dataDir);
}
process.exit(0);
