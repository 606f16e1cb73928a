// Failures of the server's own infrastructure (its database, its backup storage) are not bugs and
// not the caller's fault: the request may well succeed once the database is back or the disk has
// room. They are told apart here so callers get a 503 that says so, instead of a 500.
import { StorageUnavailableError } from "../storage/errors";

/** Network errors of a connection to the database (the postgres driver passes Node's codes on). */
export const CONNECTION_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EPIPE",
  // The postgres driver's own: the server closed or dropped the connection, or it could not be made in time.
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
]);

/**
 * PostgreSQL's SQLSTATEs for "not now": connection exceptions (class 08), insufficient resources
 * (53: disk full, out of memory, too many connections), the server shutting down or starting
 * (57P01-57P03), and a read-only standby after a fail-over (25006).
 */
export const UNAVAILABLE_SQLSTATE = /^(08...|53...|57P0[123]|25006)$/;

/** `error` and its chain of causes, outermost first. */
export function* causes(error: unknown): Generator<object> {
  const seen = new Set<unknown>();
  for (let current = error; current && typeof current === "object" && !seen.has(current); current = (current as { cause?: unknown }).cause) {
    seen.add(current);
    yield current;
  }
}

/**
 * Whether `error` says the database could not be reached or cannot serve now. Only errors from a
 * query count (the postgres driver and Drizzle put the statement on them as `query`), so a refused
 * connection to anything else (SMTP, a webhook) is not mistaken for the database's.
 */
export function isDatabaseOutage(error: unknown): boolean {
  const chain = [...causes(error)];
  if (!chain.some((link) => "query" in link)) return false;
  return chain.some((link) => {
    const code = (link as { code?: unknown }).code;
    return typeof code === "string" && (CONNECTION_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code));
  });
}

/** Whether `error` says the backup storage cannot be read or written now (full, read-only, unreachable). */
export function isStorageOutage(error: unknown): boolean {
  return [...causes(error)].some((link) => link instanceof StorageUnavailableError);
}

/** Why the backup storage is down, as a user may read it ("no space left on device"); null when no cause says. */
export function storageOutageReason(error: unknown): string | null {
  for (const link of causes(error)) if (link instanceof StorageUnavailableError && link.reason) return link.reason;
  return null;
}

/** What is down, for the log and the answer; null when `error` is not an outage. */
export function outageOf(error: unknown): "database" | "storage" | null {
  if (isDatabaseOutage(error)) return "database";
  if (isStorageOutage(error)) return "storage";
  return null;
}
