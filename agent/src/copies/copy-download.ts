// `restore --from-copy` and `decrypt --from-copy`: the backup file read straight from the
// customer's own bucket, for when DBVault's storage (or DBVault) is not there. It is fetched into
// a private temporary file first, so both commands then work on it exactly as on a local file.
import { mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MAGIC } from "../archive/format.ts";
import { CliError, EXIT } from "../cli-error.ts";
import type { AgentConfig } from "../config.ts";
import { describeCopyError, openCopy } from "./copy-client.ts";
import { type CopyEntry, parseCopyUrl } from "./copy-destination.ts";
import { describeHidden, type HiddenCopy, listCopyVersions, readCopyVersion } from "./copy-versions.ts";

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

/** Writes a stream to a new file at `path` (replacing one a previous try left); answers the bytes written. */
async function writeStream(path: string, stream: AsyncIterable<Uint8Array>): Promise<number> {
  // The bytes written, counted: an S3 file's `size` is not fetched (Bun answers 0 before a stat).
  let size = 0;
  const out = await open(path, "w", 0o600);
  try {
    for await (const chunk of stream) {
      await out.write(chunk);
      size += chunk.byteLength;
    }
  } finally {
    await out.close();
  }
  return size;
}

/** Whether the file starts as every .enc.dbvault file does. */
async function isBackupFile(path: string): Promise<boolean> {
  const head = new Uint8Array(await Bun.file(path).slice(0, MAGIC.length).arrayBuffer());
  return head.length === MAGIC.length && head.every((byte, index) => byte === MAGIC[index]);
}

/**
 * The copy was hidden (a delete marker, or other bytes put over it): reads into `path` the newest
 * older version that is a dbvault backup file. Answers what was found, or null when no older
 * version is one, or the bucket lists no versions to this agent.
 */
async function readHiddenVersion(entry: CopyEntry, key: string, path: string): Promise<{ size: number; hidden: HiddenCopy } | null> {
  const versions = await listCopyVersions(entry, key).catch(() => null);
  if (!versions?.current) return null;
  for (const version of versions.older) {
    const size = await writeStream(path, await readCopyVersion(entry, key, version.versionId));
    if (await isBackupFile(path)) return { size, hidden: describeHidden(entry, key, version.versionId, versions.current) };
  }
  return null;
}

/**
 * Downloads the object into a new 0700 temporary directory; answers its path and a cleanup, and
 * `hidden` when the copy was hidden and its older version was read. Throws CopyDestinationError.
 */
export async function downloadFromCopy(entry: CopyEntry, key: string): Promise<{ path: string; size: number; hidden?: HiddenCopy; discard(): Promise<void> }> {
  const { client, label } = openCopy(entry);
  const directory = await mkdtemp(join(tmpdir(), "dbvault-from-copy-"));
  const discard = () => rm(directory, { recursive: true, force: true }).catch(() => undefined);
  const path = join(directory, "backup.enc.dbvault");
  try {
    let size: number;
    try {
      size = await writeStream(path, client.file(key).stream());
    } catch (error) {
      if ((error as { code?: string }).code !== "NoSuchKey") throw error;
      const found = await readHiddenVersion(entry, key, path);
      if (!found) throw error;
      return { path, ...found, discard };
    }
    if (!(await isBackupFile(path))) {
      const found = await readHiddenVersion(entry, key, path);
      if (found) return { path, ...found, discard };
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
