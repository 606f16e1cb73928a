// Collections a database's backups leave out (issue 44: "a 750 GB log collection nobody needs
// backed up"). The list goes to the agent with each backup command; both dump engines skip them,
// and the backup records which were left out so that its details and a restore of it say so.
import { and, eq } from "drizzle-orm";
import { databases } from "@db/schema";
import type { AppContext } from "../../context";
import { badRequest, notFound } from "../../lib/errors";
import { listDatabases } from "./service";

/** More than this is a list that belongs in a smaller database, not in an exclusion list. */
export const MAX_EXCLUDED_COLLECTIONS = 100;

// MongoDB's own rule for a collection name, minus system collections (mongodump handles those).
const MAX_NAME_BYTES = 255;

/** Why `name` cannot be excluded, or undefined when it can. */
export function describeBadCollectionName(name: string): string | undefined {
  if (name.trim() === "") return "a collection name cannot be empty";
  if (name.includes("$")) return `"${name}" is not a collection name: it contains "$"`;
  if (name.includes("\0")) return "a collection name cannot contain a null character";
  if (name.startsWith("system.")) return `"${name}" is a system collection: its backups need it`;
  if (new TextEncoder().encode(name).length > MAX_NAME_BYTES) return `"${name.slice(0, 40)}…" is longer than ${MAX_NAME_BYTES} bytes`;
  return undefined;
}

/** Replaces the database's excluded collections (deduplicated, in the order given). 400 on a bad list, 404 on another's database. */
export async function setExcludedCollections(ctx: AppContext, organizationId: string, databaseId: string, names: string[]) {
  const unique = [...new Set(names)];
  if (unique.length > MAX_EXCLUDED_COLLECTIONS) {
    throw badRequest(`At most ${MAX_EXCLUDED_COLLECTIONS} collections can be excluded from a database's backups.`);
  }
  for (const name of unique) {
    const reason = describeBadCollectionName(name);
    if (reason) throw badRequest(`Cannot exclude it: ${reason}.`);
  }
  const [updated] = await ctx.db
    .update(databases)
    .set({ excludedCollections: unique })
    .where(and(eq(databases.id, databaseId), eq(databases.organizationId, organizationId)))
    .returning({ id: databases.id });
  if (!updated) throw notFound("Database");
  return listDatabases(ctx, organizationId);
}
