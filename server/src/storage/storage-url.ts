import { isAbsolute } from "node:path";
import { fileURLToPath } from "node:url";
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

function parseS3Url(url: URL): StorageTarget {
  const bucket = url.hostname;
  // S3 bucket naming rules (3–63 of a-z 0-9 . -); underscores are tolerated for older buckets.
  if (!/^[a-z0-9][a-z0-9._-]{1,61}[a-z0-9]$/.test(bucket)) {
    throw new StorageUrlError("s3:// needs a bucket name as host (s3://my-bucket?endpoint=https://…)");
  }
  if (url.port) throw new StorageUrlError("put the service address in ?endpoint=, not in the s3:// host");
  const unknown = [...url.searchParams.keys()].filter((name) => !(S3_PARAMS as readonly string[]).includes(name));
  if (unknown.length > 0) throw new StorageUrlError(`unknown s3:// parameter(s) ${unknown.join(", ")}; known: ${S3_PARAMS.join(", ")}`);

  const param = (name: (typeof S3_PARAMS)[number]) => url.searchParams.get(name)?.trim() || undefined;
  const accessKeyId = param("accessKeyId") ?? (url.username ? decodeURIComponent(url.username) : undefined);
  const secretAccessKey = param("secretAccessKey") ?? (url.password ? decodeURIComponent(url.password) : undefined);
  if (Boolean(accessKeyId) !== Boolean(secretAccessKey)) throw new StorageUrlError("give both accessKeyId and secretAccessKey, or neither");

  const endpoint = param("endpoint");
  if (endpoint && !/^https?:\/\/[^/\s]+/.test(endpoint)) throw new StorageUrlError("endpoint must be an http:// or https:// URL");
  const hosted = param("virtualHostedStyle");
  if (hosted && !["true", "false"].includes(hosted)) throw new StorageUrlError("virtualHostedStyle must be true or false");

  const path = decodeURIComponent(url.pathname).replace(/^\/+/, "");
  const keyPrefix = path === "" ? undefined : path.endsWith("/") ? path : `${path}/`;
  if (keyPrefix && !/^([A-Za-z0-9_=@+-][A-Za-z0-9._=@+-]*\/)+$/.test(keyPrefix)) {
    throw new StorageUrlError("the key prefix after the bucket must be /-separated safe names (s3://bucket/dbvault/)");
  }
  return {
    kind: "s3",
    bucket,
    endpoint,
    region: param("region"),
    accessKeyId,
    secretAccessKey,
    sessionToken: param("sessionToken"),
    virtualHostedStyle: hosted === "true",
    keyPrefix,
  };
}
