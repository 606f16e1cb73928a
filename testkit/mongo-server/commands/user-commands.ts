// Users and roles as mongod keeps them, which is what a whole-server dump must capture and a
// restore bring back: createUser and createRole write documents of mongod's shape into
// admin.system.users and admin.system.roles (and, with the first one, the authSchema document
// into admin.system.version); dropUser, dropRole and usersInfo; and _mergeAuthzCollections, the
// command mongorestore restores users and roles with. Authentication still uses the server's
// `users` option (auth-commands.ts), not these documents.
import { createHash, createHmac, pbkdf2Sync, randomBytes } from "node:crypto";
import { Int32, UUID } from "bson";
import { readBoolean } from "../command-args";
import { parseStoredDocument, type CollectionState } from "../collection-state";
import type { CommandContext, CommandHandler, Document } from "../command-context";
import { CommandError } from "../errors";
import { composeDocument } from "../raw-bson";
import type { ServerState } from "../server-state";

const SCRAM_ITERATIONS = 15_000;
/** What getParameter reports as authSchemaVersion and the authSchema document records. */
export const AUTH_SCHEMA_VERSION = 5;

function hmac(key: Buffer, text: string): Buffer {
  return createHmac("sha256", key).update(text).digest();
}

// The SCRAM-SHA-256 credentials mongod stores: salt, stored key and server key, never the password.
function createCredentials(password: string): Document {
  const salt = randomBytes(28);
  const salted = pbkdf2Sync(password, salt, SCRAM_ITERATIONS, 32, "sha256");
  const storedKey = createHash("sha256").update(hmac(salted, "Client Key")).digest();
  return {
    "SCRAM-SHA-256": {
      iterationCount: new Int32(SCRAM_ITERATIONS),
      salt: salt.toString("base64"),
      storedKey: storedKey.toString("base64"),
      serverKey: hmac(salted, "Server Key").toString("base64"),
    },
  };
}

function readRoles(value: unknown, db: string): Document[] {
  if (!Array.isArray(value)) throw new CommandError(14, '"roles" field must be an array');
  return value.map((role) => (typeof role === "string" ? { role, db } : (role as Document)));
}

function authCollection(state: ServerState, name: "system.users" | "system.roles" | "system.version"): CollectionState {
  return state.ensureCollection("admin", name).collection;
}

/** The authSchema document mongod writes with its first user or role. */
function recordAuthSchema(state: ServerState): void {
  const version = authCollection(state, "system.version");
  if (![...version.documents.values()].some((stored) => parseStoredDocument(stored.raw)._id === "authSchema")) {
    version.insertDocument(composeDocument({ _id: "authSchema", currentVersion: new Int32(AUTH_SCHEMA_VERSION) }));
  }
}

function findById(collection: CollectionState, id: string) {
  return [...collection.documents.values()].find((stored) => parseStoredDocument(stored.raw)._id === id);
}

function createUser(context: CommandContext): Document {
  const user = context.body.createUser;
  if (typeof user !== "string" || user === "") throw new CommandError(2, "User name must be a non-empty string");
  if (typeof context.body.pwd !== "string") throw new CommandError(2, "Must provide a 'pwd' field for all user documents");
  const users = authCollection(context.state, "system.users");
  const id = `${context.db}.${user}`;
  if (findById(users, id)) throw new CommandError(51003, `User "${user}@${context.db}" already exists`);
  users.insertDocument(
    composeDocument({
      _id: id,
      userId: new UUID(),
      user,
      db: context.db,
      credentials: createCredentials(context.body.pwd),
      roles: readRoles(context.body.roles ?? [], context.db),
    }),
  );
  recordAuthSchema(context.state);
  return {};
}

function createRole(context: CommandContext): Document {
  const role = context.body.createRole;
  if (typeof role !== "string" || role === "") throw new CommandError(2, "Role name must be a non-empty string");
  const roles = authCollection(context.state, "system.roles");
  const id = `${context.db}.${role}`;
  if (findById(roles, id)) throw new CommandError(51002, `Role "${role}@${context.db}" already exists`);
  const privileges = Array.isArray(context.body.privileges) ? context.body.privileges : [];
  roles.insertDocument(composeDocument({ _id: id, role, db: context.db, privileges, roles: readRoles(context.body.roles ?? [], context.db) }));
  recordAuthSchema(context.state);
  return {};
}

function dropEntry(context: CommandContext, field: "dropUser" | "dropRole", collection: "system.users" | "system.roles", code: number): Document {
  const name = context.body[field];
  const stored = findById(authCollection(context.state, collection), `${context.db}.${String(name)}`);
  if (!stored) throw new CommandError(code, `${field === "dropUser" ? "User" : "Role"} '${String(name)}@${context.db}' not found`);
  authCollection(context.state, collection).deleteDocument(stored);
  return {};
}

function usersInfo(context: CommandContext): Document {
  const wanted = context.body.usersInfo;
  const all = [...authCollection(context.state, "system.users").documents.values()].map((stored) => parseStoredDocument(stored.raw));
  const matches = all.filter((user) => (typeof wanted === "string" ? user.user === wanted && user.db === context.db : user.db === context.db));
  return { users: matches.map(({ credentials: _secret, ...user }) => ({ ...user, mechanisms: ["SCRAM-SHA-256"] })) };
}

/**
 * Moves users or roles from temporary collections into admin.system.users/roles. With `drop`,
 * those of the database named by `db` (every database when empty) that the temporary collection
 * lacks are removed first; the temporary ones replace same-named ones either way.
 */
function mergeAuthzCollections(context: CommandContext): Document {
  if (context.db !== "admin") throw new CommandError(13, "_mergeAuthzCollections may only be run against the admin database.");
  const scope = typeof context.body.db === "string" ? context.body.db : "";
  const drop = readBoolean(context.body.drop);
  if (context.body.tempUsersCollection === undefined && context.body.tempRolesCollection === undefined) {
    throw new CommandError(2, 'Must provide at least one of "tempUsersCollection" and "tempRolescollection"');
  }
  for (const [field, target] of [
    ["tempUsersCollection", "system.users"],
    ["tempRolesCollection", "system.roles"],
  ] as const) {
    const source = context.body[field];
    if (source === undefined) continue;
    if (typeof source !== "string" || !source.startsWith("admin.")) throw new CommandError(2, `${field} must name a collection of the admin database`);
    const temporary = context.state.findCollection("admin", source.slice("admin.".length));
    const incoming = [...(temporary?.documents.values() ?? [])].map((stored) => ({ raw: stored.raw, document: parseStoredDocument(stored.raw) }));
    const into = authCollection(context.state, target);
    const inScope = (document: Document) => scope === "" || document.db === scope;
    const incomingIds = new Set(incoming.filter(({ document }) => inScope(document)).map(({ document }) => String(document._id)));
    for (const stored of [...into.documents.values()]) {
      const document = parseStoredDocument(stored.raw);
      if (!inScope(document)) continue;
      if (incomingIds.has(String(document._id)) || drop) into.deleteDocument(stored);
    }
    for (const { raw, document } of incoming) if (inScope(document)) into.insertDocument(raw);
  }
  recordAuthSchema(context.state);
  return {};
}

export const userCommands: Record<string, CommandHandler> = {
  createUser,
  createRole,
  dropUser: (context) => dropEntry(context, "dropUser", "system.users", 11),
  dropRole: (context) => dropEntry(context, "dropRole", "system.roles", 31),
  usersInfo,
  _mergeAuthzCollections: mergeAuthzCollections,
};
