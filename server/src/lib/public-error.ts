import { AppError } from "./errors";
import type { Logger } from "./logger";
import { outageOf, storageOutageReason } from "./outages";

/** Seconds a client is asked to wait before trying again during an outage (Retry-After). */
export const OUTAGE_RETRY_AFTER_SECONDS = 30;

const OUTAGE_MESSAGES = {
  database: "The service is temporarily unavailable (its database cannot be reached). Please try again in a moment.",
  storage: "Backup storage is temporarily unavailable on the server (it may be full, not writable or unreachable). Please try again later.",
};

/**
 * What a caller (an HTTP client, a browser or agent socket) may be told about an error thrown
 * while serving it: an AppError as it is; a database or storage outage as a 503 that says so;
 * anything else as a 500 without details. Outages and unexpected errors are logged with `where`
 * (their details, never SQL parameters, stay in the log: they name hosts, paths and keys).
 */
export function publicErrorOf(error: unknown, log: Logger, where: Record<string, unknown>): AppError {
  if (error instanceof AppError) return error;
  const outage = outageOf(error);
  if (outage) {
    log.error(`${outage} unavailable`, { ...where, error });
    // The cause, never the storage's own message (it names the directory, keys, the endpoint).
    const reason = outage === "storage" ? storageOutageReason(error) : null;
    const message = reason ? `Backup storage is temporarily unavailable on the server: ${reason}. Please try again later.` : OUTAGE_MESSAGES[outage];
    return new AppError(503, "SERVICE_UNAVAILABLE", message, { retryAfter: OUTAGE_RETRY_AFTER_SECONDS });
  }
  log.error("unhandled error", { ...where, error });
  return new AppError(500, "INTERNAL", "Something went wrong on our side. Please try again in a moment.");
}
