// Where the agent keeps its config on each operating system, and what protects that file there.
// Pure functions of (platform, environment), so every branch is unit-tested on any machine.
import { homedir } from "node:os";
import { posix, win32 } from "node:path";

export type OsFamily = "linux" | "darwin" | "windows";

/** The family of a Node/Bun `process.platform` value (BSDs and others are treated like Linux). */
export function osFamily(platform: NodeJS.Platform = process.platform): OsFamily {
  return platform === "win32" ? "windows" : platform === "darwin" ? "darwin" : "linux";
}

/** The path functions of that family: Windows paths are built with backslashes even in tests run elsewhere. */
export const pathsOf = (family: OsFamily) => (family === "windows" ? win32 : posix);

type Env = Record<string, string | undefined>;
const set = (value: string | undefined) => (value !== undefined && value !== "" ? value : undefined);

/**
 * The default config file: `$XDG_CONFIG_HOME/dbvault/agent.json` (else `~/.config/…`) on Linux,
 * `~/Library/Application Support/DBVault/agent.json` on macOS, `%APPDATA%\DBVault\agent.json` on
 * Windows. Never throws.
 */
export function defaultConfigPath(env: Env = process.env, family: OsFamily = osFamily()): string {
  const path = pathsOf(family);
  const home = set(env.HOME) ?? set(env.USERPROFILE) ?? homedir();
  if (family === "windows") return path.join(set(env.APPDATA) ?? path.join(home, "AppData", "Roaming"), "DBVault", "agent.json");
  if (family === "darwin") return path.join(home, "Library", "Application Support", "DBVault", "agent.json");
  return path.join(set(env.XDG_CONFIG_HOME) ?? path.join(home, ".config"), "dbvault", "agent.json");
}

/** How the config file is kept private, for messages: a file mode where POSIX, the profile's ACL on Windows. */
export function describeFileProtection(family: OsFamily = osFamily()): string {
  return family === "windows" ? "in your user profile, which only you, SYSTEM and administrators can read (Windows has no file modes)" : "mode 0600";
}
