// dbvault-agent key generate [--force] | key export [--all] | key import [--add] | key rotate
// [--rewrap] | key rewrap: create the master key in the config file, print it or the whole
// keyring (the only way they are ever shown), put saved keys back (a new machine after a
// disaster), or replace the master key (key-rotate.ts). Backups can only be restored with the
// key that made them, so a rotation keeps the old keys in the keyring.
import { deriveKeyId, encodeMasterKey, generateMasterKey } from "../archive/index.ts";
import { type AgentConfig, ConfigError, loadConfigOrEmpty, readKeyring, readMasterKey, saveConfig } from "../config.ts";
import { CliError, EXIT, usageError } from "../cli-error.ts";
import type { CommandContext } from "./context.ts";
import { describeFileProtection } from "../platform/locations.ts";
import { parseOptions } from "./parse-args.ts";
import { createPrompter } from "../ui/prompt.ts";
import { readSecretFile } from "./setup-inputs.ts";
import { COMMON_OPTIONS } from "./shared.ts";
import { formatKeyring, parseKeyring } from "./keyring-text.ts";
import { setKeyMode } from "./key-mode.ts";
import { rewrapKeys, rotateKey } from "./key-rotate.ts";
import { tellServerKeyIds } from "./key-server-update.ts";

/** Runs a `key` action; returns the exit code or throws what describeFailure reports. */
export async function runKeyCommand(args: string[], context: CommandContext): Promise<number> {
  const [action, ...rest] = args;
  if (action === "generate") return generateKey(rest, context);
  if (action === "export") return exportKey(rest, context);
  if (action === "import") return importKey(rest, context);
  if (action === "rotate") return rotateKey(rest, context);
  if (action === "rewrap") return rewrapKeys(rest, context);
  if (action === "mode") return setKeyMode(rest, context);
  if (action === undefined) throw usageError("key: missing action (generate, export, import, rotate, rewrap or mode)");
  throw usageError(`key: unknown action "${action}" (expected generate, export, import, rotate, rewrap or mode)`);
}

async function generateKey(args: string[], context: CommandContext): Promise<number> {
  const options = parseOptions("key generate", args, { ...COMMON_OPTIONS, force: "boolean" });
  const path = context.configPath(options.config);
  const config = await loadConfigOrEmpty(path);
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

/**
 * `key import`: the saved key from --key-file PATH (- for stdin), a hidden prompt on a terminal,
 * or stdin; never from argv, where ps and shell history would show it.
 */
async function importKey(args: string[], context: CommandContext): Promise<number> {
  const takesValue = new Set(["--key-file", "--config"]);
  const positional = args.some((arg, i) => !arg.startsWith("--") && !takesValue.has(args[i - 1] ?? ""));
  if (positional) {
    throw usageError(
      "key import: the key must not be given on the command line (ps and shell history would show it)",
      "paste it at the prompt, or pass --key-file PATH, or pipe it on stdin",
    );
  }
  const options = parseOptions("key import", args, { ...COMMON_OPTIONS, "key-file": "string", force: "boolean", add: "boolean" });
  const path = context.configPath(options.config);
  let text: string;
  if (typeof options["key-file"] === "string") text = await readSecretFile(options["key-file"], context);
  else if (context.io.stdinIsTTY)
    text = await createPrompter(context.io.stdin, context.io.stderr).askSecret("master key (as dbvault-agent key export printed it; not shown): ");
  else text = await readSecretFile("-", context);
  let keys: Buffer[];
  try {
    keys = parseKeyring(text);
  } catch (error) {
    throw new CliError(
      `key import: this is not a master key: ${(error as Error).message}`,
      EXIT.failure,
      "paste the whole line dbvault-agent key export printed (dbvk1-…)",
    );
  }
  const config = await loadConfigOrEmpty(path);
  // A keyring export, or --add: the keys join the keyring; the master key stays (or is the first one when there is none).
  if (keys.length > 1 || options.add === true) return mergeKeys(keys, config, path, context);
  const key = keys[0]!;
  const keyId = deriveKeyId(key);
  if (config.masterKey !== undefined) {
    const existing = readMasterKey(config, path);
    if (existing.equals(key)) {
      context.say(`the config file ${path} already holds this master key (key id ${keyId}); nothing changed`);
      return 0;
    }
    if (options.force !== true) {
      throw new ConfigError(
        "key-exists",
        `the config file ${path} holds a different master key (key id ${deriveKeyId(existing)})`,
        path,
        "backups made with that key can only be restored with it: save it first (dbvault-agent key export), then pass --force to replace it",
      );
    }
    context.warn(`replacing the master key ${deriveKeyId(existing)}: backups made with it can no longer be restored from this config`);
  }
  const imported = { ...config, masterKey: encodeMasterKey(key) };
  await saveConfig(path, imported);
  context.say(`imported the master key (key id ${keyId}) into ${path} (${describeFileProtection()})`);
  if (!config.server) context.say("next: dbvault-agent setup --server https://your-dbvault-server, then restore your backups");
  await tellServerKeyIds(imported, path, context);
  return 0;
}

async function exportKey(args: string[], context: CommandContext): Promise<number> {
  const options = parseOptions("key export", args, { ...COMMON_OPTIONS, all: "boolean" });
  const { config, path } = await context.loadConfig(options.config);
  if (options.all === true) {
    context.io.stdout.write(formatKeyring(readKeyring(config, path)));
    return 0;
  }
  const key = readMasterKey(config, path);
  context.io.stdout.write(`${encodeMasterKey(key)}\n`);
  return 0;
}

/** Adds keys to the keyring as older keys; a config without a master key takes the first as its master key. */
async function mergeKeys(keys: Buffer[], config: AgentConfig, path: string, context: CommandContext): Promise<number> {
  const known = config.masterKey === undefined ? [] : readKeyring(config, path);
  const fresh = keys.filter((key) => !known.some((k) => k.equals(key)));
  if (fresh.length === 0) {
    context.say(`the keyring of ${path} already holds ${keys.length === 1 ? "this key" : `these ${keys.length} keys`}; nothing changed`);
    return 0;
  }
  const [master, ...older] = known.length === 0 ? fresh : [known[0]!, ...known.slice(1), ...fresh];
  const merged = { ...config, masterKey: encodeMasterKey(master!), oldKeys: older.map((key) => encodeMasterKey(key)) };
  await saveConfig(path, merged);
  const ids = fresh.map((key) => deriveKeyId(key)).join(", ");
  context.say(`added ${fresh.length === 1 ? "1 key" : `${fresh.length} keys`} (key id ${ids}) to the keyring of ${path} (${describeFileProtection()})`);
  context.say(`new backups use the master key ${deriveKeyId(master!)}; the others open the backups made with them`);
  await tellServerKeyIds(merged, path, context);
  return 0;
}
