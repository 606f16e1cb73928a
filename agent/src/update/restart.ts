// Starting the new version after an update. On Linux and macOS the process replaces its own image
// (execve): same process id, same open log, so systemd, launchd, a container or a terminal all keep
// their agent without noticing. Windows has no execve: the process that was started stays as a
// small relauncher and runs the binary again whenever it exits with EXIT.restart, so the scheduled
// task (or the terminal) that started it keeps it too. DBVAULT_RESTART=relaunch chooses the
// relauncher elsewhere (the tests use it to run the Windows path on Linux).
import { EXIT } from "../cli-error.ts";
import type { OsFamily } from "../platform/locations.ts";

/** Set in a child of the relauncher: its restart is an exit with EXIT.restart. */
export const RELAUNCHED_ENV = "DBVAULT_RELAUNCHED";

export type RestartPlan = { executable: string; args: string[]; env: Record<string, string | undefined>; family: OsFamily };

/** How this process restarts: in place, by exiting to its relauncher, or by becoming one. */
export function chooseRestart(plan: RestartPlan): "execve" | "exit-to-relauncher" | "relaunch" {
  if (plan.env[RELAUNCHED_ENV] === "1") return "exit-to-relauncher";
  return plan.family === "windows" || plan.env.DBVAULT_RESTART === "relaunch" ? "relaunch" : "execve";
}

const definedEnv = (env: Record<string, string | undefined>) =>
  Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));

/**
 * Runs the (new) binary at `plan.executable` with `plan.args`. Answers the exit code this process
 * should end with; with execve it does not return (it throws when the kernel refuses).
 */
export async function restartAgent(plan: RestartPlan, onSignal: (forward: (signal: NodeJS.Signals) => void) => () => void): Promise<number> {
  const how = chooseRestart(plan);
  if (how === "exit-to-relauncher") return EXIT.restart;
  if (how === "execve") {
    (process as unknown as { execve(file: string, args: string[], env: Record<string, string>): never }).execve(
      plan.executable,
      [plan.executable, ...plan.args],
      definedEnv(plan.env),
    );
  }
  for (;;) {
    const child = Bun.spawn([plan.executable, ...plan.args], {
      env: definedEnv({ ...plan.env, [RELAUNCHED_ENV]: "1" }),
      stdin: "inherit",
      stdout: "inherit",
      stderr: "inherit",
    });
    const stopForwarding = onSignal((signal) => child.kill(signal));
    const code = await child.exited;
    stopForwarding();
    if (code !== EXIT.restart) return code;
  }
}
