// Pieces of the end-to-end test: the compiled agent built fresh, `dbvault-agent run` as a child
// process whose log is captured, a browser-side realtime client, and polling helpers.
import { join } from "node:path";
import { isAgentBuildCurrent } from "../../../scripts/build-freshness.ts";
import { BINARY_PATH, REPO_ROOT } from "./run-agent.ts";
import { waitUntil } from "../../../testkit/wait-until";

/** Builds (and signs) dist/dbvault-agent when it is missing, older than the agent's sources or not signed with the build key. */
export async function ensureFreshBinary(): Promise<void> {
  if (isAgentBuildCurrent(BINARY_PATH)) return;
  const build = Bun.spawnSync([process.execPath, join(REPO_ROOT, "scripts/build-agent.ts")], { stdout: "pipe", stderr: "pipe" });
  if (build.exitCode !== 0) throw new Error(`build-agent failed: ${build.stderr.toString()}`);
}

export interface RunningAgent {
  pid: number;
  /** Everything the daemon logged so far (stderr). */
  log(): string;
  /** False once the process has exited. */
  running(): boolean;
  /** Sends a signal and waits for the exit code. */
  stop(signal?: "SIGTERM" | "SIGINT" | "SIGKILL"): Promise<number>;
  exited: Promise<number>;
}

/**
 * Starts `dbvault-agent run --config PATH` (the compiled binary unless `command` says otherwise),
 * with `env` over a plain environment (e.g. a PATH with the real mongodump and mongorestore on it).
 */
export function startAgentProcess(configPath: string, command: string[] = [BINARY_PATH], env: Record<string, string> = {}): RunningAgent {
  const child = Bun.spawn([...command, "run", "--config", configPath], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: "/nonexistent-home", ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  let text = "";
  const decoder = new TextDecoder();
  const drain = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream) text += decoder.decode(chunk, { stream: true });
  };
  const drained = Promise.all([drain(child.stderr), drain(child.stdout)]);
  const exited = child.exited.then(async (code) => {
    await drained;
    return code;
  });
  return {
    pid: child.pid,
    log: () => text,
    running: () => child.exitCode === null,
    exited,
    async stop(signal = "SIGTERM") {
      child.kill(signal);
      return exited;
    },
  };
}

export type BrowserEvent = { type: string; [field: string]: unknown };

/** A browser-side /api/ws client, authenticated with the user's session token like the web app. */
export async function openBrowserSocket(baseUrl: string, token: string) {
  const events: BrowserEvent[] = [];
  const socket = new WebSocket(`${baseUrl.replace(/^http/, "ws")}/api/ws`);
  await new Promise<void>((resolve, reject) => {
    socket.onopen = () => resolve();
    socket.onerror = () => reject(new Error("the realtime socket did not open"));
  });
  const ready = new Promise<void>((resolve) => {
    socket.onmessage = (event) => {
      const data = JSON.parse(String(event.data)) as BrowserEvent;
      if (data.type === "ready") resolve();
      else events.push(data);
    };
  });
  socket.send(JSON.stringify({ type: "auth", token }));
  await ready;
  return {
    events,
    /** Waits for an event matching `match` and returns it. */
    waitFor: (what: string, match: (event: BrowserEvent) => boolean, timeoutMs?: number) =>
      waitUntil(() => events.find(match), { message: what, timeout: timeoutMs }),
    close: () => socket.close(),
  };
}

export interface SetUpAgent {
  configPath: string;
  stdout: string;
  stderr: string;
  exitCode: number;
}

/**
 * Runs `dbvault-agent setup` non-interactively the way a script would: the API key on stdin,
 * the connection strings in a 0600 databases file, nothing secret in argv.
 */
export async function runSetup(options: {
  baseUrl: string;
  apiKey: string;
  databases: { name: string; uri: string }[];
  directory: string;
  name?: string;
  extraArgs?: string[];
}): Promise<SetUpAgent> {
  const { writeFile } = await import("node:fs/promises");
  const { runAgent } = await import("./run-agent.ts");
  const configPath = join(options.directory, "agent.json");
  const databasesFile = join(options.directory, "databases.txt");
  await writeFile(databasesFile, `# name=uri\n${options.databases.map((d) => `${d.name}=${d.uri}`).join("\n")}\n`, { mode: 0o600 });
  const run = await runAgent(
    [
      "setup",
      "--server",
      `${options.baseUrl}/api`,
      "--api-key-file",
      "-",
      "--databases-file",
      databasesFile,
      "--name",
      options.name ?? "e2e-agent",
      "--config",
      configPath,
      ...(options.extraArgs ?? []),
    ],
    { command: [BINARY_PATH], stdin: new TextEncoder().encode(`${options.apiKey}\n`) },
  );
  return { configPath, stdout: run.stdout, stderr: run.stderr, exitCode: run.exitCode };
}

/** The web API as a signed-in user calls it: the status and the JSON answer (null when there is none). */
export function userApi(base: string, token: string) {
  return async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    // biome-ignore lint/suspicious/noExplicitAny: each test reads the fields it needs
    return { status: response.status, body: (await response.json().catch(() => null)) as any };
  };
}
