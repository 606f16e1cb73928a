// MongoDB's own error codes and names: clients (the driver, the agent) branch on `code` and
// `codeName`, so the test server must use the real numbers, not invent its own.

const codeNames: Record<number, string> = {
  1: "InternalError",
  2: "BadValue",
  9: "FailedToParse",
  11: "UserNotFound",
  13: "Unauthorized",
  14: "TypeMismatch",
  16: "InvalidLength",
  17: "ProtocolError",
  18: "AuthenticationFailed",
  20: "IllegalOperation",
  22: "InvalidBSON",
  26: "NamespaceNotFound",
  27: "IndexNotFound",
  28: "PathNotViable",
  40: "ConflictingUpdateOperators",
  43: "CursorNotFound",
  48: "NamespaceExists",
  53: "InvalidIdField",
  59: "CommandNotFound",
  66: "ImmutableField",
  67: "CannotCreateIndex",
  72: "InvalidOptions",
  73: "InvalidNamespace",
  85: "IndexOptionsConflict",
  86: "IndexKeySpecsConflict",
  76: "NoReplicationEnabled",
  115: "CommandNotSupported",
  136: "CappedPositionLost",
  189: "PrimarySteppedDown",
  237: "CursorKilled",
  11602: "InterruptedDueToReplStateChange",
  166: "CommandNotSupportedOnView",
  10107: "NotWritablePrimary",
  13435: "NotPrimaryNoSecondaryOk",
  10334: "BSONObjectTooLarge",
  11000: "DuplicateKey",
  352: "UnsupportedOpQueryCommand",
  40571: "Location40571",
};

/** A command failure, answered as `{ ok: 0, errmsg, code, codeName }`. */
export class CommandError extends Error {
  readonly code: number;
  readonly codeName: string;
  /** Extra reply fields some errors carry (a duplicate key's keyPattern and keyValue). */
  readonly details: Record<string, unknown>;

  constructor(code: number, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.code = code;
    // Codes without a name of their own are reported by mongod as "Location<code>".
    this.codeName = codeNames[code] ?? `Location${code}`;
    this.details = details;
  }
}

/** Shorthand for the commonest failure: a malformed argument. */
export function createBadValue(message: string): CommandError {
  return new CommandError(2, message);
}
