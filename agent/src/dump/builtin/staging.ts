// Where a restore puts a collection before it replaces the live one. Every collection of a
// restore is written, indexed and checked under a reserved staging name first; only when the
// whole archive went in cleanly is each staging collection renamed over its target
// (renameCollection with dropTarget, which MongoDB does in one step). A failure before that
// leaves the target exactly as it was; the staging collections are dropped then, and again by
// the next restore or agent start if the agent was killed.
import { randomBytes } from "node:crypto";
import type { Db, Document, MongoClient } from "mongodb";
import { readUriDatabase } from "../connection-string.ts";
import { connectClient, listDatabaseNames, wrapDatabaseError } from "./client.ts";
import { readCopyRecords } from "./copy-journal.ts";

/** Marks a staging collection: `<name>.dbvault-restore-<id>`. */
export const STAGING_MARKER = ".dbvault-restore-";
/** The database used instead when a staging name would be too long: `dbvault_restore_<id>`. */
export const STAGING_DATABASE_PREFIX = "dbvault_restore_";
const STAGING_NAME_PATTERN = /\.dbvault-restore-[0-9a-z]{6}$/;
const STAGING_DATABASE_PATTERN = /^dbvault_restore_[0-9a-z]{6}$/;

// MongoDB 4.4+ allows 255 bytes for "db.collection"; time-series buckets add "system.buckets.",
// and a margin keeps index builds' temporary names within bounds on older servers.
const MAX_NAMESPACE_BYTES = 255;
const BUCKETS_PREFIX = "system.buckets.";

/** One restore's staging names; `id` is random so two restores never share a name. */
export interface StagingArea {
  id: string;
  /** Where the collection `db.name` is staged. */
  locate(db: string, name: string): { db: string; name: string };
}

export function createStagingArea(id = createStagingId()): StagingArea {
  return {
    id,
    locate(db, name) {
      const staged = `${name}${STAGING_MARKER}${id}`;
      const bytes = Buffer.byteLength(`${db}.${BUCKETS_PREFIX}${staged}`);
      if (bytes <= MAX_NAMESPACE_BYTES) return { db, name: staged };
      return { db: `${STAGING_DATABASE_PREFIX}${id}`, name };
    },
  };
}

function createStagingId(): string {
  const bytes = randomBytes(6);
  return Array.from(bytes, (byte) => (byte % 36).toString(36)).join("");
}

/** Tells whether a collection name is a staging name (of any restore); never throws. */
export function isStagingName(name: string): boolean {
  return STAGING_NAME_PATTERN.test(name);
}

/**
 * Drops leftover staging collections in `databases` (and every staging database): what a killed
 * or crashed restore left behind, except those an unfinished copy still needs (copy-journal.ts).
 * Returns the namespaces dropped; throws the driver's error.
 */
export async function dropLeftoverStaging(client: MongoClient, databases: string[]): Promise<string[]> {
  const dropped: string[] = [];
  const needed = (await readCopyRecords(client, databases)).map((record) => record.staged);
  for (const name of databases) {
    const db = client.db(name);
    const collections = await db.listCollections({}, { nameOnly: true }).toArray();
    for (const { name: collection } of collections) {
      const base = collection.startsWith(BUCKETS_PREFIX) ? collection.slice(BUCKETS_PREFIX.length) : collection;
      if (!isStagingName(base) || needed.some((staged) => staged.db === name && staged.name === base)) continue;
      await dropIfExists(db, collection);
      dropped.push(`${name}.${collection}`);
    }
  }
  for (const name of await listDatabaseNames(client)) {
    if (!STAGING_DATABASE_PATTERN.test(name) || needed.some((staged) => staged.db === name)) continue;
    await client.db(name).dropDatabase();
    dropped.push(name);
  }
  return dropped;
}

/** Drops a collection (and, for time-series, its buckets) if it exists; throws the driver's error. */
export async function dropIfExists(db: Db, name: string): Promise<void> {
  for (const candidate of [name, `${BUCKETS_PREFIX}${name}`]) {
    try {
      await db.command({ drop: candidate });
    } catch (error) {
      // 26 NamespaceNotFound: older servers answer so when there is nothing to drop.
      if ((error as { code?: unknown }).code !== 26) throw error;
    }
  }
}

/**
 * Answers meaning this server cannot rename this namespace in one step: views and time-series
 * before MongoDB 8.0, and FerretDB 1.x, which implements no dropTarget (and cannot rename a
 * collection whose name holds a dot, as every staging name does).
 */
const RENAME_REFUSED_CODES = new Set([
  20, // IllegalOperation
  72, // InvalidOptions
  166, // CommandNotSupportedOnView
  238, // NotImplemented
]);

/**
 * Renames `from` over `to` in one step (dropTarget). Returns false when the server cannot rename
 * this kind of collection (the caller copies instead); throws the driver's other errors.
 */
export async function renameOver(client: MongoClient, from: { db: string; name: string }, to: { db: string; name: string }): Promise<boolean> {
  try {
    await client.db("admin").command({ renameCollection: `${from.db}.${from.name}`, to: `${to.db}.${to.name}`, dropTarget: true } as Document);
    return true;
  } catch (error) {
    if (RENAME_REFUSED_CODES.has((error as { code?: number }).code ?? -1)) return false;
    throw error;
  }
}

/**
 * Connects to `uri` and drops what killed restores left behind, in the URI's database or, when it
 * names none, in every database; returns the namespaces dropped. Throws DumpError
 * "connect-failed" or "database-error".
 */
export async function removeLeftoverStaging(uri: string): Promise<string[]> {
  const client = await connectClient(uri);
  try {
    const named = readUriDatabase(uri);
    return await dropLeftoverStaging(client, named ? [named] : await listDatabaseNames(client));
  } catch (cause) {
    throw wrapDatabaseError(cause, "removing staging collections left by an interrupted restore", uri);
  } finally {
    await client.close().catch(() => undefined);
  }
}
