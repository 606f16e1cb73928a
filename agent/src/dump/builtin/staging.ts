// Where a restore puts a collection before it replaces the live one. Every collection of a
// restore is written, indexed and checked under a reserved staging name first; only when the
// whole archive went in cleanly is each staging collection renamed over its target
// (renameCollection with dropTarget, which MongoDB does in one step). A failure before that
// leaves the target exactly as it was; the staging collections are dropped then, and again by
// the next restore or agent start if the agent was killed.
//
// A staging collection lives in its target's database and its name ends in
// `.dbvault-restore-<id>`, which is how leftovers are found. The name is `<name>.dbvault-restore-<id>`
// when that fits the server's limits; for longer names it is the start of the name, a hash of the
// whole name (two long names sharing a start stay apart) and the same ending, always short
// enough. Which target each staging collection stands for is kept by the restore, never read
// back from the name.
import { createHash, randomBytes } from "node:crypto";
import type { Db, Document, MongoClient } from "mongodb";
import { readUriDatabase, withPrimaryReadPreference } from "../connection-string.ts";
import { connectClient, listDatabaseNames, wrapDatabaseError } from "./client.ts";
import { readCopyRecords } from "./copy-journal.ts";

/** Ends every staging collection's name: `….dbvault-restore-<id>`. */
export const STAGING_MARKER = ".dbvault-restore-";
const STAGING_NAME_PATTERN = /\.dbvault-restore-[0-9a-z]{6}$/;
// Agents before names were shortened staged long names in a database `dbvault_restore_<id>`;
// such leftovers are still removed.
const LEGACY_STAGING_DATABASE_PATTERN = /^dbvault_restore_[0-9a-z]{6}$/;

// MongoDB 4.4+ allows 255 bytes for "db.collection", counted for time-series on their buckets
// ("db.system.buckets.collection"); FerretDB 1.x allows 235 bytes for a collection name.
const MAX_NAMESPACE_BYTES = 255;
const MAX_COLLECTION_BYTES = 235;
const BUCKETS_PREFIX = "system.buckets.";
const NAME_HASH_CHARS = 12;

/** One restore's staging names; `id` is random so two restores never share a name. */
export interface StagingArea {
  id: string;
  /** Where the collection `db.name` is staged: always in `db`, under a name that fits the limits above. */
  locate(db: string, name: string): { db: string; name: string };
}

export function createStagingArea(id = createStagingId()): StagingArea {
  return {
    id,
    locate(db, name) {
      const readable = `${name}${STAGING_MARKER}${id}`;
      if (fitsLimits(db, readable)) return { db, name: readable };
      const tail = `.${hashName(name)}${STAGING_MARKER}${id}`;
      const room = Math.min(MAX_NAMESPACE_BYTES - byteLength(`${db}.${BUCKETS_PREFIX}`), MAX_COLLECTION_BYTES) - byteLength(tail);
      return { db, name: `${cutToBytes(name, room)}${tail}` };
    },
  };
}

function fitsLimits(db: string, staged: string): boolean {
  return byteLength(`${db}.${BUCKETS_PREFIX}${staged}`) <= MAX_NAMESPACE_BYTES && byteLength(staged) <= MAX_COLLECTION_BYTES;
}

function byteLength(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

function hashName(name: string): string {
  return createHash("sha256").update(name, "utf8").digest("hex").slice(0, NAME_HASH_CHARS);
}

/** The longest start of `text` within `bytes` bytes of UTF-8, never splitting a character. */
function cutToBytes(text: string, bytes: number): string {
  let cut = "";
  let used = 0;
  for (const character of text) {
    used += byteLength(character);
    if (used > bytes) break;
    cut += character;
  }
  return cut;
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
 * Drops leftover staging collections in `databases` (and every staging database older agents
 * made): what a killed or crashed restore left behind, except those an unfinished copy still
 * needs (copy-journal.ts). Returns the namespaces dropped; throws the driver's error.
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
    if (!LEGACY_STAGING_DATABASE_PATTERN.test(name) || needed.some((staged) => staged.db === name)) continue;
    await client.db(name).dropDatabase();
    dropped.push(name);
  }
  return dropped;
}

/** Drops a collection (and, for time-series, its buckets) if it exists; throws the driver's error. */
export async function dropIfExists(db: Db, name: string): Promise<void> {
  for (const [candidate, absent] of [
    [name, NOTHING_TO_DROP],
    [`${BUCKETS_PREFIX}${name}`, NO_SUCH_BUCKETS],
  ] as const) {
    try {
      await db.command({ drop: candidate });
    } catch (error) {
      if (!absent.has((error as { code?: number }).code ?? -1)) throw error;
    }
  }
}

// 26 NamespaceNotFound: older servers answer so when there is nothing to drop.
const NOTHING_TO_DROP = new Set([26]);
// 73 InvalidNamespace: the buckets of a long collection name would pass the length limit, so
// they cannot exist (FerretDB and the test server refuse the name rather than find nothing).
const NO_SUCH_BUCKETS = new Set([26, 73]);

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
  const client = await connectClient(withPrimaryReadPreference(uri));
  try {
    const named = readUriDatabase(uri);
    return await dropLeftoverStaging(client, named ? [named] : await listDatabaseNames(client));
  } catch (cause) {
    throw wrapDatabaseError(cause, "removing staging collections left by an interrupted restore", uri);
  } finally {
    await client.close().catch(() => undefined);
  }
}
