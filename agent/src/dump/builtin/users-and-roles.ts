// Users and roles in a whole-server backup, restored by mongorestore's rules. A dump of every
// database (or of admin) carries admin.system.users, admin.system.roles and admin.system.version
// as mongodump's does. A restore of every database (or of admin) brings users and roles back the
// way mongorestore does, since the server allows no direct writes to them: they go into temporary
// collections of admin, then _mergeAuthzCollections replaces the server's users and roles with
// them (drop: true, db: "" for every database: what `mongorestore --drop` runs). Before that, the
// auth schema version of the backup (its authSchema document; 5 from MongoDB 8.1, which stopped
// writing one) must suit the server's. admin.system.version is never written back.
//
// Both engines use this: the documents are collected as the archive is read, put in temporary
// collections (staging names, so leftovers are cleaned like any staging) before anything is
// replaced, and merged last, once every collection was swapped in (a merge that dropped the
// agent's own user earlier would stop the restore half-way).
import type { MongoClient } from "mongodb";
import { BSON } from "bson";
import { DumpError } from "../errors.ts";
import { insertRawDocuments } from "./raw-insert.ts";
import { dropIfExists, STAGING_MARKER, type StagingArea } from "./staging.ts";
import { readWriteLimits } from "./write-limits.ts";

export const USERS_NAMESPACE = "admin.system.users";
export const ROLES_NAMESPACE = "admin.system.roles";
export const VERSION_NAMESPACE = "admin.system.version";
const AUTH_COLLECTIONS = new Set(["system.users", "system.roles", "system.version"]);

/** Tells whether `db.name` is one of the three collections a whole-server dump adds for users and roles. */
export function isAuthCollection(db: string, name: string): boolean {
  return db === "admin" && AUTH_COLLECTIONS.has(name);
}

/** The users, roles and version documents of an archive, gathered while it is read. */
export class UsersAndRoles {
  readonly users: Uint8Array[] = [];
  readonly roles: Uint8Array[] = [];
  private readonly versions: Uint8Array[] = [];

  /** Keeps the document if it belongs to one of the three; returns whether it did. */
  collect(namespace: string, document: Uint8Array): boolean {
    const into =
      namespace === USERS_NAMESPACE ? this.users : namespace === ROLES_NAMESPACE ? this.roles : namespace === VERSION_NAMESPACE ? this.versions : undefined;
    into?.push(document);
    return into !== undefined;
  }

  get isEmpty(): boolean {
    return this.users.length === 0 && this.roles.length === 0;
  }

  /** The auth schema version the users were written in (mongorestore's GetDumpAuthVersion). */
  readDumpAuthVersion(dumpServerVersion: string): number {
    const [major = 0, minor = 0] = dumpServerVersion.split(".").map((part) => Number.parseInt(part, 10) || 0);
    if (major > 8 || (major === 8 && minor >= 1)) return 5;
    for (const bytes of this.versions) {
      const document = BSON.deserialize(bytes);
      if (document._id === "authSchema" && typeof document.currentVersion === "number") return document.currentVersion;
    }
    // No authSchema document: users from before MongoDB 2.6, as mongorestore assumes.
    return 1;
  }
}

/** The documents put aside for the merge; `merge` runs it, `discard` drops what is left. */
export interface StagedUsersAndRoles {
  users: number;
  roles: number;
  merge(): Promise<void>;
  discard(): Promise<void>;
}

/**
 * Checks the server can take them and writes the collected documents into temporary collections
 * of admin. Throws DumpError "unsupported" when it cannot (no _mergeAuthzCollections, as on
 * FerretDB; a user not allowed to run it; an incompatible auth schema), "database-error" when a
 * write fails.
 */
export async function stageUsersAndRoles(
  client: MongoClient,
  collected: UsersAndRoles,
  staging: StagingArea,
  dumpServerVersion: string,
): Promise<StagedUsersAndRoles> {
  await checkMergeSupported(client);
  checkAuthVersions(collected.readDumpAuthVersion(dumpServerVersion), await readServerAuthVersion(client));
  const admin = client.db("admin");
  const parts = [
    { documents: collected.users, name: `tempusers${STAGING_MARKER}${staging.id}`, parameter: "tempUsersCollection" },
    { documents: collected.roles, name: `temproles${STAGING_MARKER}${staging.id}`, parameter: "tempRolesCollection" },
  ].filter((part) => part.documents.length > 0);
  const discard = async () => {
    for (const part of parts) await dropIfExists(admin, part.name);
  };
  try {
    const limits = await readWriteLimits(client);
    for (const part of parts) {
      await dropIfExists(admin, part.name);
      await admin.createCollection(part.name);
      const outcome = await insertRawDocuments(admin, part.name, part.documents, undefined, { limits });
      if (outcome.failed > 0) throw new Error(`the server refused ${outcome.failed} of them: ${outcome.firstError}`);
    }
  } catch (cause) {
    await discard().catch(() => undefined);
    throw new DumpError("database-error", `setting the backup's users and roles aside failed: ${(cause as Error).message}`, { cause });
  }
  return {
    users: collected.users.length,
    roles: collected.roles.length,
    async merge() {
      const command: Record<string, unknown> = { _mergeAuthzCollections: 1 };
      for (const part of parts) command[part.parameter] = `admin.${part.name}`;
      await admin.command({ ...command, drop: true, db: "" });
      await discard().catch(() => undefined);
    },
    discard,
  };
}

const NO_USERS_HINT = "restore with --no-users-and-roles (or usersAndRoles: false for this database in the config file) to restore the data alone";

/**
 * Whether the server has _mergeAuthzCollections, asked without temporary collections: mongod
 * refuses that as a bad value and touches nothing; a server without the command (FerretDB) says
 * it does not know it.
 */
async function checkMergeSupported(client: MongoClient): Promise<void> {
  try {
    await client.db("admin").command({ _mergeAuthzCollections: 1, drop: false, db: "" });
  } catch (error) {
    const code = (error as { code?: number }).code;
    if (code === 59) {
      // CommandNotFound
      throw new DumpError("unsupported", "this server cannot restore users and roles (it has no _mergeAuthzCollections)", { hint: NO_USERS_HINT });
    }
    if (code === 13) {
      // Unauthorized: found now rather than after every collection was replaced.
      throw new DumpError("unsupported", "the MongoDB user of this connection may not restore users and roles", {
        hint: `give it the restore role, or ${NO_USERS_HINT}`,
      });
    }
  }
}

async function readServerAuthVersion(client: MongoClient): Promise<number> {
  try {
    const reply = await client.db("admin").command({ getParameter: 1, authSchemaVersion: 1 });
    if (typeof reply.authSchemaVersion === "number") return reply.authSchemaVersion;
  } catch {
    // Answered below.
  }
  throw new DumpError("unsupported", "this server does not say which auth schema it uses, so the backup's users and roles cannot be restored to it", {
    hint: NO_USERS_HINT,
  });
}

// mongorestore's ValidateAuthVersions: which backups' users a server can take.
const COMPATIBLE = new Set(["5:5", "3:5", "3:3", "1:1", "1:3"]);

function checkAuthVersions(dump: number, server: number): void {
  if (COMPATIBLE.has(`${dump}:${server}`)) return;
  throw new DumpError("unsupported", `the backup's users and roles use auth schema version ${dump}, which a server using version ${server} cannot take`, {
    hint: "restore with --no-users-and-roles to restore the data alone, then recreate the users",
  });
}
