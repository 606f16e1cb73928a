// What a restore says it did, collection by collection: "replaced" a collection that was there,
// "created" one that was not. The restore engine swaps collections in by name and does not tell
// which existed, so the names are read before it starts.
import { connectClient, listDatabaseNames } from "../dump/builtin/client.ts";
import { withPrimaryReadPreference } from "../dump/connection-string.ts";
import { isDumpError, type RestoreResult } from "../dump/index.ts";
import { pluralize } from "../ui/format.ts";
import { formatOplogTime, type OplogTime } from "../../../protocol/oplog-position.ts";

/**
 * The namespaces ("db.collection") in `database`, or in every database when none is named.
 * Throws DumpError "connect-failed" (the restore could not run either); answers undefined when
 * the server will not list them (the summary then does not tell replaced from created).
 */
export async function listExistingNamespaces(uri: string, database: string | undefined): Promise<Set<string> | undefined> {
  const client = await connectClient(withPrimaryReadPreference(uri));
  try {
    const databases = database === undefined ? await listDatabaseNames(client) : [database];
    const namespaces = new Set<string>();
    for (const name of databases) {
      const collections = await client.db(name).listCollections({}, { nameOnly: true }).toArray();
      for (const collection of collections) namespaces.add(`${name}.${collection.name}`);
    }
    return namespaces;
  } catch (error) {
    if (isDumpError(error)) throw error;
    return undefined;
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** "created a.x; replaced a.y and the server's users and roles (…)": what the restore changed. */
export function describeRestoredCollections(result: RestoreResult, existing: Set<string> | undefined): string {
  const namespaces = Object.keys(result.collections);
  const auth = result.usersAndRoles;
  const usersAndRoles = auth
    ? `the server's users and roles (with the backup's ${pluralize(auth.users, "user")} and ${pluralize(auth.roles, "role")})`
    : undefined;
  if (existing === undefined) {
    const changed = [namespaces.length > 0 ? namespaces.join(", ") : undefined, usersAndRoles].filter(Boolean).join(" and ");
    return `replaced or created ${changed || "nothing"}`;
  }
  const created = namespaces.filter((namespace) => !existing.has(namespace));
  const replaced = namespaces.filter((namespace) => existing.has(namespace));
  const clauses: string[] = [];
  if (created.length > 0) clauses.push(`created ${created.join(", ")}`);
  const replacedParts = [replaced.length > 0 ? replaced.join(", ") : undefined, usersAndRoles].filter(Boolean);
  if (replacedParts.length > 0) clauses.push(`replaced ${replacedParts.join(" and ")}`);
  return clauses.length > 0 ? clauses.join("; ") : "replaced nothing";
}

/**
 * "applied 12 operations of the backup's oplog …": what a consistent backup's oplog changed, or
 * undefined when the backup held none. Dropped targets are named: a restore changes nothing
 * else outside the backup's collections, so a drop must be said.
 */
export function describeOplogReplay(result: RestoreResult): string | undefined {
  const oplog = result.oplog;
  if (!oplog) return undefined;
  const dropped = oplog.dropped.length > 0 ? `; dropped ${oplog.dropped.join(", ")}, which the source dropped while the backup was taken` : "";
  return `applied ${pluralize(oplog.applied, "operation")} of the backup's oplog (the writes made while the backup was taken)${dropped}`;
}

/** What a point-in-time restore replayed: the operations, the slices and the position reached. */
export function describePointInTime(result: RestoreResult, until: OplogTime, chain: { slices: unknown[] } | undefined): string {
  const second =
    until.i === 0xffffffff ? `${new Date(until.t * 1000).toISOString().replace(".000Z", "Z")} (every write of that second)` : formatOplogTime(until);
  return `replayed the oplog up to ${second}: ${pluralize(result.oplog?.applied ?? 0, "operation")} of the backup's oplog and ${pluralize(chain?.slices.length ?? 0, "slice")}`;
}
