// Size and count statistics (dbStats, collStats, $collStats). The numbers are the stored BSON
// sizes plus nominal page sizes: plausible to a tool estimating progress, not WiredTiger's.
import { Long } from "bson";
import type { CollectionState } from "../collection-state";
import type { Document } from "../command-context";
import type { ServerState } from "../server-state";

const NOMINAL_INDEX_BYTES = 4096;

/** The `storageStats` a collection reports through collStats and $collStats. */
export function describeStorage(collection: CollectionState): Document {
  const count = collection.documents.size;
  const indexSizes = Object.fromEntries(collection.indexes.map((index) => [index.name, NOMINAL_INDEX_BYTES]));
  return {
    size: collection.dataBytes,
    count,
    avgObjSize: count ? Math.floor(collection.dataBytes / count) : 0,
    storageSize: 4096 + collection.dataBytes,
    nindexes: collection.indexes.length,
    totalIndexSize: NOMINAL_INDEX_BYTES * collection.indexes.length,
    indexSizes,
    capped: collection.options.capped === true,
    ...(collection.options.max !== undefined ? { max: collection.options.max } : {}),
    ...(collection.options.size !== undefined ? { maxSize: collection.options.size } : {}),
  };
}

/** What dbStats answers for one database (all zeros when it does not exist). */
export function describeDatabaseStats(state: ServerState, database: string): Document {
  const collections = [...(state.databases.get(database)?.values() ?? [])];
  const stored = collections.filter((collection) => collection.type !== "view");
  const objects = stored.reduce((sum, collection) => sum + collection.documents.size, 0);
  const dataSize = stored.reduce((sum, collection) => sum + collection.dataBytes, 0);
  const indexes = stored.reduce((sum, collection) => sum + collection.indexes.length, 0);
  const storageSize = dataSize + 4096 * stored.length;
  return {
    db: database,
    collections: stored.length,
    views: collections.length - stored.length,
    objects,
    avgObjSize: objects ? dataSize / objects : 0,
    dataSize,
    storageSize,
    indexes,
    indexSize: NOMINAL_INDEX_BYTES * indexes,
    totalSize: storageSize + NOMINAL_INDEX_BYTES * indexes,
    scaleFactor: 1,
    fsUsedSize: Long.fromNumber(0),
    fsTotalSize: Long.fromNumber(0),
  };
}
