// Whether the database user can read the oplog (point-in-time shipping tails local.oplog.rs) and
// apply oplog entries (restores of consistent backups replay them through applyOps), found from
// what the server says the user may do (connectionStatus with showPrivileges), never by trying.
// What MongoDB requires, from mongod's sources (oplog_application_checks.cpp,
// role_graph_builtins.cpp):
// - reading the oplog: `find` on local.oplog.rs; the built-in `backup` role grants it (find on
//   the local database). anyNormalResource (`readAnyDatabase`) does not cover local.
// - applyOps: the `applyOps` action on the cluster (in `restore`, and in
//   `dbAdminAnyDatabase`, `root`), then, entry by entry, the privileges of the write it does:
//   insert, update (an upsert also insert) and remove on its namespace, plus the DDL's own.
//   `restore` grants insert and DDL but neither update nor remove, so `readWrite` on the
//   database (or readWriteAnyDatabase for a whole-server config) is needed beside it.
import type { MongoClient } from "mongodb";

/** A role granted in a database, as MongoDB names it. */
export type { RoleGrant } from "../../../../protocol/oplog-roles.ts";
import type { RoleGrant } from "../../../../protocol/oplog-roles.ts";

type Privilege = { resource: { db?: string; collection?: string; cluster?: boolean; anyResource?: boolean }; actions: string[] };

/** What the user can do towards point-in-time recovery. */
export type OplogAccess =
  | { kind: "standalone" }
  | {
      kind: "replica-set";
      /** The authenticated user (undefined: the server has access control off). */
      user?: { user: string; db: string };
      canReadOplog: boolean;
      canApplyOplog: boolean;
      /** The roles that would give what is missing, in the order to grant them. */
      missingRoles: RoleGrant[];
    };

/** The writes an oplog replay makes in the restored database (DDL entries and index builds included). */
const APPLY_ACTIONS = ["insert", "update", "remove", "createCollection", "createIndex", "dropCollection"];

/** What the authenticated user may do with the oplog, whatever the server's topology. */
export type UserAccess = Omit<Extract<OplogAccess, { kind: "replica-set" }>, "kind">;

/** Asks the server; `database` is the config's database (undefined: the whole server). Throws the driver's error. */
export async function inspectOplogAccess(client: MongoClient, database: string | undefined): Promise<OplogAccess> {
  const hello = await client.db("admin").command({ hello: 1 });
  if (typeof hello.setName !== "string") return { kind: "standalone" };
  return { kind: "replica-set", ...(await inspectUserAccess(client, database)) };
}

/**
 * Reads the authenticated user's privileges (connectionStatus with showPrivileges): whether it
 * may read local.oplog.rs and apply entries into `database` (undefined: any database), and the
 * roles that would give what is missing. Throws the driver's error, or an Error when the server
 * does not list privileges.
 */
export async function inspectUserAccess(client: MongoClient, database: string | undefined): Promise<UserAccess> {
  const status = await client.db("admin").command({ connectionStatus: 1, showPrivileges: true });
  const users = (status.authInfo?.authenticatedUsers ?? []) as { user: string; db: string }[];
  const user = users[0];
  // No one authenticated and the commands still ran: access control is off, everything is allowed.
  if (!user) return { canReadOplog: true, canApplyOplog: true, missingRoles: [] };
  const privileges = status.authInfo?.authenticatedUserPrivileges as Privilege[] | undefined;
  // FerretDB and other look-alikes may answer without the list: nothing can be said then.
  if (!Array.isArray(privileges)) throw new Error("the server does not list the user's privileges (connectionStatus showPrivileges)");
  const allows = (action: string, matches: (resource: Privilege["resource"]) => boolean) =>
    privileges.some(
      (privilege) =>
        (privilege.actions.includes(action) || privilege.actions.includes("anyAction")) &&
        (privilege.resource.anyResource === true || matches(privilege.resource)),
    );
  const canReadOplog = allows("find", (resource) => matchesNamespace(resource, "local", "oplog.rs"));
  const canRunApplyOps = allows("applyOps", (resource) => resource.cluster === true);
  const canWrite = APPLY_ACTIONS.every((action) => allows(action, (resource) => matchesDatabase(resource, database)));
  const missingRoles: RoleGrant[] = [];
  if (!canReadOplog) missingRoles.push({ role: "backup", db: "admin" });
  if (!canRunApplyOps) missingRoles.push({ role: "restore", db: "admin" });
  if (!canWrite) missingRoles.push(database === undefined ? { role: "readWriteAnyDatabase", db: "admin" } : { role: "readWrite", db: database });
  return { user, canReadOplog, canApplyOplog: canRunApplyOps && canWrite, missingRoles };
}

// mongod's resource patterns: "" is any; anyNormalResource ({db:"", collection:""}) leaves out
// the local and config databases, and a database pattern its system collections (none here).
function matchesNamespace(resource: Privilege["resource"], db: string, collection: string): boolean {
  if (resource.db === undefined || resource.collection === undefined) return false;
  if (resource.db === "" && resource.collection === "") return db !== "local" && db !== "config";
  return (resource.db === "" || resource.db === db) && (resource.collection === "" || resource.collection === collection);
}

// Every collection of the database (all databases when undefined): a database or any-normal pattern.
function matchesDatabase(resource: Privilege["resource"], database: string | undefined): boolean {
  if (resource.collection !== "") return false;
  return resource.db === "" || (database !== undefined && resource.db === database);
}
