// What `dbvault-agent service` needs from a service manager (systemd, launchd, the Windows Task
// Scheduler), and the one way the managers run their command-line tools (systemctl, launchctl,
// schtasks), injectable so each manager's calls are unit-tested on any machine.
import { CliError, EXIT } from "../cli-error.ts";

export type CommandResult = { stdout: string; stderr: string; code: number };
/** Runs a tool; throws CliError when it fails unless `allowFailure`. */
export type CommandRunner = (argv: string[], options?: { allowFailure?: boolean; hint?: string }) => Promise<CommandResult>;

export interface ServiceManager {
  /** "systemd", "launchd", "the Task Scheduler": what must run the machine for this to work. */
  managerName: string;
  /** "the systemd system service dbvault-agent.service", for messages. */
  describe(): string;
  /** True when this manager runs the machine (and its tool is there). */
  available(): boolean;
  /** The definition it installs (unit, plist, task XML) for `command run --config PATH`. */
  render(command: string[], configPath: string): string;
  /** Writes the definition, then enables and starts the service; answers what it wrote where. */
  install(command: string[], configPath: string): Promise<string>;
  /** Stops the service and removes its definition. */
  uninstall(): Promise<void>;
  /** Whether it runs, its state in a word or two ("active", "not installed"), and the manager's own words about it. */
  status(): Promise<{ active: boolean; state: string; details: string }>;
  /** A caveat to print after installing, if any. */
  afterInstallNote?(): string | undefined;
}

/** The real runner: spawns the tool with the CLI's environment; never a shell. */
export function createCommandRunner(env: Record<string, string | undefined>): CommandRunner {
  return async (argv, options = {}) => {
    let child;
    try {
      child = Bun.spawn(argv, { env: env as Record<string, string>, stdout: "pipe", stderr: "pipe", stdin: "ignore" });
    } catch (error) {
      if (options.allowFailure) return { stdout: "", stderr: (error as Error).message, code: 127 };
      throw new CliError(`cannot run ${argv[0]}: ${(error as Error).message}`, EXIT.failure, options.hint);
    }
    const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    if (code !== 0 && !options.allowFailure) {
      throw new CliError(`\`${argv.join(" ")}\` failed (exit ${code}): ${stderr.trim() || stdout.trim()}`, EXIT.failure, options.hint);
    }
    return { stdout, stderr, code };
  };
}

/** Escapes text for an XML element's content (plist, task XML; no attribute is written from a value). */
export const escapeXmlText = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
