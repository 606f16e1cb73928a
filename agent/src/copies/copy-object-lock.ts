// S3 Object Lock on the copies in the customer's bucket (`copies add --object-lock`): whoever takes
// the database host takes the bucket's credentials too, and a copy under a COMPLIANCE retention
// cannot be deleted or overwritten with them until it ends. Bun's S3 client has no call for a
// bucket's settings, nor sends the lock headers and Content-MD5 a locked put needs, so these
// requests are signed here (aws4fetch).
import { createHash } from "node:crypto";
import { AwsClient } from "aws4fetch";
import { type CopyEntry, type CopyLock, type CopyLockMode, parseCopyUrl } from "./copy-destination.ts";

const DAY = 86_400_000;

/** An error answer of the bucket, with S3's code when it gave one (never a credential). */
export class CopyLockRequestError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

/** What a bucket offers for locked copies. */
export interface BucketLock {
  versioning: boolean;
  objectLock: boolean;
  /** The retention the bucket gives every new object by itself, if any. */
  defaultRetention: { mode: CopyLockMode; days: number } | null;
}

/** What a signed request to the bucket answered: its body, and the version id S3 gave the object (x-amz-version-id). */
export type BucketAnswer = { text: string; versionId: string | null };

/** Signed requests to one copy destination's bucket, answering the body; throws CopyLockRequestError on an error answer. */
function signedBucket(entry: CopyEntry) {
  const request = signedBucketRequests(entry);
  return async (...args: Parameters<typeof request>) => (await request(...args)).text;
}

/** Signed requests to one copy destination's bucket, answering the raw response (its body unread, e.g. to stream it). */
export function signedBucketFetch(entry: CopyEntry) {
  const target = parseCopyUrl("copies", entry.url);
  const region = target.region ?? "us-east-1";
  const client = new AwsClient({
    accessKeyId: entry.accessKeyId,
    secretAccessKey: entry.secretAccessKey,
    sessionToken: entry.sessionToken,
    region,
    service: "s3",
  });
  const endpoint = (target.endpoint ?? `https://s3.${region}.amazonaws.com`).replace(/\/+$/, "");
  return async (method: string, key: string, query: string, init: { body?: string | Blob; headers?: Record<string, string> } = {}): Promise<Response> => {
    const path = key ? `/${key.split("/").map(encodeURIComponent).join("/")}` : "";
    const url = `${endpoint}/${target.bucket}${path}${query ? `?${query}` : ""}`;
    // Signed without the body (S3 takes UNSIGNED-PAYLOAD): a copy streams from its file as it is.
    const signed = await client.sign(url, { method, headers: init.headers });
    return fetch(signed.url, { method, headers: signed.headers, body: init.body });
  };
}

/** As signedBucket, answering the version id too. */
export function signedBucketRequests(entry: CopyEntry) {
  const send = signedBucketFetch(entry);
  return async (method: string, key: string, query: string, init: { body?: string | Blob; headers?: Record<string, string> } = {}): Promise<BucketAnswer> => {
    const response = await send(method, key, query, init);
    const text = await response.text();
    if (!response.ok) {
      const code = /<Code>([^<]*)<\/Code>/.exec(text)?.[1];
      throw new CopyLockRequestError(`${method} ?${query} answered ${response.status}${code ? ` (${code})` : ""}`, code);
    }
    // "null" is the version id of an object in a bucket without versioning.
    const versionId = response.headers.get("x-amz-version-id");
    return { text, versionId: versionId && versionId !== "null" ? versionId : null };
  };
}

/** Reads the bucket's versioning and Object Lock settings; throws CopyLockRequestError when the bucket refuses. */
export async function readBucketLock(entry: CopyEntry): Promise<BucketLock> {
  const request = signedBucket(entry);
  const versioning = /<Status>Enabled<\/Status>/.test(await request("GET", "", "versioning"));
  const lock = await request("GET", "", "object-lock").catch((error) => {
    if (error instanceof CopyLockRequestError && error.code === "ObjectLockConfigurationNotFoundError") return "";
    throw error;
  });
  const objectLock = /<ObjectLockEnabled>Enabled<\/ObjectLockEnabled>/.test(lock);
  const mode = /<DefaultRetention>[\s\S]*<Mode>(COMPLIANCE|GOVERNANCE)<\/Mode>/.exec(lock)?.[1];
  const days = Number(/<DefaultRetention>[\s\S]*<Days>(\d+)<\/Days>/.exec(lock)?.[1] ?? Number.NaN);
  const years = Number(/<DefaultRetention>[\s\S]*<Years>(\d+)<\/Years>/.exec(lock)?.[1] ?? Number.NaN);
  const length = Number.isFinite(days) ? days : Number.isFinite(years) ? years * 365 : null;
  return {
    versioning,
    objectLock,
    defaultRetention: mode && length !== null ? { mode: mode.toLowerCase() as CopyLockMode, days: length } : null,
  };
}

/** The retention a copy written at `writtenAt` gets. */
export const copyRetainUntil = (lock: CopyLock, writtenAt: Date) => new Date(writtenAt.getTime() + lock.retainDays * DAY);

/** S3 takes at most this much in one PutObject. */
export const LOCKED_PUT_LIMIT = 5 * 1024 ** 3;

/**
 * Writes a copy with its retention in the same PutObject (it is never there unlocked). S3 wants
 * Content-MD5 on any put a retention applies to, the bucket's default one included, so the file
 * is read once for it before it is sent. Throws CopyLockRequestError when the bucket refuses.
 */
export async function putLockedCopy(entry: CopyEntry, key: string, path: string, lock: CopyLock | null, writtenAt = new Date()): Promise<Date | null> {
  const file = Bun.file(path);
  if (file.size > LOCKED_PUT_LIMIT) {
    throw new CopyLockRequestError(`a locked copy is written in one request, and S3 takes at most 5 GiB in one (this file has ${file.size} bytes)`, undefined);
  }
  const md5 = createHash("md5");
  for await (const chunk of file.stream()) md5.update(chunk);
  const until = lock ? copyRetainUntil(lock, writtenAt) : null;
  const headers: Record<string, string> = {
    "Content-MD5": md5.digest("base64"),
    "content-length": String(file.size),
    "content-type": "application/octet-stream",
    ...(lock && until ? { "x-amz-object-lock-mode": lock.mode.toUpperCase(), "x-amz-object-lock-retain-until-date": until.toISOString() } : {}),
  };
  await signedBucket(entry)("PUT", key, "", { body: file, headers });
  return until;
}
