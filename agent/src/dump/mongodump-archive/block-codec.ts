// Encoding and decoding of the archive's small BSON documents: the header, the prelude's
// collection entries (with their Extended JSON metadata) and namespace/EOF headers.
// Field names and types follow what mongodump writes (see modern-5k.archive).

import { BSON, EJSON, Int32, type Document } from "bson";
import { describeCause, MongodumpArchiveError } from "./errors.ts";
import { ARCHIVE_FORMAT_VERSION, formatNamespace, OPLOG_NAMESPACE } from "./format.ts";
import type { ArchiveHeader, CollectionMetadata, CollectionSpec } from "./types.ts";

/** A decoded namespace header (`EOF` false) or EOF header (`EOF` true). */
export interface NamespaceHeader {
  db: string;
  collection: string;
  eof: boolean;
  /** The int64 CRC bit pattern; 0 in headers that are not EOF headers. */
  crc: bigint;
}

/** Decodes the archive header document; throws MongodumpArchiveError "invalid-header". */
export function decodeArchiveHeader(bytes: Uint8Array, offset: number): ArchiveHeader {
  const fail = (why: string, cause?: unknown) => new MongodumpArchiveError("invalid-header", `the archive header ${why}`, { offset, cause });
  const document = deserialize(bytes, (cause) => fail(`is not valid BSON (${describeCause(cause)})`, cause));
  return {
    concurrentCollections: readNumber(document, "concurrent_collections", () => fail("has a non-numeric concurrent_collections")),
    formatVersion: readString(document, "version", () => fail("has a non-string version")),
    serverVersion: readString(document, "server_version", () => fail("has a non-string server_version")),
    toolVersion: readString(document, "tool_version", () => fail("has a non-string tool_version")),
  };
}

/** Decodes one prelude entry and parses its metadata JSON; throws MongodumpArchiveError "invalid-metadata". */
export function decodeCollectionMetadata(bytes: Uint8Array, offset: number): CollectionMetadata {
  const fail = (why: string, cause?: unknown, namespace?: string) => new MongodumpArchiveError("invalid-metadata", why, { offset, cause, namespace });
  const entry = deserialize(bytes, (cause) => fail(`a collection metadata entry is not valid BSON (${describeCause(cause)})`, cause));
  const db = entry.db;
  const collection = entry.collection;
  if (typeof db !== "string" || typeof collection !== "string" || collection === "") {
    throw fail("a collection metadata entry lacks its string db or collection");
  }
  const namespace = formatNamespace(db, collection);
  const metadataJson = entry.metadata ?? "";
  if (typeof metadataJson !== "string") throw fail(`the metadata of ${namespace} is not a string`, undefined, namespace);
  const metadataDocument = parseMetadataJson(metadataJson, (why, cause) =>
    fail(`the metadata of ${namespace} is not valid Extended JSON: ${why}`, cause, namespace),
  );
  const options = metadataDocument.options ?? {};
  const indexes = metadataDocument.indexes ?? [];
  if (!isPlainDocument(options)) throw fail(`the options of ${namespace} are not a document`, undefined, namespace);
  if (!Array.isArray(indexes) || !indexes.every(isPlainDocument)) {
    throw fail(`the indexes of ${namespace} are not a list of documents`, undefined, namespace);
  }
  const entryType = typeof entry.type === "string" && entry.type !== "" ? entry.type : undefined;
  const metadataType = typeof metadataDocument.type === "string" ? metadataDocument.type : undefined;
  return {
    db,
    collection,
    namespace,
    type: entryType ?? metadataType,
    size: toNumber(entry.size) ?? 0,
    options,
    indexes,
    uuid: typeof metadataDocument.uuid === "string" ? metadataDocument.uuid : undefined,
    metadataDocument,
    metadataJson,
  };
}

/** Decodes a namespace or EOF header; throws MongodumpArchiveError "invalid-namespace-header". */
export function decodeNamespaceHeader(bytes: Uint8Array, offset: number): NamespaceHeader {
  const fail = (why: string, cause?: unknown) => new MongodumpArchiveError("invalid-namespace-header", `a namespace header ${why}`, { offset, cause });
  const document = deserialize(bytes, (cause) => fail(`is not valid BSON (${describeCause(cause)})`, cause));
  const { db, collection, EOF: eof = false, CRC: crc = 0n } = document;
  if (typeof db !== "string" || typeof collection !== "string" || collection === "") {
    throw fail("lacks its string db or collection");
  }
  if (typeof eof !== "boolean") throw fail("has a non-boolean EOF field");
  let crcValue: bigint;
  if (typeof crc === "bigint") crcValue = crc;
  else if (typeof crc === "number" && Number.isSafeInteger(crc)) crcValue = BigInt(crc);
  else throw fail("has a CRC that is not an integer");
  return { db, collection, eof, crc: BigInt.asIntN(64, crcValue) };
}

/** Encodes the archive header document as mongodump does; never throws. */
export function encodeArchiveHeader(header: ArchiveHeader): Uint8Array {
  return BSON.serialize({
    concurrent_collections: new Int32(header.concurrentCollections),
    version: header.formatVersion,
    server_version: header.serverVersion,
    tool_version: header.toolVersion,
  });
}

/** Fills in the header fields a caller left out; never throws. */
export function completeArchiveHeader(header: Partial<ArchiveHeader> | undefined): ArchiveHeader {
  return {
    concurrentCollections: header?.concurrentCollections ?? 1,
    formatVersion: header?.formatVersion ?? ARCHIVE_FORMAT_VERSION,
    // mongorestore parses this as a version number, so an empty string would break a restore.
    serverVersion: header?.serverVersion ?? "0.0.0",
    toolVersion: header?.toolVersion ?? "dbvault-agent",
  };
}

/** Encodes one prelude entry with its metadata as canonical Extended JSON v2; throws MongodumpArchiveError "invalid-metadata" when the metadata cannot be serialized. */
export function encodeCollectionEntry(spec: CollectionSpec): Uint8Array {
  const metadata = spec.metadataJson ?? buildMetadataJson(spec);
  return BSON.serialize({
    db: spec.db,
    collection: spec.collection,
    metadata,
    size: encodeGoInt(spec.size ?? 0),
    type: spec.type ?? "",
  });
}

/** Builds the metadata text mongodump writes: options, indexes, uuid, collectionName, type; throws MongodumpArchiveError "invalid-metadata". */
export function buildMetadataJson(spec: CollectionSpec): string {
  const namespace = formatNamespace(spec.db, spec.collection);
  // mongodump writes no metadata for the oplog (its intent has no metadata file).
  if (namespace === OPLOG_NAMESPACE && spec.options === undefined && spec.indexes === undefined) return "";
  const document: Document = {};
  if (spec.options !== undefined && Object.keys(spec.options).length > 0) document.options = spec.options;
  document.indexes = spec.indexes ?? [];
  if (spec.uuid) document.uuid = spec.uuid;
  document.collectionName = spec.collection;
  if (spec.type) document.type = spec.type;
  try {
    return EJSON.stringify(document, { relaxed: false });
  } catch (cause) {
    throw new MongodumpArchiveError("invalid-metadata", `the metadata of ${namespace} cannot be written as Extended JSON (${describeCause(cause)})`, {
      namespace,
      cause,
    });
  }
}

/** Turns metadata read from an archive into what the writer needs to write it again; never throws. */
export function createCollectionSpec(metadata: CollectionMetadata): CollectionSpec {
  const spec: CollectionSpec = {
    db: metadata.db,
    collection: metadata.collection,
    indexes: metadata.indexes,
    size: metadata.size,
  };
  if (metadata.type !== undefined) spec.type = metadata.type;
  if (metadata.metadataDocument.options !== undefined) spec.options = metadata.options;
  if (metadata.uuid !== undefined) spec.uuid = metadata.uuid;
  if (metadata.metadataJson.trim() === "") spec.metadataJson = "";
  return spec;
}

/** Encodes a namespace header (crc undefined) or an EOF header (crc given); never throws. */
export function encodeNamespaceHeader(db: string, collection: string, eofCrc?: bigint): Uint8Array {
  return BSON.serialize({ db, collection, EOF: eofCrc !== undefined, CRC: eofCrc ?? 0n });
}

// Go's BSON encoder writes an `int` as int32 when it fits and as int64 otherwise.
function encodeGoInt(value: number): Int32 | bigint {
  return Number.isInteger(value) && value >= -0x80000000 && value <= 0x7fffffff ? new Int32(value) : BigInt(Math.trunc(value));
}

function parseMetadataJson(text: string, fail: (why: string, cause?: unknown) => Error): Document {
  if (text.trim() === "") return {};
  let parsed: unknown;
  try {
    // Canonical parsing keeps every BSON type (Int32 vs Double vs Long); old archives' relaxed
    // numbers become Int32/Long/Double the same way Go's Extended JSON reader types them.
    parsed = EJSON.parse(text, { relaxed: false });
  } catch (cause) {
    throw fail(describeCause(cause), cause);
  }
  if (!isPlainDocument(parsed)) throw fail("it is not a JSON object");
  return parsed;
}

function deserialize(bytes: Uint8Array, fail: (cause: unknown) => Error): Document {
  try {
    return BSON.deserialize(bytes, { useBigInt64: true });
  } catch (cause) {
    throw fail(cause);
  }
}

function isPlainDocument(value: unknown): value is Document {
  return typeof value === "object" && value !== null && !Array.isArray(value) && (value as { _bsontype?: unknown })._bsontype === undefined;
}

function toNumber(value: unknown): number | undefined {
  if (typeof value === "number") return value;
  if (typeof value === "bigint") return Number(value);
  return undefined;
}

function readNumber(document: Document, field: string, fail: () => Error): number {
  const value = document[field];
  if (value === undefined) return 0;
  const number = toNumber(value);
  if (number === undefined) throw fail();
  return number;
}

function readString(document: Document, field: string, fail: () => Error): string {
  const value = document[field];
  if (value === undefined) return "";
  if (typeof value !== "string") throw fail();
  return value;
}
