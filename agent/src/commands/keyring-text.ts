// The text form of a whole keyring (`key export --all`, read back by `key import`): one key per
// line as `key export` prints it, the master key first, each under a comment naming its key id.
// Lines starting with # are comments, so a single exported key is a keyring of one.
import { decodeMasterKey, deriveKeyId, encodeMasterKey, InvalidKeyError } from "../archive/index.ts";

/** Formats the keyring (master key first) for `key export --all`. */
export function formatKeyring(keys: readonly Buffer[]): string {
  const lines = ["# dbvault keyring: the master key first, then older keys; keep it secret, keep a copy"];
  keys.forEach((key, index) => {
    lines.push(`# key id ${deriveKeyId(key)}${index === 0 ? " (master key: new backups use it)" : " (older key)"}`);
    lines.push(encodeMasterKey(key));
  });
  return `${lines.join("\n")}\n`;
}

/** Reads keys from exported text (one key, or a keyring); throws InvalidKeyError naming the line, never its text. */
export function parseKeyring(text: string): Buffer[] {
  const keys: Buffer[] = [];
  const lines = text.split(/\r?\n/);
  lines.forEach((line, index) => {
    const trimmed = line.trim();
    if (trimmed === "" || trimmed.startsWith("#")) return;
    try {
      const key = decodeMasterKey(trimmed);
      if (!keys.some((known) => known.equals(key))) keys.push(key);
    } catch (error) {
      if (lines.filter((l) => l.trim() !== "").length <= 1) throw error;
      throw new InvalidKeyError(`line ${index + 1}: ${(error as Error).message.replace(/^invalid master key: /, "")}`);
    }
  });
  if (keys.length === 0) throw new InvalidKeyError("it holds no key");
  return keys;
}
