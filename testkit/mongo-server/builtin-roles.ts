// The privileges of MongoDB's built-in roles, as `connectionStatus` with `showPrivileges` lists
// them, for the roles a backup agent is given (read, readWrite, backup, restore, root and a few
// more), taken from mongod's role_graph_builtins.cpp. Only what connectionStatus reports is
// modelled: the server does not enforce them on other commands. anyNormalResource
// (`{ db: "", collection: "" }`) excludes the local and config databases, which is why backup
// and restore name them separately.
import type { Document, RoleName } from "./command-context";

type Privilege = { resource: Document; actions: string[] };

const READ_ACTIONS = ["changeStream", "collStats", "dbHash", "dbStats", "find", "killCursors", "listCollections", "listIndexes", "listSearchIndexes"];
const WRITE_ACTIONS = [
  "convertToCapped",
  "createCollection",
  "createIndex",
  "dropCollection",
  "dropIndex",
  "insert",
  "remove",
  "renameCollectionSameDB",
  "update",
];
const RESTORE_ACTIONS = ["bypassDocumentValidation", "collMod", "convertToCapped", "createCollection", "createIndex", "dropCollection", "insert"];
const ANY_NORMAL = { db: "", collection: "" };
const CLUSTER = { cluster: true };

function privilegesOf({ role, db }: RoleName): Privilege[] {
  const inDb = { db, collection: "" };
  const adminOnly = db === "admin";
  switch (role) {
    case "read":
      return [{ resource: inDb, actions: READ_ACTIONS }];
    case "readWrite":
      return [{ resource: inDb, actions: [...READ_ACTIONS, ...WRITE_ACTIONS].sort() }];
    case "readAnyDatabase":
      return adminOnly
        ? [
            { resource: ANY_NORMAL, actions: READ_ACTIONS },
            { resource: CLUSTER, actions: ["listDatabases"] },
          ]
        : [];
    case "readWriteAnyDatabase":
      return adminOnly
        ? [
            { resource: ANY_NORMAL, actions: [...READ_ACTIONS, ...WRITE_ACTIONS].sort() },
            { resource: CLUSTER, actions: ["listDatabases"] },
          ]
        : [];
    case "clusterMonitor":
      return adminOnly
        ? [
            { resource: { db: "local", collection: "" }, actions: READ_ACTIONS },
            { resource: CLUSTER, actions: ["serverStatus", "replSetGetStatus"] },
          ]
        : [];
    case "backup":
      return adminOnly
        ? [
            { resource: CLUSTER, actions: ["appendOplogNote", "getParameter", "listDatabases", "serverStatus", "setUserWriteBlockMode", "useUUID"] },
            { resource: ANY_NORMAL, actions: ["collStats", "find", "listCollections", "listIndexes"] },
            { resource: { db: "local", collection: "" }, actions: ["find"] },
            { resource: { db: "config", collection: "" }, actions: ["find"] },
          ]
        : [];
    case "restore":
      return adminOnly
        ? [
            { resource: ANY_NORMAL, actions: RESTORE_ACTIONS },
            { resource: { db: "local", collection: "" }, actions: RESTORE_ACTIONS },
            { resource: { db: "config", collection: "" }, actions: RESTORE_ACTIONS },
            { resource: { anyResource: true }, actions: ["listCollections"] },
            { resource: CLUSTER, actions: ["applyOps", "bypassWriteBlockingMode", "forceUUID", "getParameter", "setUserWriteBlockMode", "useUUID"] },
          ]
        : [];
    case "root":
      return adminOnly ? [{ resource: { anyResource: true }, actions: ["anyAction"] }] : [];
    default:
      return [];
  }
}

/** The privileges the roles grant, merged by resource as mongod lists them. */
export function describePrivileges(roles: RoleName[]): Privilege[] {
  const byResource = new Map<string, Privilege>();
  for (const privilege of roles.flatMap(privilegesOf)) {
    const key = JSON.stringify(privilege.resource);
    const known = byResource.get(key);
    if (known) known.actions = [...new Set([...known.actions, ...privilege.actions])].sort();
    else byResource.set(key, { resource: privilege.resource, actions: [...privilege.actions] });
  }
  return [...byResource.values()];
}
