// dbvault-agent run: the long-lived daemon. Holds the socket to the server (heartbeats,
// reconnection with backoff), runs the backups and restores it asks for, and stops cleanly on
// SIGINT/SIGTERM (the running job is aborted and reported failed) with exit code 0, as a
// service manager expects from a requested stop.
import { describeSealingKey, openingKeyIds, readServerSettings } from "../config.ts";
import { startAgentDaemon } from "../daemon/agent-daemon.ts";
import { createDaemonLog } from "../daemon/daemon-log.ts";
import { createIdentityTransport } from "../daemon/identity-transport.ts";
import { createDaemonRuntime } from "../daemon/runtime.ts";
import type { AgentConfig } from "../config.ts";
import type { DaemonLog } from "../daemon/daemon-log.ts";
import { AGENT_VERSION, finishInterruptedCopies, removeAbandonedCopies, removeLeftoverStaging } from "../dump/index.ts";
import { CliError, EXIT } from "../cli-error.ts";
import type { CommandContext } from "./context.ts";
import { parseOptions } from "./parse-args.ts";
import { describeAgentHost, loadSetUpConfig } from "./server-link.ts";
import { COMMON_OPTIONS } from "./shared.ts";
import { osFamily } from "../platform/locations.ts";
import { BUILD_PLATFORM } from "../build-info.ts";
import { removeUpdateLeftovers } from "../update/replace-binary.ts";
import { restartAgent } from "../update/restart.ts";

/** Runs `run` until stopped by a signal; returns the exit code or throws what describeFailure reports. */
export async function runDaemonCommand(args: string[], context: CommandContext): Promise<number> {
  const options = parseOptions("run", args, COMMON_OPTIONS);
  const { config, path } = await loadSetUpConfig(context, options.config);
  const server = readServerSettings(config, path);
  // A restore agent seals nothing: it names what it opens (the fingerprints of its identities).
  const sealing = config.role === "restore" ? null : describeSealingKey(config, path);
  const keys = sealing ? { keyId: sealing.keyId, ...(sealing.writeOnly ? { writeOnly: true } : {}) } : { role: "restore", keyIds: openingKeyIds(config, path) };
  const log = createDaemonLog(context.io.stderr, context.io.stderrIsTTY);
  log("starting", {
    version: AGENT_VERSION,
    server: server.url,
    agentId: server.agentId,
    ...keys,
    databases: config.databases.map((entry) => entry.name),
  });
  // A restore killed mid-way (crash, power loss) leaves staging collections; nothing else of the
  // user's is touched. In the background: an unreachable database must not delay the start.
  void removeLeftovers(config.databases, log);
  // And its private copy of the backup (as large as the backup) in the temporary directory.
  void removeAbandonedCopies().then((removed) => removed.length > 0 && log("removed backup copies a stopped restore left behind", { removed }));
  // What an earlier update left beside this binary (on Windows, the old binary it moved aside).
  if (BUILD_PLATFORM !== null) {
    void removeUpdateLeftovers(process.execPath).then((removed) => removed.length > 0 && log("removed what an earlier update left behind", { removed }));
  }
  const daemon = startAgentDaemon(createDaemonRuntime({ configPath: path, config, hello: describeAgentHost(), log }), await createIdentityTransport());
  const signal = context.io.signal;
  const stopRequested = new Promise<"signal">((resolve) => {
    if (signal.aborted) resolve("signal");
    else signal.addEventListener("abort", () => resolve("signal"), { once: true });
  });
  const why = await Promise.race([stopRequested, daemon.removed.then(() => "removed" as const), daemon.restartRequested.then(() => "restart" as const)]);
  log(why === "restart" ? "restarting into the new version: closing the connection" : "stopping: finishing up and closing the connection");
  await daemon.stop();
  if (why === "restart") return restartIntoUpdate(args, context, log);
  log("stopped");
  if (why === "removed") {
    // launchd cannot be told to leave one exit status alone (its KeepAlive restarts any failure).
    if (context.io.env.DBVAULT_SUPERVISOR === "launchd") {
      log("this agent was removed from DBVault: not restarting (run dbvault-agent setup --force to connect this machine again)");
      return 0;
    }
    // Not a failure to retry: a service manager must not restart it (the unit's RestartPreventExitStatus).
    throw new CliError("this agent was removed from DBVault", EXIT.removed, "run dbvault-agent setup --force to connect this machine again");
  }
  return 0;
}

/** Runs the binary an update installed with this run's arguments: in place (execve), else through the relauncher. */
async function restartIntoUpdate(args: string[], context: CommandContext, log: DaemonLog): Promise<number> {
  const plan = { executable: process.execPath, args: ["run", ...args], env: context.io.env, family: osFamily() };
  const forwardSignals = (forward: (signal: NodeJS.Signals) => void) => {
    const signals: NodeJS.Signals[] = ["SIGINT", "SIGTERM"];
    const handler = (signal: NodeJS.Signals) => forward(signal);
    for (const name of signals) process.on(name, handler);
    return () => signals.forEach((name) => process.off(name, handler));
  };
  try {
    return await restartAgent(plan, forwardSignals);
  } catch (error) {
    // execve refused (it should not): run the new binary as a child instead of not at all.
    log("could not restart in place; starting the new version as a child process", { error: (error as Error).message });
    return restartAgent({ ...plan, env: { ...plan.env, DBVAULT_RESTART: "relaunch" } }, forwardSignals);
  }
}

async function removeLeftovers(databases: AgentConfig["databases"], log: DaemonLog): Promise<void> {
  for (const database of databases) {
    try {
      // First, so a staging collection an unfinished copy needs is copied in, not dropped.
      await finishInterruptedCopies(database.uri, undefined, (message) => log(message, { databaseName: database.name }));
      const dropped = await removeLeftoverStaging(database.uri);
      if (dropped.length > 0) log("removed staging collections an interrupted restore left behind", { databaseName: database.name, dropped });
    } catch (error) {
      log("could not check for staging collections an interrupted restore left behind", { databaseName: database.name, error: (error as Error).message });
    }
  }
}
