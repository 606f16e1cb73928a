// The agent's daemon path for bench/dump-memory.ts: a real DBVault server (its own process, on
// embedded defaults), a user on a plan big enough for the backup, `dbvault-agent setup` run
// non-interactively, `dbvault-agent run` as its own process, and one manual backup asked for
// through the API (POST /api/backups, then GET /api/backups/{id} until it is completed). The
// daemon is measured from outside like the dump and restore runs: VmHWM of its PID (reset through
// /proc/PID/clear_refs just before the backup is triggered) and a 20 ms VmRSS sampler.
import { readFileSync, writeFileSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { type RunningAgent, startAgentProcess } from "../../agent/test/support/end-to-end.ts";
import { runAgent } from "../../agent/test/support/run-agent.ts";
import { createUser, MB, makeDataDir, removeDataDir, type ServerProcess, startServer } from "./server-process.ts";

const AGENT_ONLINE_TIMEOUT_MS = 30_000;
const BACKUP_TIMEOUT_MS = 60 * 60_000;

export type DaemonBackup =
  | { skipped: string }
  | {
      /** The daemon's peak resident set during the backup (MB, 10^6 bytes). */
      peakMb: number;
      /** Its resident set just before the backup was triggered (idle, connected). */
      idleMb: number;
      /** From POST /api/backups to GET /api/backups/{id} answering "completed". */
      seconds: number;
      /** The stored ciphertext's size, as the server reports it. */
      sizeMb: number;
      samplesMb: number[];
      /** Reading the stored backup back (download, decrypt, parse, count) right after it completed. */
      verify: { peakMb: number; seconds: number; status: string };
    };

/** A free loopback port (the kernel picks it; closed again before the server takes it). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

export function readStatusKb(pid: number, field: "VmHWM" | "VmRSS"): number | undefined {
  try {
    const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined; // the process has exited
  }
}

async function api<T>(server: ServerProcess, token: string, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${path} failed: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

export async function poll<T>(what: string, timeoutMs: number, intervalMs: number, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(intervalMs);
  }
}

/**
 * The daemon reading a completed backup back (its verification): its peak from the moment the
 * backup completed (VmHWM reset then) and the time until the server records the verification.
 */
async function measureVerification(server: ServerProcess, token: string, backupId: string, daemon: RunningAgent) {
  writeFileSync(`/proc/${daemon.pid}/clear_refs`, "5");
  let peakKb = readStatusKb(daemon.pid, "VmRSS") ?? 0;
  const sampler = setInterval(() => (peakKb = Math.max(peakKb, readStatusKb(daemon.pid, "VmRSS") ?? 0, readStatusKb(daemon.pid, "VmHWM") ?? 0)), 20);
  const started = performance.now();
  try {
    const verified = await poll("the backup to be verified", BACKUP_TIMEOUT_MS, 100, async () => {
      const view = await api<{ verification: { status: string } | null }>(server, token, "GET", `/api/backups/${backupId}`);
      return view.verification ?? undefined;
    });
    peakKb = Math.max(peakKb, readStatusKb(daemon.pid, "VmHWM") ?? 0);
    return { peakMb: (peakKb * 1024) / MB, seconds: (performance.now() - started) / 1000, status: verified.status };
  } finally {
    clearInterval(sampler);
  }
}

/** A DBVault server, a user on a plan, and the agent set up for some databases and running as a daemon. */
export type ConnectedAgent = {
  server: ServerProcess;
  token: string;
  configPath: string;
  daemon: RunningAgent;
  /** The user's API, as the web app calls it. */
  api: <T>(method: string, path: string, body?: unknown) => Promise<T>;
  /** Stops the daemon (SIGTERM, SIGKILL after 10 s) and the server, and removes the server's data. */
  stop(): Promise<void>;
};

/**
 * Starts a DBVault server on embedded defaults, registers a user on `plan`, runs `dbvault-agent
 * setup` for `databases` (name → connection string) with the built-in engine, and starts
 * `dbvault-agent run`; resolves once the server sees the agent online. With `checkPlan`, a plan
 * the check refuses stops everything and answers the reason instead.
 */
export async function startConnectedAgent(options: {
  command: string[];
  databases: Record<string, string>;
  directory: string;
  plan: string;
  checkPlan?: (limits: { name: string; storageLimit: number }) => string | undefined;
}): Promise<ConnectedAgent | { skipped: string }> {
  const dataDir = makeDataDir("agent-daemon-server");
  let server: ServerProcess | undefined;
  let daemon: RunningAgent | undefined;
  const stop = async () => {
    if (daemon?.running()) {
      // SIGTERM lets the daemon report a running job failed and close its socket; SIGKILL after 10 s.
      const timer = setTimeout(() => daemon?.stop("SIGKILL"), 10_000);
      await daemon.stop("SIGTERM");
      clearTimeout(timer);
    }
    await server?.stop();
    removeDataDir(dataDir);
  };
  try {
    server = await startServer(dataDir, await freePort());
    const user = await createUser(server, options.plan);
    const limits = await api<{ name: string; storageLimit: number }>(server, user.token, "GET", "/api/user/plan");
    if (limits.name !== options.plan) throw new Error(`the user is on ${limits.name}, not ${options.plan}`);
    const refused = options.checkPlan?.(limits);
    if (refused) {
      await stop();
      return { skipped: refused };
    }

    // Setup the way a script runs it (as agent/test/support/end-to-end.ts runSetup does, with the
    // bench's agent command): the API key on stdin, the connection strings in a 0600 file.
    const configPath = join(options.directory, "agent.json");
    const databasesFile = join(options.directory, "databases.txt");
    const lines = Object.entries(options.databases).map(([name, uri]) => `${name}=${uri}\n`);
    await writeFile(databasesFile, lines.join(""), { mode: 0o600 });
    const setup = await runAgent(
      ["setup", "--server", `${server.url}/api`, "--api-key-file", "-", "--databases-file", databasesFile, "--name", "bench-agent", "--config", configPath],
      { command: options.command, stdin: new TextEncoder().encode(`${user.apiKey}\n`) },
    );
    if (setup.exitCode !== 0) throw new Error(`dbvault-agent setup failed (exit ${setup.exitCode}):\n${setup.stderr}`);
    // The same engine as the file dump (setup leaves "auto", which would use mongodump if installed).
    const config = JSON.parse(await readFile(configPath, "utf8"));
    await writeFile(configPath, JSON.stringify({ ...config, tools: { mode: "builtin" } }), { mode: 0o600 });

    daemon = startAgentProcess(configPath, options.command);
    const running = daemon;
    const started = server;
    await poll("the agent to be online", AGENT_ONLINE_TIMEOUT_MS, 100, async () => {
      if (!running.running()) throw new Error(`dbvault-agent run exited:\n${running.log()}`);
      const status = await api<{ agents: { status: string }[] }>(started, user.token, "GET", "/api/settings/system-status");
      return status.agents[0]?.status === "active" ? true : undefined;
    });
    return {
      server,
      token: user.token,
      configPath,
      daemon,
      api: (method, path, body) => api(started, user.token, method, path, body),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Backs `databaseUri` up through the daemon once and measures the daemon. Starts and stops its
 * own server and daemon and removes their directories, also when something fails.
 * `expectedBytes` (the ciphertext's size from the file dump) is checked against the plan's storage.
 */
export async function measureDaemonBackup(options: {
  command: string[];
  databaseUri: string;
  directory: string;
  expectedBytes: number;
  plan?: string;
}): Promise<DaemonBackup> {
  const plan = options.plan ?? "Business";
  const connected = await startConnectedAgent({
    command: options.command,
    databases: { bench: options.databaseUri },
    directory: options.directory,
    plan,
    // The ciphertext is about the size of the file dump; leave room for a little variation.
    checkPlan: (limits) =>
      limits.storageLimit < options.expectedBytes * 1.1
        ? `the ${plan} plan stores ${(limits.storageLimit / MB).toFixed(0)} MB, less than this backup's ~${(options.expectedBytes / MB).toFixed(0)} MB`
        : undefined,
  });
  if ("skipped" in connected) return connected;
  const { server, token, daemon } = connected;
  const user = { token };
  const running = daemon;
  try {
    await Bun.sleep(2000); // let start-up garbage settle before the baseline

    const idleKb = readStatusKb(daemon.pid, "VmRSS") ?? 0;
    writeFileSync(`/proc/${daemon.pid}/clear_refs`, "5"); // resets VmHWM to the current RSS
    let peakKb = idleKb;
    const samplesKb: number[] = [];
    const sampler = setInterval(() => {
      const rss = readStatusKb(running.pid, "VmRSS");
      if (rss !== undefined) samplesKb.push(rss);
      peakKb = Math.max(peakKb, rss ?? 0, readStatusKb(running.pid, "VmHWM") ?? 0);
    }, 20);
    const started = performance.now();
    let backup: { id: string; status: string; size: number | null; error: string | null };
    try {
      const created = await api<{ id: string }>(server, user.token, "POST", "/api/backups", { databaseName: "bench" });
      backup = await poll("the backup to complete", BACKUP_TIMEOUT_MS, 100, async () => {
        if (!running.running()) throw new Error(`dbvault-agent run exited during the backup:\n${running.log()}`);
        const view = await api<{ id: string; status: string; size: number | null; error: string | null }>(
          server,
          user.token,
          "GET",
          `/api/backups/${created.id}`,
        );
        return view.status === "completed" || view.status === "failed" ? view : undefined;
      });
    } finally {
      clearInterval(sampler);
    }
    const seconds = (performance.now() - started) / 1000;
    peakKb = Math.max(peakKb, readStatusKb(daemon.pid, "VmHWM") ?? 0);
    if (backup.status !== "completed") throw new Error(`the daemon's backup failed: ${backup.error}\n${daemon.log()}`);
    const verify = await measureVerification(server, user.token, backup.id, daemon);
    return {
      peakMb: (peakKb * 1024) / MB,
      idleMb: (idleKb * 1024) / MB,
      seconds,
      sizeMb: (backup.size ?? 0) / MB,
      samplesMb: samplesKb.map((kb) => (kb * 1024) / MB),
      verify,
    };
  } finally {
    await connected.stop();
  }
}
