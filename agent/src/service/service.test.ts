// Every platform's service definition and the calls made to its manager, with a recording runner
// in place of systemctl, launchctl and schtasks (only Linux runs here; none of them is started).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chooseServiceManager, type ServiceHost } from "../commands/service.ts";
import { renderPlist } from "./launchd.ts";
import type { CommandRunner } from "./service-manager.ts";
import { renderUnit } from "./systemd.ts";
import { encodeUtf16, quoteWindowsArgument, renderTaskXml } from "./windows-task.ts";

let dir: string;
beforeAll(async () => void (dir = await mkdtemp(join(tmpdir(), "dbvault-service-unit-"))));
afterAll(() => rm(dir, { recursive: true, force: true }));

/** A runner that records each call and answers from `replies` (by the call's first words). */
function recordingRunner(replies: Record<string, { stdout?: string; code?: number }> = {}) {
  const calls: string[] = [];
  const run: CommandRunner = async (argv, options = {}) => {
    calls.push(argv.join(" "));
    const key = Object.keys(replies).find((prefix) => argv.join(" ").startsWith(prefix));
    const reply = { stdout: "", code: 0, ...(key ? replies[key] : {}) };
    if (reply.code !== 0 && !options.allowFailure) throw new Error(`${argv[0]} failed`);
    return { stdout: reply.stdout, stderr: "", code: reply.code };
  };
  return { run, calls };
}

const host = (family: ServiceHost["family"], privileged: boolean, run: CommandRunner, env: Record<string, string> = {}): ServiceHost => ({
  family,
  env: { HOME: "/home/ann", ...env },
  privileged,
  uid: 501,
  run,
  managerPresent: true,
});

/** Python's own parsers, when Python is there, check that a plist and a task's XML are well formed. */
function parsesWithPython(script: string, input: Uint8Array): boolean | "no python" {
  const python = Bun.which("python3");
  if (!python) return "no python";
  return Bun.spawnSync([python, "-c", script], { stdin: input }).exitCode === 0;
}

describe("systemd (Linux)", () => {
  test("the unit runs this binary with its config, restarts on failure but not once removed", () => {
    const unit = renderUnit(["/usr/local/bin/dbvault-agent"], "/etc/dbvault/agent.json", "system");
    expect(unit).toContain("ExecStart=/usr/local/bin/dbvault-agent run --config /etc/dbvault/agent.json");
    expect(unit).toContain("Restart=on-failure\nRestartSec=5\n");
    expect(unit).toContain("RestartPreventExitStatus=78");
    expect(unit).toContain("WantedBy=multi-user.target");
    expect(renderUnit(["/opt/my agent/dbvault-agent"], "/home/a b/agent.json", "user")).toContain(
      'ExecStart="/opt/my agent/dbvault-agent" run --config "/home/a b/agent.json"',
    );
  });
});

describe("launchd (macOS)", () => {
  test("the plist is a valid property list that keeps the agent alive after a failure only", () => {
    const plist = renderPlist(
      ["/usr/local/bin/dbvault-agent"],
      "/Users/ann/Library/Application Support/DBVault/agent.json",
      "/Users/ann/Library/Logs/dbvault-agent.log",
    );
    const parsed = parsesWithPython(
      "import plistlib,sys,json; p=plistlib.load(sys.stdin.buffer); assert p['ProgramArguments']==['/usr/local/bin/dbvault-agent','run','--config','/Users/ann/Library/Application Support/DBVault/agent.json'], p; assert p['KeepAlive']=={'SuccessfulExit': False}; assert p['RunAtLoad'] is True; assert p['EnvironmentVariables']=={'DBVAULT_SUPERVISOR':'launchd'}",
      new TextEncoder().encode(plist),
    );
    if (parsed === "no python") console.warn("python3 is not installed: the plist was checked as text only");
    else expect(parsed).toBe(true);
    expect(plist).toContain("<string>com.dbvault.agent</string>");
    expect(renderPlist(["/a&b/agent"], "/x<y>.json", "/l.log")).toContain("<string>/a&amp;b/agent</string>");
  });

  test("as a user: a LaunchAgent in ~/Library/LaunchAgents, bootstrapped into the user's GUI domain", async () => {
    const { run, calls } = recordingRunner({ "launchctl print": { stdout: "com.dbvault.agent = {\n\tstate = running\n\tpid = 42\n}" } });
    const manager = chooseServiceManager({ "unit-dir": dir }, host("darwin", false, run, { HOME: dir }));
    expect(manager.describe()).toBe("the launchd agent com.dbvault.agent");
    const written = await manager.install(["/usr/local/bin/dbvault-agent"], "/Users/ann/agent.json");
    expect(written).toBe(join(dir, "com.dbvault.agent.plist"));
    expect(await readFile(written, "utf8")).toContain("<string>/Users/ann/agent.json</string>");
    expect(calls).toEqual([
      "launchctl bootout gui/501/com.dbvault.agent",
      `launchctl bootstrap gui/501 ${written}`,
      "launchctl enable gui/501/com.dbvault.agent",
    ]);
    expect(await manager.status()).toMatchObject({ active: true, state: "running" });
    await manager.uninstall();
    expect(calls.at(-1)).toBe("launchctl bootout gui/501/com.dbvault.agent");
    await expect(stat(written)).rejects.toThrow();
    expect(manager.afterInstallNote?.()).toContain("run with sudo to install a LaunchDaemon");
  });

  test("as root: a LaunchDaemon in the system domain, logging to /Library/Logs", () => {
    const manager = chooseServiceManager({}, host("darwin", true, recordingRunner().run));
    expect(manager.describe()).toBe("the launchd daemon com.dbvault.agent");
    expect(manager.render(["/usr/local/bin/dbvault-agent"], "/etc/dbvault/agent.json")).toContain("<string>/Library/Logs/dbvault-agent.log</string>");
  });
});

describe("Task Scheduler (Windows)", () => {
  const exe = "C:\\Program Files\\DBVault\\dbvault-agent.exe";
  const config = "C:\\Users\\ann\\AppData\\Roaming\\DBVault\\agent.json";

  test("as an administrator: at boot as SYSTEM; the XML is well formed UTF-16 and quotes paths with spaces", () => {
    const xml = renderTaskXml([exe], config, "system", "HOST\\ann");
    expect(xml).toContain("<BootTrigger>");
    expect(xml).toContain("<UserId>S-1-5-18</UserId>");
    expect(xml).toContain(`<Command>${exe}</Command>`);
    expect(xml).toContain(`<Arguments>run --config ${config}</Arguments>`);
    expect(xml).toContain("<ExecutionTimeLimit>PT0S</ExecutionTimeLimit>");
    expect(xml.split("\r\n").length).toBeGreaterThan(20);
    const parsed = parsesWithPython(
      "import sys, xml.dom.minidom as m; d=m.parseString(sys.stdin.buffer.read()); assert d.getElementsByTagName('Command')[0].firstChild.data.endswith('dbvault-agent.exe')",
      encodeUtf16(xml),
    );
    if (parsed === "no python") console.warn("python3 is not installed: the task XML was checked as text only");
    else expect(parsed).toBe(true);
  });

  test("as a user: at logon, as that user; arguments quoted as Windows programs split them", () => {
    const xml = renderTaskXml([exe], "C:\\Users\\Ann Lee\\agent.json", "user", "HOST\\Ann Lee");
    expect(xml).toContain("<LogonTrigger>");
    expect(xml).toContain("<UserId>HOST\\Ann Lee</UserId>");
    expect(xml).toContain("<LogonType>InteractiveToken</LogonType>");
    expect(xml).toContain('<Arguments>run --config "C:\\Users\\Ann Lee\\agent.json"</Arguments>');
    expect(quoteWindowsArgument("plain")).toBe("plain");
    expect(quoteWindowsArgument('say "hi"')).toBe('"say \\"hi\\""');
    expect(quoteWindowsArgument("C:\\dir with space\\")).toBe('"C:\\dir with space\\\\"');
  });

  test("install creates the task from the XML, then starts it; uninstall ends and deletes it", async () => {
    const { run, calls } = recordingRunner({ "schtasks /Query": { stdout: "TaskName: \\DBVault Agent\r\nStatus: Running\r\n" } });
    const manager = chooseServiceManager({}, host("windows", true, run, { TEMP: dir, USERDOMAIN: "HOST", USERNAME: "ann" }));
    expect(manager.describe()).toBe('the scheduled task "DBVault Agent" (at boot, as SYSTEM)');
    await manager.install([exe], config);
    expect(calls[0]).toMatch(/^schtasks \/Create \/TN DBVault Agent \/XML .*dbvault-agent-task-\d+\.xml \/F$/);
    expect(calls[1]).toBe("schtasks /Run /TN DBVault Agent");
    expect(await manager.status()).toMatchObject({ active: true, state: "Running" });
    await manager.uninstall();
    expect(calls.slice(-2)).toEqual(["schtasks /End /TN DBVault Agent", "schtasks /Delete /TN DBVault Agent /F"]);
    const user = chooseServiceManager({}, host("windows", false, run, { TEMP: dir, USERDOMAIN: "HOST", USERNAME: "ann" }));
    expect(user.describe()).toBe('the scheduled task "DBVault Agent" (at logon, as HOST\\ann)');
    expect(user.afterInstallNote?.()).toContain("administrator's terminal");
  });

  test("a task that does not exist is reported as not installed", async () => {
    const { run } = recordingRunner({ "schtasks /Query": { code: 1 } });
    expect(await chooseServiceManager({}, host("windows", true, run)).status()).toEqual({ active: false, state: "not installed", details: "" });
  });
});
