// dbvault-agent service install | uninstall | status: `dbvault-agent run` as a systemd service
// (a system unit as root, a user unit otherwise). Where systemd is absent, install prints the
// unit and how to run the agent under another supervisor instead of failing.
import { existsSync } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { loadConfig, readServerSettings } from "../config.ts";
import { CliError, EXIT, usageError } from "./cli-error.ts";
import type { CommandContext } from "./context.ts";
import { parseOptions } from "./parse-args.ts";
import { COMMON_OPTIONS } from "./shared.ts";

export const UNIT_NAME = "dbvault-agent.service";
const OPTIONS = { ...COMMON_OPTIONS, "unit-dir": "string", user: "boolean" } as const;

/** Where the unit goes and how systemctl is called: system-wide as root, else the user's own manager. */
type Placement = { scope: "system" | "user"; unitDir: string; systemctl: string[] };

/** Runs `service install|uninstall|status`; returns the exit code or throws what describeFailure reports. */
export async function runServiceCommand(args: string[], context: CommandContext): Promise<number> {
  const [action, ...rest] = args;
  if (action === undefined) throw usageError("service: missing action (install, uninstall or status)");
  if (!["install", "uninstall", "status"].includes(action)) throw usageError(`service: unknown action "${action}" (expected install, uninstall or status)`);
  const options = parseOptions(`service ${action}`, rest, OPTIONS);
  const placement = choosePlacement(options, context);
  const systemd = hasSystemd(context, options);
  if (action === "install") return install(options, context, placement, systemd);
  if (!systemd) throw new CliError(`service ${action}: systemd was not found on this machine`, EXIT.failure, "manage `dbvault-agent run` with the supervisor that runs it");
  if (action === "uninstall") return uninstall(context, placement);
  return status(context, placement);
}

function choosePlacement(options: Record<string, string | boolean | undefined>, context: CommandContext): Placement {
  const asUser = options.user === true || process.getuid?.() !== 0;
  const home = context.io.env.HOME || homedir();
  const defaultDir = asUser ? join(context.io.env.XDG_CONFIG_HOME || join(home, ".config"), "systemd", "user") : "/etc/systemd/system";
  return {
    scope: asUser ? "user" : "system",
    unitDir: typeof options["unit-dir"] === "string" ? resolve(options["unit-dir"]) : defaultDir,
    systemctl: asUser ? ["systemctl", "--user"] : ["systemctl"],
  };
}

/** systemd runs this machine (sd_booted: /run/systemd/system) and systemctl is there; --unit-dir counts as "yes" for tests and chroots. */
function hasSystemd(context: CommandContext, options: Record<string, string | boolean | undefined>): boolean {
  if (!Bun.which("systemctl", { PATH: context.io.env.PATH ?? "" })) return false;
  return typeof options["unit-dir"] === "string" || existsSync("/run/systemd/system");
}

/** The command line that starts this very binary (or, from source, Bun with this script). */
function agentCommand(): string[] {
  const compiled = Bun.main.startsWith("/$bunfs/") || Bun.main.startsWith("B:/~BUN/");
  return compiled ? [process.execPath] : [process.execPath, resolve(process.argv[1] ?? Bun.main)];
}

/** A systemd unit for `dbvault-agent run --config PATH`; never throws. */
export function renderUnit(command: string[], configPath: string, scope: Placement["scope"]): string {
  const quote = (word: string) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `"${word.replace(/(["\\])/g, "\\$1")}"`);
  return `# Written by dbvault-agent service install. Remove it with: dbvault-agent service uninstall
[Unit]
Description=DBVault backup agent
Wants=network-online.target
After=network-online.target

[Service]
Type=exec
ExecStart=${[...command, "run", "--config", configPath].map(quote).join(" ")}
Restart=on-failure
RestartSec=5
# 78: this agent was removed in the web app; restarting would be refused the same way.
RestartPreventExitStatus=78
# A running backup gets a few seconds to report itself failed before the stop completes.
TimeoutStopSec=30
KillSignal=SIGTERM
NoNewPrivileges=true

[Install]
WantedBy=${scope === "system" ? "multi-user.target" : "default.target"}
`;
}

async function install(options: Record<string, string | boolean | undefined>, context: CommandContext, placement: Placement, systemd: boolean): Promise<number> {
  const configPath = context.configPath(options.config);
  // Only a set-up config makes a service that can run: check it now, not at the first restart.
  readServerSettings(await loadConfig(configPath), configPath);
  const unit = renderUnit(agentCommand(), configPath, placement.scope);
  if (!systemd) {
    context.say("systemd was not found on this machine, so no service was installed.");
    context.say(`run \`${agentCommand().join(" ")} run --config ${configPath}\` under your supervisor (runit, s6, supervisord, a container's command):`);
    context.say("it stops cleanly on SIGTERM, and exits with status 78 when the agent was removed in the web app (do not restart it then).");
    context.io.stdout.write(`\n# For reference, the systemd unit it would have written (${UNIT_NAME}):\n${unit}`);
    return 0;
  }
  const unitPath = join(placement.unitDir, UNIT_NAME);
  await mkdir(placement.unitDir, { recursive: true });
  await writeFile(unitPath, unit, { mode: 0o644 });
  context.say(`wrote ${unitPath}`);
  await systemctl(context, placement, ["daemon-reload"]);
  await systemctl(context, placement, ["enable", "--now", UNIT_NAME]);
  context.say(`the agent runs as the ${placement.scope} service ${UNIT_NAME} and starts at boot; see it with: dbvault-agent service status`);
  if (placement.scope === "user") context.warn(`a user service stops when you log out unless lingering is on: loginctl enable-linger ${context.io.env.USER ?? "$USER"}`);
  return 0;
}

async function uninstall(context: CommandContext, placement: Placement): Promise<number> {
  const unitPath = join(placement.unitDir, UNIT_NAME);
  // Stopping a unit that is not loaded fails; the file is removed all the same.
  await systemctl(context, placement, ["disable", "--now", UNIT_NAME], { allowFailure: true });
  await rm(unitPath, { force: true });
  await systemctl(context, placement, ["daemon-reload"]);
  context.say(`removed the ${placement.scope} service ${UNIT_NAME} (${unitPath}); the config and its master key are untouched`);
  return 0;
}

async function status(context: CommandContext, placement: Placement): Promise<number> {
  const active = (await systemctl(context, placement, ["is-active", UNIT_NAME], { allowFailure: true })).stdout.trim();
  const details = await systemctl(context, placement, ["status", "--no-pager", "--lines=5", UNIT_NAME], { allowFailure: true });
  context.io.stdout.write(details.stdout);
  context.say(`the ${placement.scope} service ${UNIT_NAME} is ${active || "not installed"}`);
  return active === "active" ? 0 : EXIT.failure;
}

async function systemctl(context: CommandContext, placement: Placement, args: string[], options: { allowFailure?: boolean } = {}) {
  const command = [...placement.systemctl, ...args];
  const child = Bun.spawn(command, { env: context.io.env as Record<string, string>, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  if (code !== 0 && !options.allowFailure) {
    throw new CliError(`\`${command.join(" ")}\` failed (exit ${code}): ${stderr.trim() || stdout.trim()}`, EXIT.failure, "see journalctl -u dbvault-agent for the service's own log");
  }
  return { stdout, stderr, code };
}
