// Typed failures of dumping and restoring. Messages name hosts at most, never a connection
// string, a password or a key; `hint` says what the user can do about it.
import type { RestoreResult } from "./types.ts";

export type DumpErrorCode =
  /** The MongoDB server could not be reached or refused the credentials. */
  | "connect-failed"
  /** A command failed on the server (create, createIndexes, insert, find...). */
  | "database-error"
  /** mongodump or mongorestore failed, or could not be started. */
  | "tool-failed"
  /** The configured native tools are missing or too old to take the URI from a config file. */
  | "tool-unavailable"
  /** The server or the data needs something this engine cannot do (named in the message). */
  | "unsupported"
  /** The archive's databases do not fit the target database. */
  | "target-mismatch"
  /** A collection chosen for the restore is not in the backup. */
  | "unknown-collection"
  /** The restore failed after it had replaced collections; see `stats`. */
  | "restore-incomplete"
  /** The restore's private copy of the backup could not be written (a full disk, TMPDIR). */
  | "copy-failed"
  /** The oplog slices of a point-in-time restore are not one whole chain to the time asked (named in the message). */
  | "invalid-chain"
  /** The operation was aborted through its signal. */
  | "aborted";

/** The one error type of dump and restore; `code` says what went wrong. */
export class DumpError extends Error {
  override readonly name = "DumpError";
  readonly code: DumpErrorCode;
  readonly hint: string | undefined;
  /** For "restore-incomplete": what was restored before the failure. */
  readonly stats: RestoreResult | undefined;
  /**
   * The backup itself cannot be restored, into any target: its unique keys do not hold once its
   * oplog is replayed. A drill that meets it fails the backup's verification too.
   */
  readonly backupAtFault: boolean;

  constructor(code: DumpErrorCode, message: string, details: { hint?: string; cause?: unknown; stats?: RestoreResult; backupAtFault?: boolean } = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.code = code;
    this.hint = details.hint;
    this.stats = details.stats;
    this.backupAtFault = details.backupAtFault === true;
  }
}

/** Tells whether a value is a DumpError, optionally with the given code; never throws. */
export function isDumpError(value: unknown, code?: DumpErrorCode): value is DumpError {
  return value instanceof DumpError && (code === undefined || value.code === code);
}

/**
 * The DumpError "aborted" for a fired signal. Its message is the signal's reason when that is a
 * DumpError "aborted" itself (the daemon says "the agent was stopped ...": a user reading
 * "cancelled" in the restore history would look for a cancel they never made), else
 * "the operation was cancelled" (Ctrl-C on the command line).
 */
export function abortedError(signal: AbortSignal | undefined, cause?: unknown): DumpError {
  const reason: unknown = signal?.reason;
  const message = reason instanceof DumpError && reason.code === "aborted" ? reason.message : "the operation was cancelled";
  return new DumpError("aborted", message, cause === undefined ? {} : { cause });
}

/** Throws DumpError "aborted" (abortedError) when the signal has fired. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortedError(signal);
}

/**
 * Waits for `promise` unless the signal fires first, then throws DumpError "aborted": a dump
 * waiting for a reader that stopped reading (a full pipe, a stalled upload) still stops when
 * cancelled. Rethrows the promise's own rejection.
 */
export async function waitUnlessAborted(promise: Promise<unknown>, signal: AbortSignal | undefined): Promise<void> {
  throwIfAborted(signal);
  if (!signal) {
    await promise;
    return;
  }
  let onAbort: () => void = () => undefined;
  const aborted = new Promise<void>((resolve) => {
    onAbort = () => resolve();
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    await Promise.race([promise, aborted]);
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
  throwIfAborted(signal);
}
