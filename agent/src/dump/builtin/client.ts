// Opening driver connections and turning driver failures into DumpErrors that name the host
// at most: driver messages can quote connection strings, so everything passes redaction.
import { MongoClient } from "mongodb";
import { describeUriHosts, redactSecrets } from "../connection-string.ts";
import { DumpError } from "../errors.ts";
import { AGENT_VERSION } from "../agent-version.ts";

/**
 * Connects to the server (checking it answers); throws DumpError "connect-failed". The server is
 * looked for 15 s, or `selectionTimeoutMs` (a quick check while someone waits), unless the
 * connection string says otherwise. `socketTimeoutMs`: a reply awaited longer fails (the driver
 * waits forever by default, which a silently cut link turns into a hang).
 */
export async function connectClient(uri: string, selectionTimeoutMs = 15_000, socketTimeoutMs?: number): Promise<MongoClient> {
  const host = describeUriHosts(uri);
  let client: MongoClient;
  try {
    const timeout = /[?&]serverSelectionTimeoutMS=/i.test(uri) ? {} : { serverSelectionTimeoutMS: selectionTimeoutMs };
    const socket = socketTimeoutMs === undefined || /[?&]socketTimeoutMS=/i.test(uri) ? {} : { socketTimeoutMS: socketTimeoutMs };
    client = new MongoClient(uri, { appName: `dbvault-agent ${AGENT_VERSION}`, ...timeout, ...socket });
  } catch (cause) {
    throw new DumpError("connect-failed", `the connection string is not valid: ${describeDriverError(cause, uri)}`, {
      hint: "check the uri of this database in the config file",
    });
  }
  try {
    await client.connect();
    await client.db("admin").command({ ping: 1 });
    return client;
  } catch (cause) {
    await client.close().catch(() => undefined);
    throw new DumpError("connect-failed", `cannot connect to mongodb at ${host}: ${describeDriverError(cause, uri)}`, {
      hint: `check that the server at ${host} is running and reachable from this machine, and the credentials in the config file`,
    });
  }
}

/** Returns a driver error's message with any trace of the connection string removed; never throws. */
export function describeDriverError(cause: unknown, uri: string): string {
  const message = cause instanceof Error ? cause.message : String(cause);
  return redactSecrets(message, [uri]);
}

/** Wraps a failed server command as DumpError "database-error" naming what was being done; never throws. */
export function wrapDatabaseError(cause: unknown, doing: string, uri: string): DumpError {
  if (cause instanceof DumpError) return cause;
  return new DumpError("database-error", `${doing} failed: ${describeDriverError(cause, uri)}`, { cause: redactCause(cause, uri) });
}

// The original error object may carry the URI in nested fields; keep only a redacted message.
function redactCause(cause: unknown, uri: string): Error {
  const error = new Error(describeDriverError(cause, uri));
  const code = (cause as { code?: unknown } | undefined)?.code;
  if (code !== undefined) (error as Error & { code?: unknown }).code = code;
  return error;
}

/** Every database name on the server (listDatabases, names only); throws the driver's error. */
export async function listDatabaseNames(client: MongoClient): Promise<string[]> {
  const listing = await client.db("admin").command({ listDatabases: 1, nameOnly: true });
  return (listing.databases as { name: unknown }[]).map((entry) => String(entry.name));
}
