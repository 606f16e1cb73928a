// A copy destination: the customer's own S3 bucket the agent writes every backup to as well (the
// 3-2-1 rule's second place). Its credentials stay in the agent config on this machine: the
// server only ever hears the label (bucket, prefix, endpoint), never a key.
import { readS3Location, s3Param, type S3LocationProblem } from "../../../protocol/s3-location.ts";
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
  const location = readS3Location(url, PARAMS);
  if ("problem" in location) throw fail(describeLocationProblem(location));
  const { bucket, prefix, endpoint } = location;
  const region = s3Param(url, "region");
  const query = new URLSearchParams();
  if (endpoint) query.set("endpoint", endpoint);
  if (region) query.set("region", region);
  const search = query.size > 0 ? `?${query}` : "";
  return { bucket, prefix, endpoint, region, url: `s3://${bucket}/${prefix}${search}` };
}

/** The command line's wording of each location problem (protocol/s3-location.ts). */
function describeLocationProblem(problem: S3LocationProblem): string {
  switch (problem.problem) {
    case "bucket":
      return 's3:// needs a bucket name (3 to 63 of a-z, 0-9, ".", "-") as host';
    case "port":
      return "put the service address in ?endpoint=, not in the s3:// host";
    case "unknown":
      return `unknown parameter ${problem.names.join(", ")} (known: ${PARAMS.join(", ")})`;
    case "endpoint":
      return "endpoint must be an http:// or https:// URL";
    case "prefix":
      return "the prefix after the bucket must be /-separated names (s3://bucket/dbvault)";
  }
}

/** The object key of one backup file in a copy: `<prefix><database>/<file name>`. */
export function copyObjectKey(target: CopyTarget, databaseName: string, fileName: string): string {
  return `${target.prefix}${databaseName}/${fileName}`;
}
