// Which namespaces of an archive a restore writes, and under which database: shared by both
// engines so the built-in restorer and mongorestore restore exactly the same things.
import { ROLES_NAMESPACE, USERS_NAMESPACE } from "./builtin/users-and-roles.ts";
import { DumpError } from "./errors.ts";
import { type CollectionMetadata, OPLOG_NAMESPACE } from "./mongodump-archive/index.ts";

export interface RestorePlan {
  /**
   * Databases the restore takes from the backup, sorted: those with restorable collections in the
   * archive and those its oplog writes to (withOplogDatabases); when neither names one (a backup of
   * a database with no collection yet), the backup's own database as the request names it.
   */
  sourceDatabases: string[];
  /** When set, only this source database is restored (the others are skipped). */
  onlyDatabase: string | undefined;
  /** When set, the source database `from` is restored as `to`. */
  rename: { from: string; to: string } | undefined;
  /** The databases the restore writes into, sorted (admin too when it restores users and roles). */
  targetDatabases: string[];
  /**
   * Whether the backup's users and roles are restored (builtin/users-and-roles.ts): by
   * mongorestore's rule, when every database is restored or admin is, unless asked not to.
   */
  usersAndRoles: boolean;
  /**
   * The collections chosen, when they are checked against the moment rather than the archive (a
   * point-in-time restore: a collection created after the base backup is restored too); else undefined.
   */
  chosenAtMoment: string[] | undefined;
  /** The target namespace of a prelude entry, or undefined when it is skipped. */
  targetOf(entry: CollectionMetadata): string | undefined;
  /**
   * The same restore once the archive's oplog was read: the databases its entries write to are
   * restored too, as `mongorestore --oplogReplay` replays them, even with no collection of theirs in
   * the archive (an oplog-only dump, a database whose first collection was created during the dump).
   */
  withOplogDatabases(databases: string[]): RestorePlan;
}

export interface PlanOptions {
  usersAndRoles?: boolean;
  /**
   * The database the backup was taken of, when the caller knows it (the agent's configured
   * database): names the source when the archive holds no collection and its oplog no entry yet.
   */
  sourceDatabase?: string | undefined;
  /**
   * A point-in-time restore: the chosen collections are those that exist at the moment, which
   * only the replay tells, so they are not checked against the archive here (the restorer checks
   * them once the entries are applied, before anything is swapped in).
   */
  collectionsAtMoment?: boolean;
  /**
   * The chosen collections are those the backup's oplog window writes to (a verification's replay
   * into scratch): one the window creates is not in the archive, and one it drops is gone after it.
   */
  collectionsOfWindow?: boolean;
}

// mongorestore does not restore these either: the oplog needs --oplogReplay, `local` and
// `config` belong to the server, and system collections are the server's own state (users and
// roles come back separately, see usersAndRoles).
const SKIPPED_DATABASES = new Set(["local", "config"]);

/** Tells whether a prelude entry is never restored (oplog, server databases, system collections); never throws. */
export function isSkippedEntry(entry: CollectionMetadata): boolean {
  if (entry.namespace === OPLOG_NAMESPACE || entry.db === "") return true;
  if (SKIPPED_DATABASES.has(entry.db)) return true;
  return entry.collection.startsWith("system.") && entry.collection !== "system.js";
}

/**
 * Decides what a restore into `targetDatabase` (undefined: every database under its own name)
 * writes. Throws DumpError "target-mismatch" when the archive holds several databases and none
 * of them is the target, since which one to rename would be a guess.
 */
export function planRestore(
  collections: CollectionMetadata[],
  targetDatabase: string | undefined,
  onlyCollections?: string[],
  options: PlanOptions = {},
): RestorePlan {
  return planWith(collections, targetDatabase, onlyCollections, options, []);
}

function planWith(
  collections: CollectionMetadata[],
  targetDatabase: string | undefined,
  onlyCollections: string[] | undefined,
  options: PlanOptions,
  oplogDatabases: string[],
): RestorePlan {
  const named = new Set([...collections.filter((entry) => !isSkippedEntry(entry)).map((entry) => entry.db), ...oplogDatabases]);
  const fallback = options.sourceDatabase ?? targetDatabase;
  if (named.size === 0 && fallback !== undefined) named.add(fallback);
  const sourceDatabases = [...named].sort();
  let onlyDatabase: string | undefined;
  let rename: RestorePlan["rename"];
  if (targetDatabase !== undefined && sourceDatabases.length > 0) {
    if (sourceDatabases.includes(targetDatabase)) onlyDatabase = targetDatabase;
    else if (sourceDatabases.length === 1) rename = { from: sourceDatabases[0]!, to: targetDatabase };
    else {
      throw new DumpError(
        "target-mismatch",
        `the backup holds the databases ${sourceDatabases.join(", ")}, and the target database ${targetDatabase} is none of them`,
        { hint: "restore with a connection string naming one of those databases, or none to restore them all" },
      );
    }
  }
  const chosen =
    onlyCollections &&
    (options.collectionsAtMoment || options.collectionsOfWindow
      ? new Set(onlyCollections)
      : checkCollections(collections, onlyCollections, onlyDatabase ?? rename?.from));
  const restored = onlyDatabase !== undefined ? [onlyDatabase] : sourceDatabases;
  const hasUsersOrRoles = collections.some((entry) => entry.namespace === USERS_NAMESPACE || entry.namespace === ROLES_NAMESPACE);
  const wholeServerOrAdmin = targetDatabase === undefined || (targetDatabase === "admin" && rename === undefined);
  const usersAndRoles = hasUsersOrRoles && wholeServerOrAdmin && onlyCollections === undefined && options.usersAndRoles !== false;
  const targets = restored.map((db) => (rename && db === rename.from ? rename.to : db));
  const targetDatabases = [...new Set(usersAndRoles ? [...targets, "admin"] : targets)].sort();
  return {
    sourceDatabases,
    onlyDatabase,
    rename,
    targetDatabases,
    usersAndRoles,
    chosenAtMoment: onlyCollections && options.collectionsAtMoment ? onlyCollections : undefined,
    withOplogDatabases(databases) {
      const added = databases.filter((db) => !SKIPPED_DATABASES.has(db) && db !== "admin" && db !== "");
      return planWith(collections, targetDatabase, onlyCollections, options, [...oplogDatabases, ...added]);
    },
    targetOf(entry) {
      if (isSkippedEntry(entry)) return undefined;
      if (onlyDatabase !== undefined && entry.db !== onlyDatabase) return undefined;
      if (chosen && !chosen.has(entry.collection)) return undefined;
      const db = rename && entry.db === rename.from ? rename.to : entry.db;
      return `${db}.${entry.collection}`;
    },
  };
}

/**
 * Checks that every chosen collection is in the backup (in `database`, or its only database);
 * throws DumpError "unknown-collection" listing what the backup holds.
 */
function checkCollections(collections: CollectionMetadata[], chosen: string[], database: string | undefined): Set<string> {
  const available = collections.filter((entry) => !isSkippedEntry(entry) && (database === undefined || entry.db === database)).map((entry) => entry.collection);
  const unknown = chosen.filter((name) => !available.includes(name));
  if (unknown.length > 0) {
    throw new DumpError(
      "unknown-collection",
      `the backup has no collection ${unknown.map((name) => `"${name}"`).join(", ")}; it holds ${available.length > 0 ? [...available].sort().join(", ") : "no collections"}`,
      { hint: "choose collections from that list" },
    );
  }
  return new Set(chosen);
}
