// The server as an operator runs it (`bun server/src/main.ts`, what `npm start` ends in): a real
// process configured by environment variables only, for tests of start-up, shutdown and failures
// that only a whole process shows (locks, signals, exit codes, what it prints).
import { join, resolve } from "node:path";
import { waitUntil } from "./wait-until";

const MAIN = resolve(import.meta.dir, "../server/src/main.ts");

export type ServerProcess = {
  url: string;
  process: Bun.Subprocess<"ignore", "pipe", "pipe">;
  /** Everything it printed so far, stdout and stderr together. */
  output(): string;
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number>;
};

/** A free loopback port (another process may take it first; good enough for tests). */
export function findFreePort(): number {
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = probe.port!;
  probe.stop(true);
  return port;
}

/**
 * Starts the server with `env` (nothing inherited but PATH) on a free port; does not wait for it.
 * `shell` wraps the command (e.g. "trap '' XFSZ; ulimit -f 20480;") when the test needs limits;
 * `host` is the address it listens on (default 127.0.0.1), e.g. one a network namespace reaches.
 */
export function spawnServer(env: Record<string, string>, options: { shell?: string; host?: string } = {}): ServerProcess {
  const port = findFreePort();
  const host = options.host ?? "127.0.0.1";
  const url = `http://${host}:${port}`;
  const command = options.shell ? ["/bin/sh", "-c", `${options.shell} exec "$0" "$1"`, process.execPath, MAIN] : [process.execPath, MAIN];
  const child = Bun.spawn(command, {
    cwd: join(import.meta.dir, ".."),
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", PORT: String(port), HOST: host, PUBLIC_URL: url, LOG_LEVEL: "info", ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  let output = "";
  const collect = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) output += decoder.decode(chunk, { stream: true });
  };
  const collected = Promise.all([collect(child.stdout), collect(child.stderr)]);
  // The exit code once its output is all read, so a test reading output() after exit sees it whole.
  const exited = child.exited.then(async (code) => {
    await collected;
    return code;
  });
  return { url, process: child, output: () => output, exited };
}

/** Starts the server and waits until its API answers; throws with its output if it exits first. */
export async function startServer(env: Record<string, string>, options: { shell?: string; host?: string; timeout?: number } = {}): Promise<ServerProcess> {
  const server = spawnServer(env, options);
  try {
    await waitUntil(
      async () => {
        if (server.process.exitCode !== null) throw new Error(`the server exited with ${server.process.exitCode}`);
        return (await fetch(`${server.url}/api/settings/plans`).catch(() => null))?.ok;
      },
      { timeout: options.timeout ?? 60_000, interval: 100, message: "the server to answer" },
    );
  } catch (error) {
    server.process.kill("SIGKILL");
    await server.exited;
    throw new Error(`${(error as Error).message}\n${server.output()}`);
  }
  return server;
}

/** Stops it as a service manager does (SIGTERM), SIGKILL after `graceMs`; returns the exit code. */
export async function stopServer(server: ServerProcess, graceMs = 15_000): Promise<number | "killed"> {
  if (server.process.exitCode !== null) return server.exited;
  server.process.kill("SIGTERM");
  const deadline = Bun.sleep(graceMs).then(() => "timeout" as const);
  const result = await Promise.race([server.exited, deadline]);
  if (result !== "timeout") return result;
  server.process.kill("SIGKILL");
  await server.exited;
  return "killed";
}
