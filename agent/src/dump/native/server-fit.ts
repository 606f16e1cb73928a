// What mongorestore cannot restore safely or at all where the built-in engine can, found before a
// native restore changes anything, so that auto mode takes the built-in engine instead and native
// mode refuses with the reason:
// - a prelude describing `<db>.system.buckets.<name>` as a collection of its own: mongorestore
//   folds that namespace into `<db>.<name>` (a time-series collection's buckets) whatever the
//   staging names say, and 100.18.0 panics part-way on it;
// - FerretDB 1.x refuses the index option "ns", which mongorestore (100.x) sends with every
//   secondary index it recreates.
import { connectClient, wrapDatabaseError } from "../builtin/client.ts";
import { isView } from "../builtin/swap.ts";
import { type CollectionMetadata, listDataNamespaces } from "../mongodump-archive/index.ts";
import type { RestorePlan } from "../restore-plan.ts";

const ID_INDEX = "_id_";
const LISTED = 3;

/**
 * Why mongorestore cannot restore `plan` of `collections` into the server at `uri`, or undefined
 * when it can. Connects only when the plan restores secondary indexes. Throws DumpError
 * "connect-failed" or "database-error".
 */
export async function findMongorestoreMisfit(uri: string, collections: CollectionMetadata[], plan: RestorePlan): Promise<string | undefined> {
  const restored = collections.filter((metadata) => plan.targetOf(metadata) !== undefined);
  const bucketsApart = findBucketsDescribedApart(collections, restored);
  if (bucketsApart.length > 0) {
    return `the backup describes ${listNames(bucketsApart)} as a collection of its own, which mongorestore would restore over the collection of that name`;
  }
  const indexed = restored.filter((metadata) => !isView(metadata) && metadata.indexes.some((index) => index.name !== ID_INDEX));
  if (indexed.length === 0) return undefined;
  const ferretDbVersion = await readFerretDbVersion(uri);
  if (ferretDbVersion === undefined || !/^v?1\./.test(ferretDbVersion)) return undefined;
  const targets = indexed.map((metadata) => plan.targetOf(metadata)!);
  return `mongorestore cannot recreate the secondary indexes of ${listNames(targets)} on FerretDB ${ferretDbVersion} (it sends the index option "ns", which FerretDB refuses)`;
}

/** Prelude entries named as the buckets of a restored collection (never restored themselves). */
function findBucketsDescribedApart(collections: CollectionMetadata[], restored: CollectionMetadata[]): string[] {
  // Where each restored collection's buckets would travel, were it time-series.
  const bucketsOfRestored = new Set(restored.map((metadata) => listDataNamespaces(metadata.db, metadata.collection, "timeseries")[1]));
  return collections.map((metadata) => metadata.namespace).filter((namespace) => bucketsOfRestored.has(namespace));
}

function listNames(names: string[]): string {
  return names.length > LISTED ? `${names.slice(0, LISTED).join(", ")} and ${names.length - LISTED} more` : names.join(", ");
}

/** FerretDB's version from buildInfo ("v1.24.2"), or undefined for any other server. */
async function readFerretDbVersion(uri: string): Promise<string | undefined> {
  const client = await connectClient(uri);
  try {
    const info = await client.db("admin").command({ buildInfo: 1 });
    return typeof info.ferretdbVersion === "string" ? info.ferretdbVersion : undefined;
  } catch (cause) {
    throw wrapDatabaseError(cause, "asking the server its version", uri);
  } finally {
    await client.close().catch(() => undefined);
  }
}
