// The agent as a Windows scheduled task ("DBVault Agent"): Bun programs cannot speak to the
// Service Control Manager, and the Task Scheduler needs no extra tool. As an administrator it runs
// at boot as SYSTEM; otherwise at logon as the user (and only while logged on). After an update the
// agent restarts itself in place (update/restart.ts), so the task needs no help for that.
import { rm, writeFile } from "node:fs/promises";
import { win32 } from "node:path";
import { type CommandRunner, escapeXmlText, type ServiceManager } from "./service-manager.ts";

export const TASK_NAME = "DBVault Agent";
/** The well-known SID of the LocalSystem account. */
const SYSTEM_SID = "S-1-5-18";

export type WindowsTaskOptions = {
  scope: "system" | "user";
  /** DOMAIN\user of the user a user-scope task runs as. */
  user: string;
  /** Where the task's XML is written for schtasks /XML (then removed). */
  tempDir: string;
  available: boolean;
  run: CommandRunner;
};

/** Quotes a command-line argument the way Windows programs split them (CommandLineToArgvW). */
export function quoteWindowsArgument(word: string): string {
  if (word !== "" && !/[\s"]/.test(word)) return word;
  return `"${word.replace(/(\\*)"/g, '$1$1\\"').replace(/(\\+)$/, "$1$1")}"`;
}

/** The task definition (Task Scheduler schema 1.2) for `COMMAND run --config PATH`; never throws. */
export function renderTaskXml(command: string[], configPath: string, scope: WindowsTaskOptions["scope"], user: string): string {
  const [program = "", ...programArgs] = command;
  const args = [...programArgs, "run", "--config", configPath].map(quoteWindowsArgument).join(" ");
  const trigger =
    scope === "system"
      ? "    <BootTrigger>\r\n      <Enabled>true</Enabled>\r\n    </BootTrigger>"
      : `    <LogonTrigger>\r\n      <Enabled>true</Enabled>\r\n      <UserId>${escapeXmlText(user)}</UserId>\r\n    </LogonTrigger>`;
  const principal =
    scope === "system"
      ? `      <UserId>${SYSTEM_SID}</UserId>\r\n      <RunLevel>HighestAvailable</RunLevel>`
      : `      <UserId>${escapeXmlText(user)}</UserId>\r\n      <LogonType>InteractiveToken</LogonType>\r\n      <RunLevel>LeastPrivilege</RunLevel>`;
  return [
    '<?xml version="1.0" encoding="UTF-16"?>',
    '<Task version="1.2" xmlns="http://schemas.microsoft.com/windows/2004/02/mit/task">',
    "  <RegistrationInfo>",
    "    <Description>DBVault backup agent (dbvault-agent run). Written by dbvault-agent service install; remove it with dbvault-agent service uninstall.</Description>",
    "  </RegistrationInfo>",
    "  <Triggers>",
    trigger,
    "  </Triggers>",
    "  <Principals>",
    '    <Principal id="Author">',
    principal,
    "    </Principal>",
    "  </Principals>",
    "  <Settings>",
    "    <MultipleInstancesPolicy>IgnoreNew</MultipleInstancesPolicy>",
    "    <DisallowStartIfOnBatteries>false</DisallowStartIfOnBatteries>",
    "    <StopIfGoingOnBatteries>false</StopIfGoingOnBatteries>",
    "    <StartWhenAvailable>true</StartWhenAvailable>",
    "    <AllowStartOnDemand>true</AllowStartOnDemand>",
    "    <Enabled>true</Enabled>",
    // A backup may run for hours: no time limit.
    "    <ExecutionTimeLimit>PT0S</ExecutionTimeLimit>",
    "    <RestartOnFailure>",
    "      <Interval>PT1M</Interval>",
    "      <Count>999</Count>",
    "    </RestartOnFailure>",
    "  </Settings>",
    '  <Actions Context="Author">',
    "    <Exec>",
    `      <Command>${escapeXmlText(program)}</Command>`,
    `      <Arguments>${escapeXmlText(args)}</Arguments>`,
    "    </Exec>",
    "  </Actions>",
    "</Task>",
    "",
  ].join("\r\n");
}

/** UTF-16LE with a byte-order mark: the encoding schtasks /XML reads without complaint. */
export function encodeUtf16(text: string): Uint8Array {
  return new Uint8Array(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]));
}

export function createWindowsTaskService(options: WindowsTaskOptions): ServiceManager {
  const schtasks = (args: string[], allowFailure = false) =>
    options.run(["schtasks", ...args], { allowFailure, hint: `see the task in Task Scheduler (taskschd.msc), "${TASK_NAME}"` });
  return {
    managerName: "the Task Scheduler (schtasks)",
    describe: () => `the scheduled task "${TASK_NAME}" (${options.scope === "system" ? "at boot, as SYSTEM" : `at logon, as ${options.user}`})`,
    available: () => options.available,
    render: (command, configPath) => renderTaskXml(command, configPath, options.scope, options.user),
    async install(command, configPath) {
      const xmlPath = win32.join(options.tempDir, `dbvault-agent-task-${process.pid}.xml`);
      await writeFile(xmlPath, encodeUtf16(renderTaskXml(command, configPath, options.scope, options.user)));
      try {
        await schtasks(["/Create", "/TN", TASK_NAME, "/XML", xmlPath, "/F"]);
      } finally {
        await rm(xmlPath, { force: true });
      }
      await schtasks(["/Run", "/TN", TASK_NAME]);
      return `Task Scheduler\\${TASK_NAME}`;
    },
    async uninstall() {
      await schtasks(["/End", "/TN", TASK_NAME], true);
      await schtasks(["/Delete", "/TN", TASK_NAME, "/F"], true);
    },
    async status() {
      const queried = await schtasks(["/Query", "/TN", TASK_NAME, "/FO", "LIST", "/V"], true);
      if (queried.code !== 0) return { active: false, state: "not installed", details: "" };
      const state = /^Status:\s*(.+)$/m.exec(queried.stdout)?.[1]?.trim() ?? "unknown";
      return { active: state === "Running", state, details: queried.stdout.trim() };
    },
    afterInstallNote: () =>
      options.scope === "user"
        ? "the task runs only while you are logged on; run service install from an administrator's terminal to run it at boot as SYSTEM"
        : undefined,
  };
}
