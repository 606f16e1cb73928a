// Where an s3:// URL points: the bucket, the key prefix and the service's address. The server's
// STORAGE_URL and the agent's copy destinations (`copies add`) are written the same way; each side
// words the problems for its readers (an operator's environment, a command line) and handles its
// own parameters (the server takes credentials in the URL, the agent refuses them).

/** What is wrong with the location, in the order it is checked. */
export type S3LocationProblem = { problem: "bucket" | "port" | "endpoint" | "prefix" } | { problem: "unknown"; names: string[] };

export interface S3Location {
  bucket: string;
  /** "" or /-separated names ending in "/". */
  prefix: string;
  endpoint?: string;
}

/** A query parameter of the URL, trimmed; undefined when absent or blank. */
export function s3Param(url: URL, name: string): string | undefined {
  return url.searchParams.get(name)?.trim() || undefined;
}

/**
 * Reads the location of an s3:// URL (its scheme already checked): a bucket name as host (S3's
 * naming rules; underscores tolerated for older buckets), no port (the address goes in ?endpoint=),
 * only `known` parameters, an http(s) endpoint, a prefix of safe /-separated names.
 */
export function readS3Location(url: URL, known: readonly string[]): S3Location | S3LocationProblem {
  const bucket = url.hostname;
  if (!/^[a-z0-9][a-z0-9._-]{1,61}[a-z0-9]$/.test(bucket)) return { problem: "bucket" };
  if (url.port) return { problem: "port" };
  const unknown = [...url.searchParams.keys()].filter((name) => !known.includes(name));
  if (unknown.length > 0) return { problem: "unknown", names: unknown };
  const endpoint = s3Param(url, "endpoint");
  if (endpoint && !/^https?:\/\/[^/\s]+/.test(endpoint)) return { problem: "endpoint" };
  const path = decodeURIComponent(url.pathname).replace(/^\/+/, "");
  const prefix = path === "" ? "" : path.endsWith("/") ? path : `${path}/`;
  if (prefix && !/^([A-Za-z0-9_=@+-][A-Za-z0-9._=@+-]*\/)+$/.test(prefix)) return { problem: "prefix" };
  return { bucket, prefix, ...(endpoint ? { endpoint } : {}) };
}
