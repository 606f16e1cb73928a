// Loading the keys for the commands that open existing backups (decrypt, verify, restore).
// On a machine without them, the way forward is the key that made the backups: `key import`.
// `key generate` would make a new key, which can never open them. A write-only agent holds no
// key that opens anything: its backups need the identity file (--identity FILE).
import { decodeIdentity, InvalidKeyError } from "../archive/index.ts";
import { CliError, EXIT } from "../cli-error.ts";
import { type AgentConfig, ConfigError, readOpeningKeys } from "../config.ts";
import type { CommandContext } from "./context.ts";
import { readSecretFile } from "./setup-inputs.ts";

/**
 * Loads the config, its keyring (the master key first, then older keys) and the identity of
 * `--identity FILE`; throws ConfigError whose hint points at key import, or CliError when a
 * write-only agent is given no identity.
 */
export async function loadMasterKeyConfig(
  context: CommandContext,
  explicit: string | boolean | undefined,
  identityFile?: string | boolean,
): Promise<{ config: AgentConfig; path: string; keyring: Buffer[]; identities: Buffer[] }> {
  const path = context.configPath(explicit);
  const given = typeof identityFile === "string" ? [await readIdentityFile(identityFile, context)] : [];
  try {
    const { config } = await context.loadConfig(explicit);
    // A restore agent's config holds identities of its own (setup --role restore).
    if (given.length === 0 && (config.identities ?? []).length === 0 && config.masterKey === undefined && config.recipient !== undefined) {
      throw new CliError(
        `this agent is write-only: ${path} holds only the public key its backups are sealed to, which cannot open them`,
        EXIT.config,
        "pass the identity file saved when write-only mode was turned on: --identity FILE (backups made before need the keyring exported then: key import)",
      );
    }
    const { masterKey: keyring, identities } = readOpeningKeys(config, path, given);
    return { config, path, keyring, identities };
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

/** Reads and decodes an identity file (`dbvid1_…`); the error names the file, never its content. */
export async function readIdentityFile(file: string, context: CommandContext): Promise<Buffer> {
  const text = await readSecretFile(file, context);
  try {
    return decodeIdentity(text);
  } catch (error) {
    const detail = error instanceof InvalidKeyError ? error.message : "it cannot be decoded";
    throw new CliError(`${file} is not an identity file: ${detail}`, EXIT.config, "give the file dbvault-agent key mode write-only wrote (dbvid1_…)");
  }
}
