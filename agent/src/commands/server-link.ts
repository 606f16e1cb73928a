// What setup and db add share: checking a server URL, testing a database connection before it is
// saved, and turning the server's refusals into the CLI's messages. None of these messages quote
// an API key or a connection string: they name hosts and display names only.
import { hostname } from "node:os";
import { AGENT_PLATFORM } from "../build-info.ts";
import { type AgentConfig, ConfigError } from "../config.ts";
import { ServerRefusedError, ServerUnreachableError } from "../transport/errors.ts";
import { CliError, EXIT, usageError } from "../cli-error.ts";
import type { CommandContext } from "./context.ts";
import { checkConnection, ConnectionCheckError, describeFailedCheck } from "./database-check.ts";

/** How the agent describes itself to the server (registration and the socket's hello). */
export function describeAgentHost(): { hostname: string; platform: string } {
  return { hostname: hostname() || "unknown", platform: AGENT_PLATFORM };
}

/**
 * Returns the server's base URL: http(s) only, without a trailing slash or the `/api` the web
 * app's Security tab shows after the host; throws CliError (usage) otherwise.
 */
export function normalizeServerUrl(command: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw usageError(`${command}: --server must be a URL such as https://dbvault.example.com`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw usageError(`${command}: --server must start with https:// or http://`);
  if (url.username || url.password) throw usageError(`${command}: --server must not hold a user name or password`);
  const path = url.pathname.replace(/\/+$/, "").replace(/\/api$/, "");
  return `${url.origin}${path}`;
}

/** True when API keys would cross a network in clear text (http:// to a host that is not this one). */
export function isInsecureServer(url: string): boolean {
  const { protocol, hostname: host } = new URL(url);
  return protocol === "http:" && !["localhost", "127.0.0.1", "[::1]", "::1"].includes(host);
}

/** Connects to a database and disconnects (the same path dumps use, quicker to give up); throws CliError naming the host only. */
export async function testDatabaseConnection(name: string, uri: string): Promise<string> {
  try {
    return await checkConnection(uri);
  } catch (error) {
    throw error instanceof ConnectionCheckError ? describeFailedCheck(name, error) : error;
  }
}

/** Turns a failed server call into the CLI's error; other errors pass through unchanged. */
export function describeServerError(error: unknown, doing: string): unknown {
  if (error instanceof ServerUnreachableError) {
    return new CliError(
      `${doing} failed: ${error.message}`,
      EXIT.failure,
      "check the server URL (the web app shows it in Settings → Security) and that this machine can reach it",
    );
  }
  if (error instanceof ServerRefusedError) {
    const hint =
      error.status === 401
        ? "copy the API key again from Settings → Security in the web app (it changes when regenerated), then connect again with: dbvault-agent setup --force (the master key and databases are kept)"
        : error.status === 403
          ? "sign in to the web app to see why this account cannot add agents or databases"
          : undefined;
    return new CliError(`${doing} failed: the DBVault server answered ${error.status}: ${error.message}`, EXIT.failure, hint);
  }
  return error;
}

/** Loads the config of a set-up agent; a missing file's hint points at setup (not key generate). */
export async function loadSetUpConfig(context: CommandContext, explicit: string | boolean | undefined): Promise<{ config: AgentConfig; path: string }> {
  try {
    return await context.loadConfig(explicit);
  } catch (error) {
    if (!(error instanceof ConfigError && error.code === "missing")) throw error;
    throw new ConfigError("missing", error.message, error.path, `connect this agent first with: dbvault-agent setup --config ${error.path}`);
  }
}
