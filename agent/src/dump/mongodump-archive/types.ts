import type { Document } from "bson";

/** The archive header that follows the magic number (BSON field names in comments). */
export interface ArchiveHeader {
  /** `concurrent_collections`: how many collections mongodump dumped in parallel. */
  concurrentCollections: number;
  /** `version`: the archive format version; "0.1" is the only one that exists. */
  formatVersion: string;
  /** `server_version`: the MongoDB version of the dumped server. */
  serverVersion: string;
  /** `tool_version`: the version of the tool that wrote the archive. */
  toolVersion: string;
}

/** One collection described in the archive prelude, with its metadata JSON already parsed. */
export interface CollectionMetadata {
  db: string;
  collection: string;
  /** `db.collection`; the oplog is `.oplog` (empty db, collection "oplog"). */
  namespace: string;
  /** "collection", "view", "timeseries" in current archives; undefined when absent (old archives). */
  type: string | undefined;
  /** The prelude's `size` field (0 in every real archive seen). */
  size: number;
  /** Collection options (capped, validator, collation, viewOn, ...); {} when absent. */
  options: Document;
  /** Index specifications with their BSON types kept (Int32, Double, Decimal128, ...). */
  indexes: Document[];
  /** Collection UUID as 32 hex digits, when the dump recorded one. */
  uuid: string | undefined;
  /** The whole parsed metadata document ({} when the archive carries no metadata text). */
  metadataDocument: Document;
  /** The metadata text exactly as stored (canonical or relaxed Extended JSON, or ""). */
  metadataJson: string;
}

/** One step of reading an archive, in stream order. */
export type ArchiveEvent =
  | { kind: "header"; header: ArchiveHeader }
  | { kind: "collection"; metadata: CollectionMetadata }
  | {
      kind: "document";
      namespace: string;
      /** The raw BSON bytes of one document, exactly as stored. */
      bytes: Uint8Array;
    }
  | {
      kind: "namespace-end";
      namespace: string;
      documentCount: number;
      documentBytes: number;
      /** The CRC stored in the EOF header (int64 bit pattern). */
      crc: bigint;
      /** Whether the documents' CRC matched; false only with `crcMismatch: "report"`. */
      crcOk: boolean;
    }
  | { kind: "end"; archiveBytes: number };

/** What the writer needs to know about one collection before any document is written. */
export interface CollectionSpec {
  db: string;
  collection: string;
  /** "collection", "view", "timeseries"; "" or undefined when unknown (the oplog). */
  type?: string;
  options?: Document;
  indexes?: Document[];
  /** Collection UUID as 32 hex digits (mongodump's form), when known. */
  uuid?: string;
  /** Verbatim metadata text to store instead of building it from the fields above. */
  metadataJson?: string;
  /** The prelude `size` field; mongodump always writes 0. */
  size?: number;
}

/** The prelude the writer emits first: archive header fields and every collection. */
export interface ArchivePrelude {
  header?: Partial<ArchiveHeader>;
  collections: CollectionSpec[];
}

/** One input item of the writer, after the prelude. */
export type ArchiveWriteItem =
  | { kind: "document"; namespace: string; bytes: Uint8Array }
  /** Optional: emits the namespace's EOF now; namespaces not ended explicitly end at the close. */
  | { kind: "namespace-end"; namespace: string };

/** Anything the reader accepts as input: Node Readable, web ReadableStream, or any byte iterable. */
export type ArchiveSource = AsyncIterable<Uint8Array | ArrayBuffer> | Iterable<Uint8Array | ArrayBuffer> | ReadableStream<Uint8Array>;
