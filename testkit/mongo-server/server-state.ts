// Everything one test server holds: databases of collections. A database exists while it has a
// collection, as in MongoDB; names are checked against MongoDB's own rules so tests see the same
// failures a real server would give.
import { Int32, Long } from "bson";
import { CollectionState, type CollectionType } from "./collection-state";
import { CommandError } from "./errors";
import { DEFAULT_SERVER_VERSION } from "./limits";
import { composeDocument } from "./raw-bson";
import { describeFeatureCompatibility, parseVersion } from "./server-version";

type Document = Record<string, unknown>;

const MAX_DATABASE_NAME_BYTES = 63;
const MAX_NAMESPACE_BYTES = 255;

/** Throws InvalidNamespace unless the name is one MongoDB accepts for a database. */
export function assertDatabaseName(name: string): void {
  const invalid = name.length === 0 || /[/\\. "$\0]/.test(name) || Buffer.byteLength(name) > MAX_DATABASE_NAME_BYTES;
  if (invalid) throw new CommandError(73, `Invalid database name: '${name}'`);
}

/** Throws InvalidNamespace unless the name is one MongoDB accepts for a collection in `database`. */
export function assertCollectionName(database: string, name: string): void {
  assertDatabaseName(database);
  const namespace = `${database}.${name}`;
  const invalid = name.length === 0 || name.includes("\0") || name.includes("$") || name.startsWith(".");
  if (invalid) throw new CommandError(73, `Invalid collection name: ${name}`);
  if (Buffer.byteLength(namespace) > MAX_NAMESPACE_BYTES) {
    throw new CommandError(73, `Fully qualified namespace is too long. Namespace: ${namespace} Max: ${MAX_NAMESPACE_BYTES}`);
  }
}

export class ServerState {
  readonly databases = new Map<string, Map<string, CollectionState>>();
  readonly startedAt = new Date();
  private lastTimestamp = { seconds: 0, increment: 0 };

  /** `version` is the MongoDB version the server reports and behaves as. */
  constructor(readonly version: string = DEFAULT_SERVER_VERSION) {
    parseVersion(version);
  }

  /**
   * The next cluster time, as mongod hands out for empty timestamps: the current second, with an
   * increment that keeps every value given out unique and increasing.
   */
  tickClusterTime(): { seconds: number; increment: number } {
    const seconds = Math.floor(Date.now() / 1000);
    const last = this.lastTimestamp;
    this.lastTimestamp = seconds > last.seconds ? { seconds, increment: 1 } : { seconds: last.seconds, increment: last.increment + 1 };
    return this.lastTimestamp;
  }

  /** The collection, or undefined when it does not exist. */
  findCollection(database: string, name: string): CollectionState | undefined {
    return this.databases.get(database)?.get(name);
  }

  /** The collection, created empty (no options) on first use, as inserts and createIndexes do. */
  ensureCollection(database: string, name: string): { collection: CollectionState; created: boolean } {
    const existing = this.findCollection(database, name);
    if (existing) {
      if (existing.type === "view") throw new CommandError(166, `Namespace ${existing.ns} is a view, not a collection`);
      return { collection: existing, created: false };
    }
    return { collection: this.createCollection(database, name, "collection", {}), created: true };
  }

  /** Creates a collection or view; throws InvalidNamespace for a bad name. */
  createCollection(database: string, name: string, type: CollectionType, options: Document): CollectionState {
    assertCollectionName(database, name);
    const collection = new CollectionState(database, name, type, options);
    let collections = this.databases.get(database);
    if (!collections) {
      collections = new Map();
      this.databases.set(database, collections);
    }
    collections.set(name, collection);
    return collection;
  }

  /** Drops a collection; returns it, or undefined when there was none. */
  dropCollection(database: string, name: string): CollectionState | undefined {
    const collections = this.databases.get(database);
    const collection = collections?.get(name);
    if (!collections || !collection) return undefined;
    collections.delete(name);
    if (collections.size === 0) this.databases.delete(database);
    return collection;
  }

  /**
   * Moves a collection (documents, indexes, options, uuid) to another name, replacing the target
   * when `dropTarget` is set, as renameCollection does. Throws mongod's errors: 26 when the source
   * is missing, 48 when the target exists, 166 for views and time-series collections (a 7.0
   * server cannot rename those), 20 for a rename onto itself.
   */
  renameCollection(from: { db: string; name: string }, to: { db: string; name: string }, dropTarget: boolean): void {
    const source = this.findCollection(from.db, from.name);
    if (!source) throw new CommandError(26, `Source collection ${from.db}.${from.name} does not exist`);
    if (source.type !== "collection") throw new CommandError(166, `cannot rename ${source.type === "view" ? "view" : "time-series collection"} ${source.ns}`);
    if (from.db === to.db && from.name === to.name) throw new CommandError(20, "Can't rename a collection to itself");
    assertCollectionName(to.db, to.name);
    const existing = this.findCollection(to.db, to.name);
    if (existing && !dropTarget) throw new CommandError(48, "target namespace exists");
    if (existing) this.dropCollection(to.db, to.name);
    this.dropCollection(from.db, from.name);
    source.database = to.db;
    source.name = to.name;
    let collections = this.databases.get(to.db);
    if (!collections) {
      collections = new Map();
      this.databases.set(to.db, collections);
    }
    collections.set(to.name, source);
  }

  /** Drops every collection of a database. */
  dropDatabase(database: string): void {
    this.databases.delete(database);
  }

  /** Bytes a database would occupy: data plus a nominal 4 KiB a collection and an index. */
  measureDatabase(database: string): number {
    let total = 0;
    for (const collection of this.databases.get(database)?.values() ?? []) {
      total += 4096 + collection.dataBytes + 4096 * collection.indexes.length;
    }
    return total;
  }

  /**
   * Adds what a freshly started mongod already holds, so clients that list databases meet the
   * same system databases they would on a real server (and learn to skip them).
   */
  seedSystemCollections(): void {
    this.createCollection("admin", "system.version", "collection", {}).insertDocument(
      composeDocument({ _id: "featureCompatibilityVersion", version: describeFeatureCompatibility(this.version) }),
    );
    const startupLog = this.createCollection("local", "startup_log", "collection", { capped: true, size: new Int32(10 * 1024 * 1024) });
    startupLog.insertDocument(
      composeDocument({
        _id: `dbvault-test-server-${this.startedAt.getTime()}`,
        hostname: "localhost",
        startTime: this.startedAt,
        pid: Long.fromNumber(process.pid),
        buildinfo: { version: this.version },
      }),
    );
  }
}
