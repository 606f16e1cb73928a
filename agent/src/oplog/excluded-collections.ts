// Drops the oplog entries of a database's excluded collections (issue 44) from a backup's oplog
// window: replaying an insert into a collection the backup left out would create it holding only
// the documents written during the dump. Writes (`i`/`u`/`d` on `db.coll`) and the commands that
// name the collection (create, drop, indexes, collMod on `db.$cmd`) are dropped. Operations inside
// a transaction's applyOps are kept: cutting part of a transaction out would replay half of it.
import { BSON, type Document } from "bson";
import { TYPED } from "./database-filter.ts";

// An index build on a replica set is logged as startIndexBuild then commitIndexBuild (or abortIndexBuild).
const COLLECTION_COMMANDS = [
  "create",
  "drop",
  "createIndexes",
  "startIndexBuild",
  "commitIndexBuild",
  "abortIndexBuild",
  "dropIndexes",
  "deleteIndexes",
  "collMod",
] as const;

/** A predicate keeping the entries that do not belong to `database`'s excluded `collections`; undefined when none are excluded. */
export function createExcludedCollectionsFilter(database: string, collections: readonly string[]): ((entry: Uint8Array) => boolean) | undefined {
  if (collections.length === 0) return undefined;
  const excluded = new Set(collections);
  const prefix = `${database}.`;
  return (bytes) => !isOfExcluded(BSON.deserialize(bytes, TYPED), prefix, database, excluded);
}

function isOfExcluded(entry: Document, prefix: string, database: string, excluded: Set<string>): boolean {
  const ns = typeof entry.ns === "string" ? entry.ns : undefined;
  if (ns === undefined || !ns.startsWith(prefix)) return false;
  if (entry.op === "i" || entry.op === "u" || entry.op === "d") return excluded.has(ns.slice(prefix.length));
  if (entry.op !== "c" || ns !== `${database}.$cmd`) return false;
  const object = entry.o as Document | undefined;
  if (object === undefined) return false;
  return COLLECTION_COMMANDS.some((command) => typeof object[command] === "string" && excluded.has(object[command] as string));
}
