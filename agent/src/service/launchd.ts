// The agent as a launchd job on macOS: a LaunchDaemon (/Library/LaunchDaemons, starts at boot)
// as root, a LaunchAgent (~/Library/LaunchAgents, runs while the user is logged in) otherwise.
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type CommandRunner, escapeXmlText, type ServiceManager } from "./service-manager.ts";

export const LAUNCHD_LABEL = "com.dbvault.agent";

export type LaunchdOptions = {
  scope: "system" | "user";
  /** Where the plist goes: /Library/LaunchDaemons or ~/Library/LaunchAgents. */
  plistDir: string;
  /** Where the job's output goes: /Library/Logs or ~/Library/Logs. */
  logDir: string;
  uid: number;
  available: boolean;
  run: CommandRunner;
};

/**
 * A launchd property list for `COMMAND run --config PATH`; never throws. KeepAlive restarts it
 * after a failure but not after a clean exit: `run` exits 0 when stopped, and also when the agent
 * was removed in the web app if launchd runs it (DBVAULT_SUPERVISOR=launchd), since launchd,
 * unlike systemd, cannot be told to leave one exit status alone.
 */
export function renderPlist(command: string[], configPath: string, logFile: string): string {
  const args = [...command, "run", "--config", configPath].map((word) => `    <string>${escapeXmlText(word)}</string>`).join("\n");
  return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<!-- Written by dbvault-agent service install. Remove it with: dbvault-agent service uninstall -->
<plist version="1.0">
<dict>
  <key>Label</key>
  <string>${LAUNCHD_LABEL}</string>
  <key>ProgramArguments</key>
  <array>
${args}
  </array>
  <key>EnvironmentVariables</key>
  <dict>
    <key>DBVAULT_SUPERVISOR</key>
    <string>launchd</string>
  </dict>
  <key>RunAtLoad</key>
  <true/>
  <key>KeepAlive</key>
  <dict>
    <key>SuccessfulExit</key>
    <false/>
  </dict>
  <key>ThrottleInterval</key>
  <integer>10</integer>
  <key>ExitTimeOut</key>
  <integer>30</integer>
  <key>ProcessType</key>
  <string>Background</string>
  <key>StandardOutPath</key>
  <string>${escapeXmlText(logFile)}</string>
  <key>StandardErrorPath</key>
  <string>${escapeXmlText(logFile)}</string>
</dict>
</plist>
`;
}

export function createLaunchdService(options: LaunchdOptions): ServiceManager {
  const domain = options.scope === "system" ? "system" : `gui/${options.uid}`;
  const plistPath = join(options.plistDir, `${LAUNCHD_LABEL}.plist`);
  const logFile = join(options.logDir, "dbvault-agent.log");
  const launchctl = (args: string[], allowFailure = false) => options.run(["launchctl", ...args], { allowFailure, hint: `see its log: ${logFile}` });
  return {
    managerName: "launchd",
    describe: () => `the launchd ${options.scope === "system" ? "daemon" : "agent"} ${LAUNCHD_LABEL}`,
    available: () => options.available,
    render: (command, configPath) => renderPlist(command, configPath, logFile),
    async install(command, configPath) {
      await mkdir(options.plistDir, { recursive: true });
      await mkdir(options.logDir, { recursive: true });
      await writeFile(plistPath, renderPlist(command, configPath, logFile), { mode: 0o644 });
      // A job already loaded (an earlier install) must go first, or bootstrap refuses.
      await launchctl(["bootout", `${domain}/${LAUNCHD_LABEL}`], true);
      await launchctl(["bootstrap", domain, plistPath]);
      await launchctl(["enable", `${domain}/${LAUNCHD_LABEL}`]);
      return plistPath;
    },
    async uninstall() {
      await launchctl(["bootout", `${domain}/${LAUNCHD_LABEL}`], true);
      await rm(plistPath, { force: true });
    },
    async status() {
      const printed = await launchctl(["print", `${domain}/${LAUNCHD_LABEL}`], true);
      if (printed.code !== 0) return { active: false, state: "not installed", details: "" };
      const state = /^\s*state = (.+)$/m.exec(printed.stdout)?.[1]?.trim() ?? "unknown";
      return { active: state === "running", state, details: printed.stdout.split("\n").slice(0, 12).join("\n") };
    },
    afterInstallNote: () =>
      options.scope === "user" ? "a LaunchAgent runs only while you are logged in; run with sudo to install a LaunchDaemon that starts at boot" : undefined,
  };
}
