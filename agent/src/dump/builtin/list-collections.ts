// What the built-in dumper writes about each collection: metadata shaped like current
// mongodump's (options, indexes with their BSON types kept, uuid, collectionName, type), which
// namespace carries its documents, and how many documents to expect.
import type { Binary, Db, Document } from "mongodb";
import { DumpError } from "../errors.ts";
import type { CollectionSpec } from "../mongodump-archive/index.ts";
import { isAuthCollection } from "./users-and-roles.ts";

export interface DumpPlanEntry {
  spec: CollectionSpec;
  /** The namespace ("db.collection") its documents travel under in the archive. */
  dataNamespace: string;
  /** The collection to read documents from; undefined for views (metadata only). */
  sourceCollection: string | undefined;
  estimatedCount: number;
}

// Numbers keep their width (Int32 vs Double vs Long) so options and indexes restore exactly.
export const TYPED_VALUES = { promoteValues: false, promoteBuffers: false, bsonRegExp: true } as const;

/**
 * Tells whether mongodump would skip a collection: system collections but system.js, and the
 * users, roles and version of admin unless `withUsersAndRoles`; never throws.
 */
export function isSkippedCollection(db: string, name: string, withUsersAndRoles = false): boolean {
  if (isAuthCollection(db, name)) return !withUsersAndRoles;
  if (name.startsWith("system.")) return name !== "system.js";
  // Names with "$" are leftovers of old index namespaces, which mongodump skips too.
  return name.includes("$");
}

/**
 * Lists a database's collections, views and time-series collections with their metadata and
 * estimated counts, sorted by name with views last (admin's users, roles and version included
 * when `withUsersAndRoles`). Throws DumpError "unsupported" for
 * time-series collections on servers from 8.3 (their buckets need mongodump there) and the
 * driver's error when a listing command fails.
 */
export async function listDumpPlan(db: Db, serverVersion: string, withUsersAndRoles = false): Promise<DumpPlanEntry[]> {
  const infos = (await db.listCollections({}, { ...TYPED_VALUES, nameOnly: false }).toArray()) as Document[];
  const entries: DumpPlanEntry[] = [];
  for (const info of infos.sort((a, b) => compareNames(String(a.name), String(b.name)))) {
    const name = String(info.name);
    if (isSkippedCollection(db.databaseName, name, withUsersAndRoles)) continue;
    const type = typeof info.type === "string" ? info.type : "collection";
    const options: Document = (info.options as Document | undefined) ?? {};
    const uuid = formatUuid(info.info?.uuid as Binary | undefined);
    const spec: CollectionSpec = { db: db.databaseName, collection: name, type, options, indexes: [], ...(uuid ? { uuid } : {}) };
    if (type === "view") {
      entries.push({ spec, dataNamespace: `${db.databaseName}.${name}`, sourceCollection: undefined, estimatedCount: 0 });
      continue;
    }
    let sourceCollection = name;
    if (type === "timeseries") {
      if (!bucketsAreSeparate(serverVersion)) {
        throw new DumpError(
          "unsupported",
          `${db.databaseName}.${name} is a time-series collection, which the built-in dumper reads only from servers before 8.3`,
          { hint: "install the mongodb database tools (mongodump, mongorestore) on this machine" },
        );
      }
      sourceCollection = `system.buckets.${name}`;
    }
    spec.indexes = (await db.collection(name).listIndexes(TYPED_VALUES).toArray()) as Document[];
    const estimatedCount = await db.collection(sourceCollection).estimatedDocumentCount();
    entries.push({ spec, dataNamespace: `${db.databaseName}.${sourceCollection}`, sourceCollection, estimatedCount });
  }
  // Views after collections, as mongorestore creates them, so their sources exist first.
  return [...entries.filter((e) => e.spec.type !== "view"), ...entries.filter((e) => e.spec.type === "view")];
}

function bucketsAreSeparate(serverVersion: string): boolean {
  const [major = 0, minor = 0] = serverVersion.split(".").map((part) => Number.parseInt(part, 10) || 0);
  return major < 8 || (major === 8 && minor < 3);
}

function formatUuid(uuid: Binary | undefined): string | undefined {
  if (!uuid || typeof uuid.toString !== "function") return undefined;
  const hex = uuid.toString("hex");
  return /^[0-9a-f]{32}$/.test(hex) ? hex : undefined;
}

function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
