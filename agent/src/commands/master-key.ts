// Loading the master key for the commands that open existing backups (decrypt, verify, restore).
// On a machine without it, the way forward is the key that made the backups: `key import`.
// `key generate` would make a new key, which can never open them.
import { ConfigError, type AgentConfig, readKeyring, readMasterKey } from "../config.ts";
import type { CommandContext } from "./context.ts";

/**
 * Loads the config, its master key and its keyring (the master key first, then older keys);
 * throws ConfigError whose hint points at key import.
 */
export async function loadMasterKeyConfig(
  context: CommandContext,
  explicit: string | boolean | undefined,
): Promise<{ config: AgentConfig; path: string; masterKey: Buffer; keyring: Buffer[] }> {
  const path = context.configPath(explicit);
  try {
    const { config } = await context.loadConfig(explicit);
    return { config, path, masterKey: readMasterKey(config, path), keyring: readKeyring(config, path) };
  } catch (error) {
    if (!(error instanceof ConfigError && (error.code === "missing" || error.code === "no-key"))) throw error;
    throw new ConfigError(
      error.code,
      error.message,
      error.path,
      `put the master key the backups were made with into it: dbvault-agent key import --config ${error.path} (a new key from key generate cannot open them)`,
    );
  }
}
