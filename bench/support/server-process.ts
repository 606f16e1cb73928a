// Shared by the pipeline benches: runs `bun server/src/main.ts` as its own process on a loopback
// port (so its memory and CPU are measured from outside, in /proc), and makes bench users through
// the real HTTP API.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const root = resolve(import.meta.dir, "../..");
export const MB = 1_000_000;
export const MiB = 1024 * 1024;

const ADMIN = { email: "bench-admin@example.com", password: "bench-admin-password" };
const START_TIMEOUT_MS = 120_000;

export type ServerProcess = {
  pid: number;
  url: string;
  dataDir: string;
  /** Resident set size now, in MB (10^6 bytes). */
  rssMb(): number;
  /** CPU time (user + system) the server has used so far, in seconds. */
  cpuSeconds(): number;
  /** Stops the server (SIGTERM, then SIGKILL after 10 s); keeps the data directory. */
  stop(): Promise<void>;
};

export function makeDataDir(label: string): string {
  return mkdtempSync(join(tmpdir(), `dbvault-bench-${label}-`));
}

export function removeDataDir(dataDir: string): void {
  rmSync(dataDir, { recursive: true, force: true });
}

export function readRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return (Number(status.match(/VmRSS:\s+(\d+) kB/)![1]) * 1024) / MB;
}

/** A process's CPU time in user space and in the kernel (seconds; 100 Hz ticks) and its minor page faults. */
export function readCpuCounters(pid: number): { user: number; system: number; minorFaults: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { user: Number(fields[11]) / 100, system: Number(fields[12]) / 100, minorFaults: Number(fields[7]) };
}

/** utime + stime of a process, in seconds. */
export function readCpuSeconds(pid: number): number {
  const { user, system } = readCpuCounters(pid);
  return user + system;
}

/** Starts the server on embedded defaults (PGlite, filesystem storage, mail to the log) in dataDir. */
export async function startServer(dataDir: string, port: number, env: Record<string, string> = {}): Promise<ServerProcess> {
  // BENCH_SERVER_FLAGS passes Bun flags to the server, e.g. "--cpu-prof --cpu-prof-md --cpu-prof-dir=/tmp/prof".
  const flags = (process.env.BENCH_SERVER_FLAGS ?? "").split(" ").filter(Boolean);
  const child = Bun.spawn([process.execPath, ...flags, join(root, "server/src/main.ts")], {
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: "127.0.0.1",
      LOG_LEVEL: "warn",
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      ...env,
    },
    stdout: "ignore",
    stderr: "inherit",
  });
  const url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode} before answering`);
    try {
      if ((await fetch(`${url}/api/settings/plans`)).ok) break;
    } catch {}
    if (performance.now() - started > START_TIMEOUT_MS) {
      child.kill("SIGKILL");
      throw new Error("server did not start within 120 s");
    }
    await Bun.sleep(100);
  }
  return {
    pid: child.pid,
    url,
    dataDir,
    rssMb: () => readRssMb(child.pid),
    cpuSeconds: () => readCpuSeconds(child.pid),
    async stop() {
      if (child.exitCode !== null) return;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await child.exited;
      clearTimeout(timer);
    },
  };
}

export type BenchUser = { id: string; token: string; apiKey: string; email: string };

async function postJson(url: string, body: unknown, token?: string): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
}

async function expectJson<T>(res: Response, what: string): Promise<T> {
  if (!res.ok) throw new Error(`${what} failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

let userCounter = 0;

/** Registers a user through the API; with `plan`, the bench admin moves it to that plan (by name). */
export async function createUser(server: ServerProcess, plan?: string): Promise<BenchUser> {
  const email = `bench-${Date.now().toString(36)}-${++userCounter}@example.com`;
  const registered = await expectJson<{ token: string; user: { id: string; apiKey: string } }>(
    await postJson(`${server.url}/api/auth/register`, { name: "Bench User", email, password: "bench-password" }),
    "register",
  );
  const user = { id: registered.user.id, token: registered.token, apiKey: registered.user.apiKey, email };
  if (plan) await setPlan(server, user.id, plan);
  return user;
}

let adminToken: { url: string; token: string } | null = null;

async function setPlan(server: ServerProcess, userId: string, planName: string) {
  if (adminToken?.url !== server.url) {
    const login = await expectJson<{ token: string }>(await postJson(`${server.url}/api/auth/login`, ADMIN), "admin login");
    adminToken = { url: server.url, token: login.token };
  }
  const auth = { authorization: `Bearer ${adminToken.token}` };
  const plans = await expectJson<{ id: string; name: string }[]>(await fetch(`${server.url}/api/admin/plans`, { headers: auth }), "list plans");
  const plan = plans.find((p) => p.name === planName);
  if (!plan) throw new Error(`no plan named ${planName}`);
  const res = await fetch(`${server.url}/api/admin/users/${userId}`, {
    method: "PUT",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({ plan: plan.id }),
  });
  await expectJson(res, "set plan");
}

/** Percentile of sorted values (nearest rank). */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export function verdict(ok: boolean, text: string): string {
  return `${ok ? "PASS" : "FAIL"}  ${text}`;
}
