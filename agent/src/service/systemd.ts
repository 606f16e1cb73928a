// The agent as a systemd service on Linux: a system unit as root, a user unit otherwise.
import { existsSync } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { CommandRunner, ServiceManager } from "./service-manager.ts";

export const UNIT_NAME = "dbvault-agent.service";

export type SystemdOptions = {
  scope: "system" | "user";
  /** Where the unit goes: /etc/systemd/system, or ~/.config/systemd/user for a user unit. */
  unitDir: string;
  /** True when systemd runs this machine and systemctl is there. */
  available: boolean;
  run: CommandRunner;
  /** The user, for the lingering hint of a user unit. */
  user?: string;
};

/** Quotes a word for a unit's ExecStart= line when it needs it. */
const quote = (word: string) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `"${word.replace(/(["\\])/g, "\\$1")}"`);

/** A systemd unit for `COMMAND run --config PATH`; never throws. */
export function renderUnit(command: string[], configPath: string, scope: SystemdOptions["scope"]): string {
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

/** Default unit folder of a scope. */
export function defaultUnitDir(scope: SystemdOptions["scope"], env: Record<string, string | undefined>, home: string): string {
  return scope === "user" ? join(env.XDG_CONFIG_HOME || join(home, ".config"), "systemd", "user") : "/etc/systemd/system";
}

/** sd_booted(): systemd runs this machine when /run/systemd/system exists. */
export const systemdRunsThisMachine = () => existsSync("/run/systemd/system");

export function createSystemdService(options: SystemdOptions): ServiceManager {
  const systemctl = (args: string[], allowFailure = false) =>
    options.run([...(options.scope === "user" ? ["systemctl", "--user"] : ["systemctl"]), ...args], {
      allowFailure,
      hint: "see journalctl -u dbvault-agent for the service's own log",
    });
  const unitPath = join(options.unitDir, UNIT_NAME);
  return {
    managerName: "systemd",
    describe: () => `the ${options.scope} service ${UNIT_NAME}`,
    available: () => options.available,
    render: (command, configPath) => renderUnit(command, configPath, options.scope),
    async install(command, configPath) {
      await mkdir(options.unitDir, { recursive: true });
      await writeFile(unitPath, renderUnit(command, configPath, options.scope), { mode: 0o644 });
      await systemctl(["daemon-reload"]);
      await systemctl(["enable", "--now", UNIT_NAME]);
      return unitPath;
    },
    async uninstall() {
      // Stopping a unit that is not loaded fails; the file is removed all the same.
      await systemctl(["disable", "--now", UNIT_NAME], true);
      await rm(unitPath, { force: true });
      await systemctl(["daemon-reload"]);
    },
    async status() {
      const active = (await systemctl(["is-active", UNIT_NAME], true)).stdout.trim();
      const details = await systemctl(["status", "--no-pager", "--lines=5", UNIT_NAME], true);
      return { active: active === "active", state: active || "not installed", details: details.stdout };
    },
    afterInstallNote: () =>
      options.scope === "user" ? `a user service stops when you log out unless lingering is on: loginctl enable-linger ${options.user ?? "$USER"}` : undefined,
  };
}
