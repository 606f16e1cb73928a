// What every command gets: the process's streams (replaceable in tests), its environment, a
// cancellation signal, and helpers to print messages in the house format.
import type { Readable, Writable } from "node:stream";
import { type AgentConfig, loadConfig, resolveConfigPath } from "../config.ts";

export interface CliIo {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  /** True when stdin is a terminal: setup and db add may then ask their questions. */
  stdinIsTTY?: boolean;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
  /** Terminal width of stderr, when it is a terminal. */
  columns?: number;
  env: Record<string, string | undefined>;
  /** Fires on SIGINT/SIGTERM. */
  signal: AbortSignal;
}

export interface CommandContext {
  io: CliIo;
  /** Writes `dbvault-agent: <message>` to stderr. */
  say(message: string): void;
  /** Writes `dbvault-agent: warning: <message>` to stderr. */
  warn(message: string): void;
  /** The config path from --config or the default. */
  configPath(explicit: string | boolean | undefined): string;
  /** Loads and validates the config file; throws ConfigError. */
  loadConfig(explicit: string | boolean | undefined): Promise<{ config: AgentConfig; path: string }>;
}

/** Builds the context the command functions use; never throws. */
export function createCommandContext(io: CliIo): CommandContext {
  const configPath = (explicit: string | boolean | undefined) => resolveConfigPath(typeof explicit === "string" ? explicit : undefined, io.env);
  return {
    io,
    say: (message) => void io.stderr.write(`dbvault-agent: ${message}\n`),
    warn: (message) => void io.stderr.write(`dbvault-agent: warning: ${message}\n`),
    configPath,
    async loadConfig(explicit) {
      const path = configPath(explicit);
      return { config: await loadConfig(path), path };
    },
  };
}
