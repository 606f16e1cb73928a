// dbvault-agent run: the long-lived daemon. Holds the socket to the server (heartbeats,
// reconnection with backoff), runs the backups and restores it asks for, and stops cleanly on
// SIGINT/SIGTERM (the running job is aborted and reported failed) with exit code 0, as a
// service manager expects from a requested stop.
import { readMasterKey, readServerSettings } from "../config.ts";
import { startAgentDaemon } from "../daemon/agent-daemon.ts";
import { createDaemonLog } from "../daemon/daemon-log.ts";
import { createDaemonRuntime } from "../daemon/runtime.ts";
import { AGENT_VERSION } from "../dump/index.ts";
import { deriveKeyId } from "../archive/index.ts";
import type { CommandContext } from "./context.ts";
import { parseOptions } from "./parse-args.ts";
import { describeAgentHost, loadSetUpConfig } from "./server-link.ts";
import { COMMON_OPTIONS } from "./shared.ts";

/** Runs `run` until stopped by a signal; returns the exit code or throws what describeFailure reports. */
export async function runDaemonCommand(args: string[], context: CommandContext): Promise<number> {
  const options = parseOptions("run", args, COMMON_OPTIONS);
  const { config, path } = await loadSetUpConfig(context, options.config);
  const server = readServerSettings(config, path);
  const keyId = deriveKeyId(readMasterKey(config, path));
  const log = createDaemonLog(context.io.stderr, context.io.stderrIsTTY);
  log("starting", {
    version: AGENT_VERSION,
    server: server.url,
    agentId: server.agentId,
    keyId,
    databases: config.databases.map((entry) => entry.name),
  });
  const daemon = startAgentDaemon(createDaemonRuntime({ configPath: path, config, hello: describeAgentHost(), log }));
  const signal = context.io.signal;
  if (!signal.aborted) await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
  log("stopping: finishing up and closing the connection");
  await daemon.stop();
  log("stopped");
  return 0;
}
