// Recreating a collection from its archived metadata before its documents arrive: drop, create
// with the same options (views and time-series included), then the secondary indexes. Indexes
// come before the data so a document that breaks a unique index counts as one failed document,
// as a duplicate _id does, instead of failing the whole index build at the end.
import type { Db, Document } from "mongodb";
import type { CollectionMetadata } from "../mongodump-archive/index.ts";
import { dropIfExists } from "./staging.ts";

// "ns" is what pre-4.4 servers wrote into index specs; newer servers refuse it in createIndexes.
function cleanIndexSpec(spec: Document): Document {
  const { ns: _ns, ...rest } = spec;
  return rest;
}

// An _id index accepts only these fields; some servers and test doubles list more (unique: true),
// which `create` would refuse.
const ID_INDEX_FIELDS = new Set(["v", "key", "name", "collation"]);

function cleanIdIndexSpec(spec: Document): Document {
  return Object.fromEntries(Object.entries(spec).filter(([field]) => ID_INDEX_FIELDS.has(field)));
}

/** Drops `name` if it exists and creates it as the metadata describes; throws the driver's error. */
export async function prepareCollection(db: Db, name: string, metadata: CollectionMetadata): Promise<void> {
  await dropIfExists(db, name);
  const options = metadata.options;
  const isView = metadata.type === "view" || options.viewOn !== undefined;
  const command: Document = { create: name, ...options };
  if (isView) {
    await db.command(command);
    return;
  }
  const idIndex = metadata.indexes.find((index) => index.name === "_id_");
  // Clustered and time-series collections have no separate _id index to describe.
  const takesIdIndex = options.clusteredIndex === undefined && options.timeseries === undefined && metadata.type !== "timeseries";
  if (idIndex && takesIdIndex) command.idIndex = cleanIdIndexSpec(idIndex);
  await db.command(command);
  const secondary = metadata.indexes.filter((index) => index.name !== "_id_").map(cleanIndexSpec);
  if (secondary.length > 0) await db.command({ createIndexes: name, indexes: secondary });
}
