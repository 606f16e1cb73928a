// dbvault-agent key mode write-only [--identity-out FILE] [--keyring-out FILE]: from now on this
// agent keeps only an X25519 public key and seals every backup to it, so whoever takes over the
// database host can read none of them. The private key (the identity) is written once to FILE or
// printed once, and never kept here. The master key is removed from the config too (else the
// host would still open every older backup): it must be saved first (--keyring-out).
import { writeFile } from "node:fs/promises";
import { encodeIdentity, encodeRecipient, generateIdentity, recipientFingerprint, recipientOf } from "../archive/index.ts";
import { CliError, EXIT, usageError } from "../cli-error.ts";
import { type AgentConfig, isWriteOnly, loadConfigOrEmpty, readKeyring, saveConfig } from "../config.ts";
import type { CommandContext } from "./context.ts";
import { formatKeyring } from "./keyring-text.ts";
import { parseOptions } from "./parse-args.ts";
import { COMMON_OPTIONS } from "./shared.ts";

/** Runs `key mode MODE`; returns the exit code or throws what describeFailure reports. */
export async function setKeyMode(args: string[], context: CommandContext): Promise<number> {
  const [mode, ...rest] = args;
  if (mode !== "write-only") throw usageError(`key mode: unknown mode "${mode ?? ""}" (expected write-only)`);
  const options = parseOptions("key mode", rest, { ...COMMON_OPTIONS, "identity-out": "string", "keyring-out": "string" });
  const path = context.configPath(options.config);
  const config = await loadConfigOrEmpty(path);
  await switchToWriteOnly(config, path, { identityOut: options["identity-out"], keyringOut: options["keyring-out"] }, context);
  return 0;
}

/** Makes `config` write-only and saves it; shared by `key mode` and `setup --key-mode write-only`. */
export async function switchToWriteOnly(
  config: AgentConfig,
  path: string,
  out: { identityOut?: string | boolean | undefined; keyringOut?: string | boolean | undefined },
  context: CommandContext,
): Promise<AgentConfig> {
  if (isWriteOnly(config)) {
    throw new CliError(`this agent is already write-only (${path})`, EXIT.usage, "its backups open with the identity file saved when it was switched");
  }
  const keyring = checkWriteOnlySwitch(config, path, out.keyringOut);
  const identity = generateIdentity();
  const recipient = recipientOf(identity);
  // Both files are created, never overwritten (flag wx), readable by their owner only.
  if (typeof out.keyringOut === "string") await writeSecret(out.keyringOut, formatKeyring(keyring));
  if (typeof out.identityOut === "string") await writeSecret(out.identityOut, `${encodeIdentity(identity)}\n`);
  const { masterKey: _masterKey, oldKeys: _oldKeys, ...rest } = config;
  const next: AgentConfig = { ...rest, recipient: encodeRecipient(recipient) };
  await saveConfig(path, next);
  if (typeof out.identityOut !== "string") context.io.stdout.write(`${encodeIdentity(identity)}\n`);
  const fingerprint = recipientFingerprint(recipient).toString("hex");
  context.say(`this agent is now write-only: new backups are sealed to the public key ${fingerprint}, and ${path} holds no key that opens them`);
  if (keyring.length > 0) context.say(`the master key was removed from ${path}; backups made before open with the keyring saved in ${out.keyringOut}`);
  const where = typeof out.identityOut === "string" ? `the identity file ${out.identityOut}` : "the identity printed above (it is shown only this once)";
  context.warn(`keep ${where} offline: without it no backup made from now on can be read, by anyone; restores take it with --identity FILE`);
  return next;
}

export { isWriteOnly };

/**
 * Refuses a switch that would drop a master key not saved first (--keyring-out); returns the
 * keyring to save. Setup runs it before registering, so a refusal changes nothing.
 */
export function checkWriteOnlySwitch(config: AgentConfig, path: string, keyringOut: string | boolean | undefined): Buffer[] {
  const keyring = config.masterKey === undefined ? [] : readKeyring(config, path);
  if (keyring.length > 0 && typeof keyringOut !== "string") {
    throw new CliError(
      `switching to write-only removes the master key from ${path}, and backups made with it could then not be read`,
      EXIT.usage,
      "save the keyring first by passing --keyring-out FILE (keep that file offline too)",
    );
  }
  return keyring;
}

async function writeSecret(file: string, text: string): Promise<void> {
  try {
    await writeFile(file, text, { mode: 0o600, flag: "wx" });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "error";
    throw new CliError(`cannot write ${file} (${code})`, EXIT.failure, code === "EEXIST" ? "give the name of a file that does not exist yet" : undefined);
  }
}
