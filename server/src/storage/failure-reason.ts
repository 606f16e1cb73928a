// Why the backup storage failed, in words a user may read. The storage errors' own messages name
// the storage directory, object keys and the S3 service's text, so they stay in the server's log;
// a backup that failed on a full disk or a stopped S3 endpoint told its user only that the server
// answered 503. This reads the system's or the S3 service's code down the error's chain of
// causes and says what it means, never a path, a key, a host or a credential.

/** The file system's errors (Node's codes), as strerror says them. */
const FILE_SYSTEM: Record<string, string> = {
  ENOSPC: "no space left on device",
  EDQUOT: "disk quota exceeded",
  EFBIG: "file too large for the storage's file size limit",
  EROFS: "read-only file system",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EIO: "input/output error on the storage's disk",
  EMFILE: "too many open files",
  ENFILE: "too many open files",
};

/** The connection to an S3 endpoint (Node's codes and Bun's S3 client's and fetch's own). */
const NETWORK: Record<string, string> = {
  ECONNREFUSED: "the S3 endpoint refused the connection",
  ConnectionRefused: "the S3 endpoint refused the connection",
  ENOTFOUND: "the S3 endpoint's host name could not be resolved",
  EAI_AGAIN: "the S3 endpoint's host name could not be resolved",
  ETIMEDOUT: "the S3 endpoint did not answer in time",
  Timeout: "the S3 endpoint did not answer in time",
  ECONNRESET: "the connection to the S3 endpoint was cut",
  EPIPE: "the connection to the S3 endpoint was cut",
  ConnectionClosed: "the connection to the S3 endpoint was cut",
  EHOSTUNREACH: "the S3 endpoint cannot be reached (no route to its host)",
  ENETUNREACH: "the S3 endpoint cannot be reached (no route to its host)",
  FailedToOpenSocket: "the S3 endpoint cannot be reached",
};

/** S3's error codes that mean the server's access keys or bucket are wrong, not a passing outage. */
const S3_REFUSALS: Record<string, string> = {
  AccessDenied: "S3 refused the server's access keys",
  InvalidAccessKeyId: "S3 does not know the server's access key",
  SignatureDoesNotMatch: "S3 refused the server's secret key",
  ExpiredToken: "the server's S3 credentials have expired",
  NoSuchBucket: "the S3 bucket does not exist",
};

/** An S3 error code is a word ("SlowDown"); anything else is not repeated. */
const S3_CODE = /^[A-Z][A-Za-z]{1,63}$/;

/** The cause of a storage failure for the user, e.g. "no space left on device"; null when nothing in the chain says. */
export function storageFailureReason(error: unknown): string | null {
  const seen = new Set<unknown>();
  for (let current = error; current && typeof current === "object" && !seen.has(current); current = (current as { cause?: unknown }).cause) {
    seen.add(current);
    const { code, name, status } = current as { code?: unknown; name?: unknown; status?: unknown };
    if (name === "TimeoutError") return NETWORK.Timeout!;
    if (typeof code === "string") {
      const known = FILE_SYSTEM[code] ?? NETWORK[code];
      if (known) return known;
      if (S3_REFUSALS[code]) return `${S3_REFUSALS[code]} (${code})`;
      if (S3_CODE.test(code) && (name === "S3Error" || name === "S3RequestError")) return `S3 answered ${code}`;
    }
    if (name === "S3RequestError" && typeof status === "number" && status >= 500) return `S3 answered HTTP ${status}`;
  }
  return null;
}
