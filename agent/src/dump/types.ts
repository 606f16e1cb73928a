// Types of the dump/restore API the CLI and the daemon call (see index.ts).
import type { Writable } from "node:stream";
import type { NamespaceSummary } from "./mongodump-archive/index.ts";
import type { BackupConsistency } from "../../../protocol/agent-protocol";

/** Progress of a dump or restore: the shape of spec section 3 and of the agent protocol. */
export interface Progress {
  /** Documents dumped or restored so far. */
  current: number;
  /** Documents expected in all; for a restore an estimate until the end (0 when unknown). */
  total: number;
  /** 0 to 100. */
  percentage: number;
  /** The namespace ("db.collection") being processed. */
  collection: string;
}

export type ProgressListener = (progress: Progress) => void;

/** Which implementation did the work: MongoDB's own tools, or the agent's driver-based one. */
export type DumpEngine = "native" | "builtin";

/** How to pick the engine, and where MongoDB's tools are (config file `tools`). */
export interface ToolsConfig {
  /** "auto" (default): the native tools when found and recent enough, else built-in. */
  mode?: "auto" | "native" | "builtin";
  /** Path of mongodump; looked up on PATH when absent. */
  mongodump?: string;
  /** Path of mongorestore; looked up on PATH when absent. */
  mongorestore?: string;
}

/** Options shared by dumps and restores. */
export interface OperationOptions {
  /** The connection string. A secret: it never reaches argv, logs or error messages. */
  uri: string;
  /** Called at most every `progressIntervalMs` and when the collection changes, then once at the end. */
  onProgress?: ProgressListener;
  /** Aborting kills a native tool, stops the cursor or the inserts, and rejects with DumpError "aborted". */
  signal?: AbortSignal;
  tools?: ToolsConfig;
  /** Informational messages (e.g. why the built-in engine was chosen); never contain secrets. */
  onNotice?: (message: string) => void;
  /** Minimum time between two progress calls; default 250 ms. */
  progressIntervalMs?: number;
}

export interface DumpOptions extends OperationOptions {
  /** The database to dump; defaults to the URI's database, else every database but local and config. */
  database?: string;
  /**
   * Whether a dump of every database (or of admin) includes admin.system.users, system.roles and
   * system.version, as mongodump's does; default true.
   */
  usersAndRoles?: boolean;
  /**
   * Collections of the dumped database left out (mongodump --excludeCollection): neither read nor
   * in the archive's oplog window. Only with one database (`database` or the URI's).
   */
  excludeCollections?: string[];
  /** Where the plain mongodump archive goes; ended when the dump succeeds. */
  output: Writable | WritableStream<Uint8Array>;
}

/**
 * The one moment a dump holds its source as: on a replica set, the last oplog entry (T1) up to
 * which the archive's oplog brings the collections read before it; a standalone server keeps no
 * oplog, so its dump is no single point in time. Reported to the server as it is.
 */
export type Consistency = BackupConsistency;

/** T1 as a time (its seconds) and as the oplog timestamp. */
export type ConsistentAt = Extract<Consistency, { kind: "point-in-time" }>["at"];

export interface DumpResult {
  engine: DumpEngine;
  /** Absent when the engine could not tell (mongodump of one database, a mongos). */
  consistency?: Consistency;
  /** Documents dumped per namespace ("db.collection"). */
  collections: Record<string, number>;
  documents: number;
  /** Bytes of mongodump archive written. */
  archiveBytes: number;
}

/** Byte sources a restore reads: a web stream, a Node Readable, or any (async) iterable of bytes. */
export type ByteSource = ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> | Iterable<Uint8Array>;

export interface RestoreOptions extends OperationOptions {
  /** The plain mongodump archive. */
  input: ByteSource;
  /**
   * The database to restore into; defaults to the URI's database. When the archive holds it, only
   * it is restored; when the archive holds one other database, that one is restored under this name.
   */
  database?: string;
  /**
   * The database the backup was taken of, when the caller knows it (the agent's configured
   * database): a backup of a database with no collection yet names none, and a point-in-time
   * restore of it replays this database's slices.
   */
  sourceDatabase?: string;
  /** Size of `input` in bytes, when known: it turns bytes read into a percentage and a total estimate. */
  inputBytes?: number;
  /** Only these collections of the backup's database (names without the database); all by default. */
  collections?: string[];
  /** `collections` are the ones the backup's oplog window writes to: not checked against the archive (restore-plan.ts). */
  collectionsOfWindow?: boolean;
  /** The archive's namespaces with their document counts, when already read (a verified backup): progress then has the real total. */
  expectedNamespaces?: NamespaceSummary[];
  /** Whether a restore of every database (or of admin) restores the backup's users and roles; default true. */
  usersAndRoles?: boolean;
  /** A point-in-time restore: after the backup's own oplog, a chain of slices is replayed up to `until`. */
  pointInTime?: PointInTimeReplay;
}

/** What a point-in-time restore replays after the base backup (oplog/chain checks the slices). */
export interface PointInTimeReplay {
  until: { t: number; i: number };
  /** Checks what it can of the slices of `database` before the database is touched; throws naming the slice. */
  check(database: string): Promise<void>;
  /**
   * The entries of `database` (the backup's) after the base's consistent point `base`, once the
   * whole chain is checked; throws (naming the slice at fault) when it is not whole. Called
   * before anything is swapped in. The entries are streamed from the checked slices, and their
   * iteration throws (naming the slice) when one changed since its check.
   */
  entriesAfter(base: { t: number; i: number }, database: string): Promise<AsyncIterable<Uint8Array>>;
}

/** Documents restored and failed (duplicate keys, validation...) in one collection. */
export interface CollectionRestoreStats {
  restored: number;
  failed: number;
}

export interface RestoreResult {
  engine: DumpEngine;
  /** Per target namespace ("db.collection"), views and empty collections included. */
  collections: Record<string, CollectionRestoreStats>;
  restored: number;
  failed: number;
  /** Namespaces in the archive that were not restored (the oplog, system collections, other databases). */
  skipped: string[];
  /** Users and roles restored from the backup (mongorestore's rules); absent when none were. */
  usersAndRoles?: { users: number; roles: number };
  /**
   * The backup's oplog (a consistent backup's), applied before the swap: its entries, the
   * operations applied, and the targets dropped because the source dropped them meanwhile.
   * Absent when the backup holds none.
   */
  oplog?: { entries: number; applied: number; dropped: string[] };
}
