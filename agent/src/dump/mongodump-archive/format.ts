// Constants and small helpers of the mongodump archive format (mongo-tools common/archive/spec.md).

/** The archive's first four bytes, read as a little-endian uint32. */
export const ARCHIVE_MAGIC = 0x8199e26d;
export const MAGIC_BYTES = new Uint8Array([0x6d, 0xe2, 0x99, 0x81]);
/** Ends the prelude and every segment: 0xffffffff, i.e. -1 as a little-endian int32. */
export const TERMINATOR = -1;
export const TERMINATOR_BYTES = new Uint8Array([0xff, 0xff, 0xff, 0xff]);
/** Format version written in the header; the only one that exists. */
export const ARCHIVE_FORMAT_VERSION = "0.1";
/** The smallest BSON document: a length and the final 0x00. */
export const MIN_DOCUMENT_BYTES = 5;
/**
 * The largest document accepted by default. The server caps user documents at 16 MiB but writes
 * internal ones (oplog entries) up to 16 MiB + 16 KiB, and those travel in `--oplog` dumps.
 */
export const MAX_DOCUMENT_BYTES = 16 * 1024 * 1024 + 16 * 1024;
/** The oplog's namespace inside an archive: empty database, collection "oplog". */
export const OPLOG_NAMESPACE = ".oplog";

/** Joins a database and collection into the archive's namespace string; never throws. */
export function formatNamespace(db: string, collection: string): string {
  return `${db}.${collection}`;
}

/** Splits "db.collection" at its first dot (database names cannot contain dots); never throws. */
export function splitNamespace(namespace: string): { db: string; collection: string } {
  const dot = namespace.indexOf(".");
  if (dot < 0) return { db: namespace, collection: "" };
  return { db: namespace.slice(0, dot), collection: namespace.slice(dot + 1) };
}

/**
 * Returns the namespaces whose documents may carry a prelude entry's data. A time-series
 * collection X is described under X but its buckets travel as `system.buckets.X` (servers
 * before 8.3) or under X itself (later ones); never throws.
 */
export function listDataNamespaces(db: string, collection: string, type: string | undefined): string[] {
  const own = formatNamespace(db, collection);
  if (type === "timeseries") return [own, formatNamespace(db, `system.buckets.${collection}`)];
  return [own];
}

/** Reads a little-endian int32 at an offset; never throws for offsets inside the array. */
export function readInt32LE(bytes: Uint8Array, offset: number): number {
  return bytes[offset]! | (bytes[offset + 1]! << 8) | (bytes[offset + 2]! << 16) | (bytes[offset + 3]! << 24);
}

/** `a` then `b` in one new array; never throws. */
export function concatBytes(a: Uint8Array, b: Uint8Array): Uint8Array {
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a, 0);
  joined.set(b, a.length);
  return joined;
}
