// The point-in-time check of `setup` and `db add`: one more connection, made the way dumps make
// it, asking what the user may do. It never fails the command: a server that cannot be asked is
// said as "not checked".
import { connectClient, describeDriverError } from "../dump/builtin/client.ts";
import { readUriDatabase } from "../dump/connection-string.ts";
import { type AccessLine, describeOplogAccess, inspectOplogAccess, type OplogAccess } from "../oplog/permissions/index.ts";

/** Checks the database `name` at `uri` within `timeoutMs`; never throws. */
export async function checkOplogAccess(name: string, uri: string, timeoutMs: number): Promise<{ access?: OplogAccess } & AccessLine> {
  try {
    const client = await connectClient(uri, timeoutMs);
    try {
      const access = await inspectOplogAccess(client, readUriDatabase(uri));
      return { access, ...describeOplogAccess(name, access) };
    } finally {
      await client.close().catch(() => undefined);
    }
  } catch (error) {
    return { line: `point-in-time recovery: not checked for "${name}" (${describeDriverError(error, uri)})` };
  }
}
