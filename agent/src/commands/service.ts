// dbvault-agent service install | uninstall | status: `dbvault-agent run` under the system's own
// service manager: systemd on Linux (a system unit as root, a user unit otherwise), launchd on
// macOS (a LaunchDaemon as root, a LaunchAgent otherwise), the Task Scheduler on Windows (at boot
// as SYSTEM from an administrator's terminal, at logon otherwise). Where the manager is absent,
// install fails (exit 1) after printing the definition and how to run the agent under another
// supervisor instead.
import { homedir, tmpdir, userInfo } from "node:os";
import { join, resolve } from "node:path";
import { RUNNING_COMPILED } from "../build-info.ts";
import { loadConfig, readServerSettings } from "../config.ts";
import { osFamily, type OsFamily } from "../platform/locations.ts";
import { createLaunchdService } from "../service/launchd.ts";
import { type CommandRunner, createCommandRunner, type ServiceManager } from "../service/service-manager.ts";
import { createSystemdService, defaultUnitDir, systemdRunsThisMachine } from "../service/systemd.ts";
import { createWindowsTaskService } from "../service/windows-task.ts";
import { CliError, EXIT, usageError } from "../cli-error.ts";
import type { CommandContext } from "./context.ts";
import { parseOptions } from "./parse-args.ts";
import { COMMON_OPTIONS } from "./shared.ts";

export { UNIT_NAME, renderUnit } from "../service/systemd.ts";
const OPTIONS = { ...COMMON_OPTIONS, "unit-dir": "string", user: "boolean" } as const;

type Options = Record<string, string | boolean | undefined>;

/** What choosing a manager depends on: all of it injectable, so every platform's choice is unit-tested. */
export type ServiceHost = {
  family: OsFamily;
  env: Record<string, string | undefined>;
  /** Root on POSIX; an elevated (administrator's) process on Windows. */
  privileged: boolean;
  uid: number;
  run: CommandRunner;
  /** True when the manager runs this machine (systemd booted, launchctl present, schtasks present). */
  managerPresent: boolean;
};

/** Runs `service install|uninstall|status`; returns the exit code or throws what describeFailure reports. */
export async function runServiceCommand(args: string[], context: CommandContext): Promise<number> {
  const [action, ...rest] = args;
  if (action === undefined) throw usageError("service: missing action (install, uninstall or status)");
  if (!["install", "uninstall", "status"].includes(action)) throw usageError(`service: unknown action "${action}" (expected install, uninstall or status)`);
  const options = parseOptions(`service ${action}`, rest, OPTIONS);
  const manager = chooseServiceManager(options, await describeThisHost(context, options));
  if (action === "install") return install(options, context, manager);
  if (!manager.available())
    throw new CliError(
      `service ${action}: ${manager.managerName} was not found on this machine`,
      EXIT.failure,
      "manage `dbvault-agent run` with the supervisor that runs it",
    );
  if (action === "uninstall") {
    await manager.uninstall();
    context.say(`removed ${manager.describe()}; the config and its master key are untouched`);
    return 0;
  }
  const state = await manager.status();
  if (state.details) context.io.stdout.write(`${state.details.trimEnd()}\n`);
  context.say(`${manager.describe()} is ${state.state}`);
  return state.active ? 0 : EXIT.failure;
}

async function describeThisHost(context: CommandContext, options: Options): Promise<ServiceHost> {
  const family = osFamily();
  const env = context.io.env;
  const run = createCommandRunner(env);
  const has = (tool: string) => Boolean(Bun.which(tool, { PATH: env.PATH ?? env.Path ?? "" }));
  // --unit-dir counts as "present" for tests and chroots (the unit is written where asked).
  const managerPresent =
    family === "windows"
      ? has("schtasks")
      : family === "darwin"
        ? has("launchctl")
        : has("systemctl") && (typeof options["unit-dir"] === "string" || systemdRunsThisMachine());
  // `net session` succeeds only in an elevated process: the usual test for administrator rights.
  const privileged = family === "windows" ? (await run(["net", "session"], { allowFailure: true })).code === 0 : process.getuid?.() === 0;
  return { family, env, privileged, uid: process.getuid?.() ?? -1, run, managerPresent };
}

/** The service manager for this host and options; never throws. */
export function chooseServiceManager(options: Options, host: ServiceHost): ServiceManager {
  const scope = options.user === true || !host.privileged ? "user" : "system";
  const home = host.env.HOME || host.env.USERPROFILE || homedir();
  const unitDir = typeof options["unit-dir"] === "string" ? resolve(options["unit-dir"]) : undefined;
  if (host.family === "windows") {
    const user = host.env.USERDOMAIN && host.env.USERNAME ? `${host.env.USERDOMAIN}\\${host.env.USERNAME}` : (host.env.USERNAME ?? userInfo().username);
    return createWindowsTaskService({ scope, user, tempDir: host.env.TEMP || tmpdir(), available: host.managerPresent, run: host.run });
  }
  if (host.family === "darwin") {
    const system = scope === "system";
    return createLaunchdService({
      scope,
      plistDir: unitDir ?? (system ? "/Library/LaunchDaemons" : join(home, "Library", "LaunchAgents")),
      logDir: system ? "/Library/Logs" : join(home, "Library", "Logs"),
      uid: host.uid,
      available: host.managerPresent,
      run: host.run,
    });
  }
  return createSystemdService({
    scope,
    unitDir: unitDir ?? defaultUnitDir(scope, host.env, home),
    available: host.managerPresent,
    run: host.run,
    user: host.env.USER,
  });
}

/** The command line that starts this very binary (or, from source, Bun with this script). */
function agentCommand(): string[] {
  return RUNNING_COMPILED ? [process.execPath] : [process.execPath, resolve(process.argv[1] ?? Bun.main)];
}

async function install(options: Options, context: CommandContext, manager: ServiceManager): Promise<number> {
  const configPath = context.configPath(options.config);
  // Only a set-up config makes a service that can run: check it now, not at the first restart.
  readServerSettings(await loadConfig(configPath), configPath);
  const command = agentCommand();
  if (!manager.available()) {
    // Not a success: a script (or setup's question) that asked for a service must not go on as if it ran.
    context.io.stdout.write(`# For reference, what it would have installed:\n${manager.render(command, configPath)}`);
    context.say(`run \`${command.join(" ")} run --config ${configPath}\` under your supervisor (runit, s6, supervisord, a container's command):`);
    context.say("it stops cleanly on SIGTERM, and exits with status 78 when the agent was removed in the web app (do not restart it then).");
    throw new CliError(`service install: ${manager.managerName} was not found on this machine, so no service was installed`, EXIT.failure);
  }
  let where: string;
  try {
    where = await manager.install(command, configPath);
  } catch (error) {
    // A definition written but never enabled looks installed (a file in the unit folder, a task in
    // the scheduler) yet never starts: take it back out, so a failed install leaves nothing.
    await manager.uninstall().catch(() => undefined);
    throw describeInstallFailure(error);
  }
  context.say(`wrote ${where}`);
  context.say(`the agent runs as ${manager.describe()} and starts by itself from now on; see it with: dbvault-agent service status`);
  const note = manager.afterInstallNote?.();
  if (note) context.warn(note);
  return 0;
}

/** The CLI's error for a failed install, saying that nothing was left installed; never throws. */
function describeInstallFailure(error: unknown): unknown {
  if (error instanceof CliError) return new CliError(`service install: ${error.message}; nothing was installed`, error.exitCode, error.hint);
  const { code, path } = error as NodeJS.ErrnoException;
  if (!code) return error;
  return new CliError(
    `service install: cannot write ${path ?? "the service definition"} (${code}); nothing was installed`,
    EXIT.failure,
    "a system service needs an administrator (sudo, or an administrator's terminal); pass --user for a service of your own, or --unit-dir for another folder",
  );
}
