// dbvault-agent key generate [--force] | key export: create the master key in the config file,
// or print it (the only way it is ever shown). Backups can only be restored with this key.
import { deriveKeyId, encodeMasterKey, generateMasterKey } from "../archive/index.ts";
import { type AgentConfig, CONFIG_VERSION, ConfigError, loadConfig, readMasterKey, saveConfig } from "../config.ts";
import { usageError } from "./cli-error.ts";
import type { CommandContext } from "./context.ts";
import { parseOptions } from "./parse-args.ts";
import { COMMON_OPTIONS } from "./shared.ts";

/** Runs `key generate` or `key export`; returns the exit code or throws what describeFailure reports. */
export async function runKeyCommand(args: string[], context: CommandContext): Promise<number> {
  const [action, ...rest] = args;
  if (action === "generate") return generateKey(rest, context);
  if (action === "export") return exportKey(rest, context);
  if (action === undefined) throw usageError("key: missing action (generate or export)");
  throw usageError(`key: unknown action "${action}" (expected generate or export)`);
}

async function generateKey(args: string[], context: CommandContext): Promise<number> {
  const options = parseOptions("key generate", args, { ...COMMON_OPTIONS, force: "boolean" });
  const path = context.configPath(options.config);
  let config: AgentConfig;
  try {
    config = await loadConfig(path);
  } catch (error) {
    if (!(error instanceof ConfigError && error.code === "missing")) throw error;
    config = { version: CONFIG_VERSION, databases: [] };
  }
  if (config.masterKey !== undefined && options.force !== true) {
    const existing = readMasterKey(config, path);
    throw new ConfigError(
      "key-exists",
      `the config file ${path} already holds a master key (key id ${deriveKeyId(existing)})`,
      path,
      "backups made with that key can only be restored with it: save it first (dbvault-agent key export), then pass --force to replace it",
    );
  }
  const key = generateMasterKey();
  await saveConfig(path, { ...config, masterKey: encodeMasterKey(key) });
  context.say(`created a new master key (key id ${deriveKeyId(key)}) in ${path}`);
  context.warn("keep a copy of the key somewhere safe (dbvault-agent key export prints it): without it no backup can be restored");
  return 0;
}

async function exportKey(args: string[], context: CommandContext): Promise<number> {
  const options = parseOptions("key export", args, COMMON_OPTIONS);
  const { config, path } = await context.loadConfig(options.config);
  const key = readMasterKey(config, path);
  context.io.stdout.write(`${encodeMasterKey(key)}\n`);
  return 0;
}
