// What mongorestore cannot do on some servers where the built-in engine can, found before a
// native restore changes anything, so that auto mode takes the built-in engine instead and native
// mode refuses with the reason. Known: FerretDB 1.x refuses the index option "ns", which
// mongorestore (100.x) sends with every secondary index it recreates.
import { connectClient, wrapDatabaseError } from "../builtin/client.ts";
import { isView } from "../builtin/swap.ts";
import type { CollectionMetadata } from "../mongodump-archive/index.ts";
import type { RestorePlan } from "../restore-plan.ts";

const ID_INDEX = "_id_";
const LISTED = 3;

/**
 * Why mongorestore cannot restore `plan` of `collections` into the server at `uri`, or undefined
 * when it can. Connects only when the plan restores secondary indexes. Throws DumpError
 * "connect-failed" or "database-error".
 */
export async function findMongorestoreMisfit(uri: string, collections: CollectionMetadata[], plan: RestorePlan): Promise<string | undefined> {
  const indexed = collections.flatMap((metadata) => {
    const target = plan.targetOf(metadata);
    const hasSecondary = !isView(metadata) && metadata.indexes.some((index) => index.name !== ID_INDEX);
    return target !== undefined && hasSecondary ? [target] : [];
  });
  if (indexed.length === 0) return undefined;
  const ferretDbVersion = await readFerretDbVersion(uri);
  if (ferretDbVersion === undefined || !/^v?1\./.test(ferretDbVersion)) return undefined;
  const named = indexed.length > LISTED ? `${indexed.slice(0, LISTED).join(", ")} and ${indexed.length - LISTED} more` : indexed.join(", ");
  return `mongorestore cannot recreate the secondary indexes of ${named} on FerretDB ${ferretDbVersion} (it sends the index option "ns", which FerretDB refuses)`;
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
