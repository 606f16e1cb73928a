// Talks to a copy destination with Bun's S3 client: the probe `copies add` runs, the writes after
// each backup, the reads of an offline restore. Errors name the bucket and S3's code, never a key.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { S3Client } from "bun";
import { CliError, EXIT } from "../cli-error.ts";
import { type CopyEntry, parseCopyUrl } from "./copy-destination.ts";
import { putLockedCopy } from "./copy-object-lock.ts";

/** A copy destination that refused or could not be reached; message and hint for people. */
export class CopyDestinationError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, EXIT.failure, hint);
  }
}

/** The S3 client and key prefix of a configured copy; throws CliError when its URL is invalid. */
export function openCopy(entry: CopyEntry): { client: S3Client; prefix: string; label: string } {
  const target = parseCopyUrl("copies", entry.url);
  const client = new S3Client({
    bucket: target.bucket,
    endpoint: target.endpoint,
    region: target.region,
    accessKeyId: entry.accessKeyId,
    secretAccessKey: entry.secretAccessKey,
    sessionToken: entry.sessionToken,
  });
  return { client, prefix: target.prefix, label: entry.url };
}

async function putProbe(entry: CopyEntry, key: string): Promise<void> {
  const directory = await mkdtemp(join(tmpdir(), "dbvault-probe-"));
  try {
    const path = join(directory, "probe");
    await writeFile(path, "dbvault copy probe\n", { mode: 0o600 });
    await putLockedCopy(entry, key, path, null);
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

/** Writes and deletes a small object under the prefix; throws CopyDestinationError saying what failed. */
export async function probeCopy(entry: CopyEntry): Promise<void> {
  const { client, prefix, label } = openCopy(entry);
  const key = `${prefix}.dbvault-probe-${randomBytes(6).toString("hex")}`;
  try {
    // A locked bucket wants Content-MD5 on every put (its default retention applies): the probe
    // goes as the copies will, without a retention of its own so that it can be deleted.
    if (entry.objectLock) await putProbe(entry, key);
    else await client.write(key, "dbvault copy probe\n");
  } catch (error) {
    throw describeCopyError(error, `cannot write to ${label}`, "check the bucket name, the endpoint and that these credentials may put objects (s3:PutObject)");
  }
  try {
    await client.delete(key);
  } catch (error) {
    throw describeCopyError(
      error,
      `wrote to ${label} but cannot delete the probe object ${key}`,
      "these credentials need s3:DeleteObject too; delete the probe object by hand",
    );
  }
}

/** S3's error code, or how the connection failed; never a credential. */
export function describeCopyError(error: unknown, what: string, hint: string): CopyDestinationError {
  const code = (error as { code?: string }).code;
  const detail = code ? ` (${code})` : "";
  if (code === "ConnectionRefused" || code === "ECONNREFUSED" || code === "FailedToOpenSocket") {
    return new CopyDestinationError(`${what}: the endpoint is not reachable${detail}`, "check the endpoint and that the storage service is running");
  }
  return new CopyDestinationError(`${what}${detail}`, hint);
}
