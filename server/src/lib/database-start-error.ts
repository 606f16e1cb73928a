// Why the PostgreSQL server in DATABASE_URL could not be used at start-up, in one line an operator
// can act on. Without this the start ended with the driver's stack trace. Nothing of the URL is
// quoted (its password); the host and port the driver tried are named, as in the log.
import { causes, CONNECTION_CODES, UNAVAILABLE_SQLSTATE } from "./outages";

type DriverError = { code?: unknown; address?: unknown; port?: unknown };

const REASONS: Record<string, string> = {
  "28P01": "it refused the user name or password",
  "28000": "it refused the user name or password",
  "3D000": "the database named in it does not exist",
  "57P03": "the database server is still starting; try again in a moment",
};

/** The reason, or null when `error` is not the database refusing or failing to answer. */
export function describeDatabaseStartError(error: unknown): string | null {
  for (const link of causes(error)) {
    const { code, address, port } = link as DriverError;
    if (typeof code !== "string") continue;
    if (REASONS[code]) return REASONS[code];
    if (CONNECTION_CODES.has(code)) {
      const where = typeof address === "string" ? ` at ${address}${typeof port === "number" ? `:${port}` : ""}` : "";
      return `the database server could not be reached${where} (${code})`;
    }
    if (UNAVAILABLE_SQLSTATE.test(code)) return `the database server cannot serve now (SQLSTATE ${code})`;
  }
  return null;
}
