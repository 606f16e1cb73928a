type Level = "debug" | "info" | "warn" | "error";
const rank: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export type Logger = {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
};

// Field names whose values are never written, whoever passes them: a second line of defence
// behind the rule that secrets are not handed to the logger at all.
const secretField = /pass|secret|token|api.?key|authorization|cookie|uri|connection/i;

function redact(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    if (secretField.test(key)) out[key] = "[redacted]";
    else if (value instanceof Error) out[key] = describeError(value);
    else out[key] = value;
  }
  return out;
}

/**
 * An error as a log shows it: name, code and message, never SQL. Drizzle wraps a failed statement
 * as "Failed query: <sql> params: <values>", and those values can be password hashes, API-key
 * ciphertexts and token hashes: only the database's own error (its code and message) is kept.
 */
export function describeError(error: Error): { name: string; code?: string; message: string } {
  const failedQuery = "query" in error || "params" in error || error.message.startsWith("Failed query:");
  const source = failedQuery ? error.cause : error;
  const code = (source as { code?: unknown } | undefined)?.code;
  const message = source instanceof Error ? source.message : failedQuery ? "a database query failed" : error.message;
  return { name: error.name, ...(typeof code === "string" || typeof code === "number" ? { code: String(code) } : {}), message };
}

/** A JSON-lines logger on stdout (errors on stderr). */
export function createLogger(
  level: Level = "info",
  write = (line: string, isError: boolean) => {
    (isError ? process.stderr : process.stdout).write(`${line}\n`);
  },
): Logger {
  const emit = (at: Level, message: string, fields: Record<string, unknown> = {}) => {
    if (rank[at] < rank[level]) return;
    write(JSON.stringify({ time: new Date().toISOString(), level: at, message, ...redact(fields) }), at === "error");
  };
  return {
    debug: (m, f) => emit("debug", m, f),
    info: (m, f) => emit("info", m, f),
    warn: (m, f) => emit("warn", m, f),
    error: (m, f) => emit("error", m, f),
  };
}

/** A logger that drops everything: for tests that do not look at logs. */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
