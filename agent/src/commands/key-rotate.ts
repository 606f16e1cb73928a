// dbvault-agent key rotate [--rewrap] | key rewrap: replace the master key (new backups use the new
// one at once; the old one stays in the keyring to open older backups), and optionally rewrap
// every stored backup's data key to the new key. A rewrap changes only each file's header (format
// version 2, docs/archive-format.md): the agent reads it, rewraps it, and the server swaps it in
// atomically, so a rewrap stopped half-way leaves every backup under the old key or the new one,
// both in the keyring. Running `key rewrap` again finishes it.
import { deriveKeyId, encodeMasterKey, generateMasterKey, readArchiveHeader, rewrapHeaderV2, WrongKeyError } from "../archive/index.ts";
import { type AgentConfig, readKeyring, readServerSettings, saveConfig } from "../config.ts";
import { CliError, EXIT } from "../cli-error.ts";
import { pauseForTest } from "../dump/test-pause.ts";
import { ServerRefusedError } from "../transport/errors.ts";
import { createServerClient } from "../transport/server-client.ts";
import type { CommandContext } from "./context.ts";
import { tellServerKeyIds } from "./key-server-update.ts";
import { parseOptions } from "./parse-args.ts";
import { COMMON_OPTIONS } from "./shared.ts";

/** `key rotate [--rewrap]`: a new master key; the old ones stay in the keyring. */
export async function rotateKey(args: string[], context: CommandContext): Promise<number> {
  const options = parseOptions("key rotate", args, { ...COMMON_OPTIONS, rewrap: "boolean" });
  const { config, path } = await context.loadConfig(options.config);
  const keyring = readKeyring(config, path);
  // A rewrap needs the server: found missing before the key changes, not after.
  if (options.rewrap === true) readServerSettings(config, path);
  const key = generateMasterKey();
  const rotated: AgentConfig = { ...config, masterKey: encodeMasterKey(key), oldKeys: keyring.map((old) => encodeMasterKey(old)) };
  await saveConfig(path, rotated);
  context.say(
    `rotated the master key of ${path}: new backups use key id ${deriveKeyId(key)} from now on; ` +
      `the old key ${deriveKeyId(keyring[0]!)} stays in the keyring to open the backups made with it`,
  );
  // A rewrap moves the older backups to the new key too: a keyring exported before no longer
  // opens them either, which is the moment to export it again.
  context.warn(
    options.rewrap === true
      ? "save the keyring away from this machine now (dbvault-agent key export --all prints it): without it neither the backups made from now on nor the older backups this rewraps can be restored, since a keyring exported before this rotation no longer opens them"
      : "save the keyring away from this machine (dbvault-agent key export --all prints it): without it the backups made from now on cannot be restored",
  );
  await tellServerKeyIds(rotated, path, context);
  if (options.rewrap !== true) return 0;
  return rewrapBackups(rotated, path, context);
}

/** `key rewrap`: rewraps every stored backup not yet under the master key (finishes a stopped rewrap). */
export async function rewrapKeys(args: string[], context: CommandContext): Promise<number> {
  const options = parseOptions("key rewrap", args, COMMON_OPTIONS);
  const { config, path } = await context.loadConfig(options.config);
  return rewrapBackups(config, path, context);
}

async function rewrapBackups(config: AgentConfig, path: string, context: CommandContext): Promise<number> {
  const keyring = readKeyring(config, path);
  const current = keyring[0]!;
  const currentId = deriveKeyId(current);
  const client = createServerClient(readServerSettings(config, path));
  const { backups } = await client.backupKeys();
  context.say(`rewrapping the data keys of ${backups.length} stored backups to key id ${currentId} (their data is not re-encrypted)`);
  const counts = { rewrapped: 0, already: 0, version1: 0, gone: 0 };
  const missing: string[] = [];
  for (const backup of backups) {
    const what = `the backup of ${backup.databaseName} from ${backup.createdAt}`;
    let header: Buffer;
    try {
      header = await client.readHeader(backup.id);
    } catch (error) {
      // Deleted (retention, the user) since the list was read: nothing to rewrap.
      if (error instanceof ServerRefusedError && (error.status === 404 || error.status === 409 || error.status === 410)) {
        counts.gone++;
        continue;
      }
      throw error;
    }
    const { version, keyId } = readArchiveHeader(header);
    if (version === 1) {
      counts.version1++;
      continue;
    }
    if (keyId === currentId && backup.keyId === currentId) {
      counts.already++;
      continue;
    }
    let next: Buffer = header;
    if (keyId !== currentId) {
      try {
        next = rewrapHeaderV2(header, keyring, current);
      } catch (error) {
        if (!(error instanceof WrongKeyError)) throw error;
        missing.push(`${what} needs key id ${error.fileKeyId}, which the keyring lacks`);
        continue;
      }
    }
    // Sent again when only the server's record lagged (a rewrap stopped between the two): the same header.
    await client.replaceHeader(backup.id, next);
    await pauseForTest("header-rewrapped");
    if (next === header) counts.already++;
    else counts.rewrapped++;
  }
  const parts = [`rewrapped ${counts.rewrapped} backups to key id ${currentId}`];
  if (counts.already > 0) parts.push(`${counts.already} already used it`);
  if (counts.gone > 0) parts.push(`${counts.gone} were deleted meanwhile`);
  context.say(parts.join("; "));
  if (counts.version1 > 0) {
    context.say(
      `${counts.version1} backups in the older file format (version 1) keep the key they were made with: their key is not wrapped, so only a new backup replaces them; the keyring keeps opening them`,
    );
  }
  if (missing.length === 0) return 0;
  for (const line of missing) context.say(line);
  throw new CliError(
    `${missing.length} backups were not rewrapped: no key of the keyring of ${path} opens them`,
    EXIT.verification,
    "import their key (dbvault-agent key import --add) from the keyring export of the machine that made them, then run dbvault-agent key rewrap",
  );
}
