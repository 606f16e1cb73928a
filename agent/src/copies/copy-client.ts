// Talks to a copy destination with Bun's S3 client: the probe `copies add` runs, the writes after
// each backup, the reads of an offline restore. Errors name the bucket and S3's code, never a key.
import { createHash, randomBytes } from "node:crypto";
import { S3Client } from "bun";
import { CliError, EXIT } from "../cli-error.ts";
import { type CopyEntry, parseCopyUrl } from "./copy-destination.ts";
import { signedBucketRequests } from "./copy-object-lock.ts";

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

/**
 * A version of the probe object the bucket would not delete: its default retention locks it, or
 * the credentials lack s3:DeleteObjectVersion. It is hidden behind a delete marker.
 */
export type ProbeLeftover = { key: string; versionId: string; code: string | undefined };

const PROBE_BODY = "dbvault copy probe\n";
/** How long the probe in a locked bucket is retained (GOVERNANCE): past it, its version can be deleted. */
const PROBE_RETENTION_MS = 1_000;
/** Tries at deleting it, a second apart: the bucket's clock may run a little behind ours. */
const PROBE_DELETE_ATTEMPTS = 6;

/** Deletes one version of an object; answers null once deleted, else S3's code of the last refusal. */
async function deleteVersion(
  request: ReturnType<typeof signedBucketRequests>,
  key: string,
  versionId: string,
  attempts: number,
): Promise<string | undefined | null> {
  let code: string | undefined;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    if (attempts > 1) await Bun.sleep(PROBE_RETENTION_MS);
    try {
      await request("DELETE", key, `versionId=${encodeURIComponent(versionId)}`);
      return null;
    } catch (error) {
      code = (error as { code?: string }).code;
    }
  }
  return code;
}

/**
 * Writes and deletes a small object under the prefix; throws CopyDestinationError saying what
 * failed. In a versioned bucket a plain DELETE only hides an object behind a delete marker, and
 * the probe stayed as an old version: its version is deleted by id. Answers the version left
 * when the bucket refused that (the caller says so), else null.
 */
export async function probeCopy(entry: CopyEntry): Promise<ProbeLeftover | null> {
  const { prefix, label } = openCopy(entry);
  const key = `${prefix}.dbvault-probe-${randomBytes(6).toString("hex")}`;
  const request = signedBucketRequests(entry);
  let versionId: string | null;
  try {
    // Content-MD5: a locked bucket wants it on every put (its default retention applies). The
    // probe has no retention of its own, so that it can be deleted.
    const headers: Record<string, string> = { "Content-MD5": createHash("md5").update(PROBE_BODY).digest("base64"), "content-type": "text/plain" };
    // A locked bucket's default retention (COMPLIANCE for days, say) would lock the probe too:
    // its own retention, in GOVERNANCE mode and ending at once, replaces it.
    if (entry.objectLock) {
      headers["x-amz-object-lock-mode"] = "GOVERNANCE";
      headers["x-amz-object-lock-retain-until-date"] = new Date(Date.now() + PROBE_RETENTION_MS).toISOString();
    }
    versionId = (await request("PUT", key, "", { body: PROBE_BODY, headers })).versionId;
  } catch (error) {
    throw describeCopyError(error, `cannot write to ${label}`, "check the bucket name, the endpoint and that these credentials may put objects (s3:PutObject)");
  }
  let refused: string | undefined;
  if (versionId) {
    const outcome = await deleteVersion(request, key, versionId, entry.objectLock ? PROBE_DELETE_ATTEMPTS : 1);
    if (outcome === null) return null;
    refused = outcome;
  }
  try {
    await request("DELETE", key, "");
  } catch (error) {
    throw describeCopyError(
      error,
      `wrote to ${label} but cannot delete the probe object ${key}`,
      "these credentials need s3:DeleteObject too; delete the probe object by hand",
    );
  }
  return versionId ? { key, versionId, code: refused } : null;
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
