// Recreating a collection from its archived metadata before its documents arrive: drop, create
// with the same options (views and time-series included), then the secondary indexes. Indexes
// come before the data so a document that breaks a unique index counts as one failed document,
// as a duplicate _id does, instead of failing the whole index build at the end. Except the unique
// ones of a backup with an oplog: its collections were read while the application wrote, so they
// can hold a key twice that only the oplog's replay resolves (a key moved from one document to
// another during the read); those are built after the replay, as `mongorestore --oplogReplay`
// builds every index after its replay.
//
// Index specs are recreated by mongorestore's rules, so a backup restores the same whichever
// engine restores it:
// - "v" is left out: the server builds the index at its own default version (mongorestore does
//   this unless --keepIndexVersion), and "ns", which pre-4.4 servers wrote, is refused by newer ones;
// - in a collection with a default collation, a secondary index listed without a collation uses
//   the simple one, so it gets an explicit {locale: "simple"}: without it the recreated index
//   would inherit the collection's collation (a unique index would start treating "X" and "x" as
//   duplicates). The _id index is exempt: it always has the collection's collation.
import type { Db, Document } from "mongodb";
import type { CollectionMetadata } from "../mongodump-archive/index.ts";
import { dropIfExists } from "./staging.ts";

const SIMPLE_COLLATION = { locale: "simple" };

function hasDefaultCollation(options: Document): boolean {
  const collation = options.collation as Document | undefined;
  return collation !== undefined && collation !== null && collation.locale !== "simple";
}

/** A secondary index spec as the restore sends it to createIndexes (see the rules above). */
export function prepareIndexSpec(spec: Document, collectionOptions: Document): Document {
  const { ns: _ns, v: _v, ...rest } = spec;
  if (rest.collation === undefined && hasDefaultCollation(collectionOptions)) rest.collation = SIMPLE_COLLATION;
  return rest;
}

// An _id index accepts only these fields; some servers and test doubles list more (unique: true),
// which `create` would refuse. "v" is left to the server, as for the other indexes.
const ID_INDEX_FIELDS = new Set(["key", "name", "collation"]);

function cleanIdIndexSpec(spec: Document): Document {
  return Object.fromEntries(Object.entries(spec).filter(([field]) => ID_INDEX_FIELDS.has(field)));
}

/**
 * Drops `name` if it exists and creates it as the metadata describes; throws the driver's error.
 * With `deferUnique`, its unique secondary indexes are not built but answered, to be built once
 * the backup's oplog was replayed (see buildDeferredIndexes).
 */
export async function prepareCollection(
  db: Db,
  name: string,
  metadata: Pick<CollectionMetadata, "type" | "options" | "indexes">,
  options_: { deferUnique?: boolean } = {},
): Promise<Document[]> {
  await dropIfExists(db, name);
  const options = metadata.options;
  const isView = metadata.type === "view" || options.viewOn !== undefined;
  const command: Document = { create: name, ...options };
  if (isView) {
    await db.command(command);
    return [];
  }
  const idIndex = metadata.indexes.find((index) => index.name === "_id_");
  // Clustered and time-series collections have no separate _id index to describe.
  const takesIdIndex = options.clusteredIndex === undefined && options.timeseries === undefined && metadata.type !== "timeseries";
  if (idIndex && takesIdIndex) command.idIndex = cleanIdIndexSpec(idIndex);
  await db.command(command);
  const { now, deferred } = secondaryIndexes(metadata, options_.deferUnique === true);
  if (now.length > 0) await db.command({ createIndexes: name, indexes: now });
  return deferred;
}

/** A collection's secondary indexes as the restore builds them: before its data, and (with `deferUnique`) its unique ones after the replay. */
export function secondaryIndexes(metadata: Pick<CollectionMetadata, "options" | "indexes">, deferUnique: boolean): { now: Document[]; deferred: Document[] } {
  const secondary = metadata.indexes.filter((index) => index.name !== "_id_").map((index) => prepareIndexSpec(index, metadata.options));
  const deferred = deferUnique ? secondary.filter(isUnique) : [];
  return { now: secondary.filter((index) => !deferred.includes(index)), deferred };
}

function isUnique(index: Document): boolean {
  // true, or 1 in any numeric BSON type (the archive's specs keep their types).
  return Number(index.unique) === 1;
}
