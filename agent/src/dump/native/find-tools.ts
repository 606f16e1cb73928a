// Choosing between MongoDB's own tools and the built-in engine. The tools must be 100.3 or
// newer: older ones cannot read the connection string from a config file, and passing it in
// argv would show the password in the process list.
import { execFile } from "node:child_process";
import { DumpError } from "../errors.ts";
import type { ToolsConfig } from "../types.ts";

export type ToolName = "mongodump" | "mongorestore";
export type EngineChoice = { engine: "native"; path: string; version: string } | { engine: "builtin" };

const MINIMUM_VERSION = [100, 3, 0] as const;

/**
 * Picks the engine for a dump (mongodump) or restore (mongorestore) from the `tools` config.
 * Throws DumpError "tool-unavailable" when a configured path cannot run or is too old, or when
 * mode "native" finds no usable tool; otherwise falls back to built-in, telling `onNotice` why.
 */
export async function chooseEngine(tool: ToolName, tools: ToolsConfig | undefined, onNotice: ((message: string) => void) | undefined): Promise<EngineChoice> {
  const mode = tools?.mode ?? "auto";
  if (mode === "builtin") return { engine: "builtin" };
  const configured = tools?.[tool];
  // PATH as it is now: Bun.which alone would use the PATH the process started with.
  const path = configured ?? Bun.which(tool, { PATH: process.env.PATH ?? "" }) ?? undefined;
  const strict = mode === "native" || configured !== undefined;
  if (path === undefined) {
    if (strict) {
      throw new DumpError("tool-unavailable", `${tool} was not found on PATH`, {
        hint: `install the mongodb database tools, set tools.${tool} in the config file, or set tools.mode to "auto"`,
      });
    }
    return { engine: "builtin" };
  }
  const version = await readToolVersion(path);
  const problem =
    version === undefined
      ? `${tool} at ${path} did not report its version`
      : isOlder(version, MINIMUM_VERSION)
        ? `${tool} ${version} at ${path} is older than 100.3 and cannot read the connection string from a file`
        : undefined;
  if (problem === undefined) return { engine: "native", path, version: version! };
  if (strict) {
    throw new DumpError("tool-unavailable", problem, {
      hint: `install mongodb database tools 100.3 or newer, or set tools.mode to "builtin" in the config file`,
    });
  }
  onNotice?.(`${problem}; using the built-in engine`);
  return { engine: "builtin" };
}

/** Runs `TOOL --version` and returns its version ("100.9.4"), or undefined; never throws. */
export function readToolVersion(path: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(path, ["--version"], { timeout: 15_000 }, (error, stdout) => {
      if (error) return resolve(undefined);
      resolve(/version:?\s*r?(\d+\.\d+\.\d+)/i.exec(String(stdout))?.[1]);
    });
  });
}

function isOlder(version: string, minimum: readonly number[]): boolean {
  const parts = version.split(".").map(Number);
  for (let i = 0; i < minimum.length; i++) {
    const part = parts[i] ?? 0;
    if (part !== minimum[i]) return part < minimum[i]!;
  }
  return false;
}
