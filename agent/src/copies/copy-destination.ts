// A copy destination: the customer's own S3 bucket the agent writes every backup to as well (the
// 3-2-1 rule's second place). Its credentials stay in the agent config on this machine: the
// server only ever hears the label (bucket, prefix, endpoint), never a key.
import { CliError, EXIT } from "../cli-error.ts";

/** One copy destination as the config keeps it (file mode 0600, with the master key). */
export interface CopyEntry {
  /** `s3://bucket/prefix/?endpoint=…&region=…`, normalized; holds no credentials; also its label. */
  url: string;
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  /** Each copy is written with this S3 Object Lock retention (`copies add --object-lock`). */
  objectLock?: CopyLock;
}

export type CopyLockMode = "compliance" | "governance";
export interface CopyLock {
  mode: CopyLockMode;
  /** Each copy is locked for this many days from its write. */
  retainDays: number;
}

/** Where a copy goes, parsed from its URL. */
export interface CopyTarget {
  bucket: string;
  /** "" or ending in "/". */
  prefix: string;
  endpoint?: string;
  region?: string;
}

const PARAMS = ["endpoint", "region"];

/** Parses `s3://bucket/prefix?endpoint=…&region=…`; throws CliError (usage) saying what is wrong, never quoting secrets. */
export function parseCopyUrl(command: string, text: string): CopyTarget & { url: string } {
  const fail = (message: string, hint = "write it as s3://bucket/prefix?endpoint=https://…&region=…") =>
    new CliError(`${command}: ${message}`, EXIT.usage, hint);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw fail("the copy destination is not a URL");
  }
  if (url.protocol !== "s3:") throw fail(`the copy destination must be an s3:// URL, not ${url.protocol}//`);
  if (url.username || url.password || url.searchParams.has("accessKeyId") || url.searchParams.has("secretAccessKey")) {
    throw fail(
      "the copy destination URL must not hold credentials (they would stay in the shell history)",
      "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE, or type them when asked",
    );
  }
  const bucket = url.hostname;
  if (!/^[a-z0-9][a-z0-9._-]{1,61}[a-z0-9]$/.test(bucket)) throw fail('s3:// needs a bucket name (3 to 63 of a-z, 0-9, ".", "-") as host');
  if (url.port) throw fail("put the service address in ?endpoint=, not in the s3:// host");
  const unknown = [...url.searchParams.keys()].filter((name) => !PARAMS.includes(name));
  if (unknown.length > 0) throw fail(`unknown parameter ${unknown.join(", ")} (known: ${PARAMS.join(", ")})`);
  const endpoint = url.searchParams.get("endpoint")?.trim() || undefined;
  if (endpoint && !/^https?:\/\/[^/\s]+/.test(endpoint)) throw fail("endpoint must be an http:// or https:// URL");
  const region = url.searchParams.get("region")?.trim() || undefined;
  const path = decodeURIComponent(url.pathname).replace(/^\/+/, "");
  const prefix = path === "" ? "" : path.endsWith("/") ? path : `${path}/`;
  if (prefix && !/^([A-Za-z0-9_=@+-][A-Za-z0-9._=@+-]*\/)+$/.test(prefix))
    throw fail("the prefix after the bucket must be /-separated names (s3://bucket/dbvault)");
  const query = new URLSearchParams();
  if (endpoint) query.set("endpoint", endpoint);
  if (region) query.set("region", region);
  const search = query.size > 0 ? `?${query}` : "";
  return { bucket, prefix, endpoint, region, url: `s3://${bucket}/${prefix}${search}` };
}

/** The object key of one backup file in a copy: `<prefix><database>/<file name>`. */
export function copyObjectKey(target: CopyTarget, databaseName: string, fileName: string): string {
  return `${target.prefix}${databaseName}/${fileName}`;
}
