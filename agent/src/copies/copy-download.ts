// `restore --from-copy` and `decrypt --from-copy`: the backup file read straight from the
// customer's own bucket, for when DBVault's storage (or DBVault) is not there. It is fetched into
// a private temporary file first, so both commands then work on it exactly as on a local file.
import { mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CliError, EXIT } from "../cli-error.ts";
import type { AgentConfig } from "../config.ts";
import { describeCopyError, openCopy } from "./copy-client.ts";
import { type CopyEntry, parseCopyUrl } from "./copy-destination.ts";

/**
 * The configured copy a backup is read from, and its key: `named` is `s3://BUCKET/KEY`, or a KEY
 * of the only copy destination (or of the one whose prefix starts it). Throws CliError.
 */
export function chooseCopyFor(command: string, config: AgentConfig, configPath: string, named: string): { entry: CopyEntry; key: string } {
  const copies = config.copies ?? [];
  if (copies.length === 0) {
    throw new CliError(
      `${command}: the config file ${configPath} has no copy destinations`,
      EXIT.config,
      "add the bucket the copies are in with: dbvault-agent copies add s3://BUCKET/PREFIX?endpoint=…",
    );
  }
  const inBucket = /^s3:\/\/([^/]+)\/(.+)$/.exec(named);
  const key = inBucket ? inBucket[2]! : named;
  const matching = copies.filter((entry) => {
    const target = parseCopyUrl(command, entry.url);
    return (!inBucket || target.bucket === inBucket[1]) && key.startsWith(target.prefix);
  });
  if (matching.length === 1) return { entry: matching[0]!, key };
  if (!inBucket && copies.length === 1) return { entry: copies[0]!, key };
  throw new CliError(
    matching.length === 0 ? `${command}: no copy destination of ${configPath} holds ${named}` : `${command}: cannot tell which copy destination holds ${named}`,
    EXIT.usage,
    `name the bucket too: --in s3://BUCKET/KEY, with one of: ${copies.map((entry) => entry.url.split("?")[0]).join(", ")}`,
  );
}

/** Downloads the object into a new 0700 temporary directory; answers its path and a cleanup. Throws CopyDestinationError. */
export async function downloadFromCopy(entry: CopyEntry, key: string): Promise<{ path: string; size: number; discard(): Promise<void> }> {
  const { client, label } = openCopy(entry);
  const directory = await mkdtemp(join(tmpdir(), "dbvault-from-copy-"));
  const discard = () => rm(directory, { recursive: true, force: true }).catch(() => undefined);
  const path = join(directory, "backup.enc.dbvault");
  try {
    // The bytes written, counted: an S3 file's `size` is not fetched (Bun answers 0 before a stat).
    let size = 0;
    const out = await open(path, "wx", 0o600);
    try {
      for await (const chunk of client.file(key).stream()) {
        await out.write(chunk);
        size += chunk.byteLength;
      }
    } finally {
      await out.close();
    }
    return { path, size, discard };
  } catch (error) {
    await discard();
    throw describeCopyError(
      error,
      `cannot read ${key} from ${label}`,
      "check the key (the dashboard shows it when hovering a backup's places) and that these credentials may read objects (s3:GetObject)",
    );
  }
}
