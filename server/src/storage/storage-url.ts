import { isAbsolute } from "node:path";
import { fileURLToPath } from "node:url";
import { readS3Location, s3Param, type S3LocationProblem } from "@protocol/s3-location";
import { StorageUrlError } from "./errors";
import type { S3StorageOptions } from "./s3-storage";

export type StorageTarget = { kind: "file"; root: string } | ({ kind: "s3" } & S3StorageOptions);

const S3_PARAMS = ["endpoint", "region", "accessKeyId", "secretAccessKey", "sessionToken", "virtualHostedStyle"] as const;

/**
 * Parses STORAGE_URL: `file:///abs/path`, or `s3://[accessKeyId:secretAccessKey@]bucket[/key/prefix/]`
 * `?endpoint=…&region=…&accessKeyId=…&secretAccessKey=…&sessionToken=…&virtualHostedStyle=true`.
 * Throws StorageUrlError (never quoting credentials) for anything else.
 */
export function parseStorageUrl(storageUrl: string): StorageTarget {
  let url: URL;
  try {
    url = new URL(storageUrl);
  } catch {
    throw new StorageUrlError("not a URL; use file:///absolute/path or s3://bucket?endpoint=…");
  }
  if (url.protocol === "file:") return parseFileUrl(url);
  if (url.protocol === "s3:") return parseS3Url(url);
  throw new StorageUrlError(`unsupported scheme "${url.protocol}"; use file:///absolute/path or s3://bucket?endpoint=…`);
}

function parseFileUrl(url: URL): StorageTarget {
  if (url.search || url.hash) throw new StorageUrlError("a file:// URL takes no query or fragment");
  let root: string;
  try {
    root = fileURLToPath(url);
  } catch {
    throw new StorageUrlError("a file:// URL needs an absolute path and no host (file:///var/lib/dbvault/backups)");
  }
  if (!isAbsolute(root)) throw new StorageUrlError("the file:// path must be absolute");
  return { kind: "file", root: root.length > 1 ? root.replace(/\/+$/, "") : root };
}

/** The server's wording of each location problem (protocol/s3-location.ts). */
function describeLocationProblem(problem: S3LocationProblem): string {
  switch (problem.problem) {
    case "bucket":
      return "s3:// needs a bucket name as host (s3://my-bucket?endpoint=https://…)";
    case "port":
      return "put the service address in ?endpoint=, not in the s3:// host";
    case "unknown":
      return `unknown s3:// parameter(s) ${problem.names.join(", ")}; known: ${S3_PARAMS.join(", ")}`;
    case "endpoint":
      return "endpoint must be an http:// or https:// URL";
    case "prefix":
      return "the key prefix after the bucket must be /-separated safe names (s3://bucket/dbvault/)";
  }
}

function parseS3Url(url: URL): StorageTarget {
  const location = readS3Location(url, S3_PARAMS);
  if ("problem" in location) throw new StorageUrlError(describeLocationProblem(location));
  const param = (name: (typeof S3_PARAMS)[number]) => s3Param(url, name);
  const accessKeyId = param("accessKeyId") ?? (url.username ? decodeURIComponent(url.username) : undefined);
  const secretAccessKey = param("secretAccessKey") ?? (url.password ? decodeURIComponent(url.password) : undefined);
  if (Boolean(accessKeyId) !== Boolean(secretAccessKey)) throw new StorageUrlError("give both accessKeyId and secretAccessKey, or neither");
  const hosted = param("virtualHostedStyle");
  if (hosted && !["true", "false"].includes(hosted)) throw new StorageUrlError("virtualHostedStyle must be true or false");
  return {
    kind: "s3",
    bucket: location.bucket,
    endpoint: location.endpoint,
    region: param("region"),
    accessKeyId,
    secretAccessKey,
    sessionToken: param("sessionToken"),
    virtualHostedStyle: hosted === "true",
    keyPrefix: location.prefix || undefined,
  };
}
