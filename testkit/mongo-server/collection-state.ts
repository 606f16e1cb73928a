// One collection in memory: documents as the exact bytes received (in insertion order, which is
// the natural order find returns), its indexes with their unique entries, and its options.
import { BSON, ObjectId, UUID } from "bson";
import { computeCanonicalKey, toNumber } from "./bson-order";
import { CommandError } from "./errors";
import { createDuplicateKeyError, createIdIndex, extractIndexKeys, type IndexKey, type IndexState } from "./indexes";
import { MAX_BSON_OBJECT_SIZE } from "./limits";
import { assembleElements, placeIdFirst, readIdElement } from "./raw-bson";

type Document = Record<string, unknown>;

export type CollectionType = "collection" | "view" | "timeseries";

export type StoredDocument = {
  raw: Buffer;
  idKey: string;
  /** Keys held in each unique secondary index, so removal needs no re-parse. */
  uniqueKeys: Map<string, string[]>;
};

/**
 * The `uniqueKeys` of every document no unique secondary index holds (most of them, and every
 * oplog entry): shared, so never added to; a document an index takes gets its own map.
 */
const NO_UNIQUE_KEYS = new Map<string, string[]>();

/** How every stored document is read for matching: exact types, regexes kept as BSON regexes. */
export function parseStoredDocument(raw: Uint8Array): Document {
  return BSON.deserialize(raw, { promoteValues: false, bsonRegExp: true, validation: { utf8: false } });
}

/** `{_id}` of a document (`{}` without one), parsed from its `_id` element alone. */
function parseIdField(raw: Buffer): Document {
  const id = readIdElement(raw);
  return id ? parseStoredDocument(assembleElements([id])) : {};
}

export class CollectionState {
  readonly uuid = new UUID();
  readonly documents = new Map<string, StoredDocument>();
  readonly indexes: IndexState[];
  dataBytes = 0;

  constructor(
    /** Database and name change only through ServerState.renameCollection. */
    public database: string,
    public name: string,
    readonly type: CollectionType,
    readonly options: Document,
  ) {
    this.indexes = type === "view" ? [] : [createIdIndex(this.collation)];
  }

  /** The default collation every index without its own inherits; undefined for the simple one. */
  get collation(): Document | undefined {
    const collation = this.options.collation;
    return collation !== null && typeof collation === "object" && !Array.isArray(collation) ? (collation as Document) : undefined;
  }

  get ns(): string {
    return `${this.database}.${this.name}`;
  }

  /** Stores one document (giving it an `_id` first if needed); throws E11000 and size errors. */
  insertDocument(received: Buffer): StoredDocument {
    const raw = placeIdFirst(received, () => new ObjectId());
    if (raw.length > MAX_BSON_OBJECT_SIZE) {
      throw new CommandError(10334, `object to insert too large. size in bytes: ${raw.length}, max size: ${MAX_BSON_OBJECT_SIZE}`);
    }
    const document = parseStoredDocument(raw);
    const stored = this.prepareEntry(raw, document, undefined);
    this.commitEntry(stored);
    this.evictForCap();
    return stored;
  }

  /**
   * Stores a document that has no `_id` under a key of the caller's choosing, with no index or
   * cap checks: the oplog's entries have no `_id` and the oplog trims itself.
   */
  appendUnkeyed(raw: Buffer, key: string): StoredDocument {
    const stored: StoredDocument = { raw, idKey: key, uniqueKeys: NO_UNIQUE_KEYS };
    this.commitEntry(stored);
    return stored;
  }

  /**
   * Swaps a document for a new version with the same `_id`; throws E11000 on a unique clash.
   * `encodedHere` says the bytes come from this server's own encoder, so they need no checking
   * and only what the indexes read is parsed (the `_id` alone when no other index is unique).
   */
  replaceDocument(previous: StoredDocument, raw: Buffer, encodedHere = false): StoredDocument {
    if (raw.length > MAX_BSON_OBJECT_SIZE) {
      throw new CommandError(10334, `BSONObj size: ${raw.length} is invalid. Size must be between 0 and ${MAX_BSON_OBJECT_SIZE}`);
    }
    const onlyId = encodedHere && !this.indexes.some((index, position) => position > 0 && index.unique);
    const stored = this.prepareEntry(raw, onlyId ? parseIdField(raw) : parseStoredDocument(raw), previous);
    this.removeEntries(previous);
    this.documents.set(stored.idKey, stored); // Map.set on an existing key keeps its position
    this.addEntries(stored);
    this.dataBytes += raw.length - previous.raw.length;
    return stored;
  }

  /** Removes a stored document and its index entries. */
  deleteDocument(stored: StoredDocument): void {
    this.removeEntries(stored);
    this.documents.delete(stored.idKey);
    this.dataBytes -= stored.raw.length;
  }

  /** Adds an index after checking existing documents against it; throws E11000 if they clash. */
  addIndex(index: IndexState): void {
    if (index.unique) {
      const built = new Map<string, string>();
      const perDocument = new Map<string, string[]>();
      for (const stored of this.documents.values()) {
        const keys = extractIndexKeys(index, parseStoredDocument(stored.raw));
        for (const { key, values } of keys) {
          if (built.has(key)) {
            const clash = createDuplicateKeyError(this.ns, index, values);
            throw new CommandError(
              11000,
              `Index build failed: ${this.uuid.toHexString()}: Collection ${this.ns} ( ${this.uuid.toHexString()} ) :: caused by :: ${clash.message}`,
              clash.details,
            );
          }
          built.set(key, stored.idKey);
        }
        perDocument.set(
          stored.idKey,
          keys.map(({ key }) => key),
        );
      }
      index.entries = built;
      for (const [idKey, keys] of perDocument) {
        const stored = this.documents.get(idKey)!;
        if (stored.uniqueKeys === NO_UNIQUE_KEYS) stored.uniqueKeys = new Map();
        stored.uniqueKeys.set(index.name, keys);
      }
    }
    this.indexes.push(index);
  }

  /** Drops a secondary index by name and forgets its entries. */
  removeIndex(name: string): void {
    const position = this.indexes.findIndex((index) => index.name === name);
    if (position > 0) this.indexes.splice(position, 1);
    for (const stored of this.documents.values()) stored.uniqueKeys.delete(name);
  }

  private prepareEntry(raw: Buffer, document: Document, previous: StoredDocument | undefined): StoredDocument {
    const id = document._id;
    if (Array.isArray(id)) throw new CommandError(53, "The '_id' value cannot be of type array");
    if ((id as { _bsontype?: string })?._bsontype === "BSONRegExp") throw new CommandError(53, "can't use a regex for _id");
    const idKey = computeCanonicalKey(id);
    if (previous && previous.idKey !== idKey) {
      throw new CommandError(66, "Performing an update on the path '_id' would modify the immutable field '_id'");
    }
    if (!previous && this.documents.has(idKey)) throw createDuplicateKeyError(this.ns, this.indexes[0]!, [id]);
    let uniqueKeys = NO_UNIQUE_KEYS;
    for (const index of this.indexes.slice(1)) {
      if (!index.unique) continue;
      if (uniqueKeys === NO_UNIQUE_KEYS) uniqueKeys = new Map();
      const keys: IndexKey[] = extractIndexKeys(index, document);
      for (const { key, values } of keys) {
        const holder = index.entries.get(key);
        if (holder !== undefined && holder !== previous?.idKey) throw createDuplicateKeyError(this.ns, index, values);
      }
      uniqueKeys.set(
        index.name,
        keys.map(({ key }) => key),
      );
    }
    return { raw, idKey, uniqueKeys };
  }

  private commitEntry(stored: StoredDocument): void {
    this.documents.set(stored.idKey, stored);
    this.addEntries(stored);
    this.dataBytes += stored.raw.length;
  }

  private addEntries(stored: StoredDocument): void {
    for (const index of this.indexes) {
      for (const key of stored.uniqueKeys.get(index.name) ?? []) index.entries.set(key, stored.idKey);
    }
  }

  private removeEntries(stored: StoredDocument): void {
    for (const index of this.indexes) {
      for (const key of stored.uniqueKeys.get(index.name) ?? []) {
        if (index.entries.get(key) === stored.idKey) index.entries.delete(key);
      }
    }
  }

  // Capped collections drop their oldest documents once over `max` documents or `size` bytes.
  private evictForCap(): void {
    if (this.options.capped !== true) return;
    const maxDocuments = this.options.max !== undefined ? toNumber(this.options.max) : 0;
    const maxBytes = this.options.size !== undefined ? toNumber(this.options.size) : 0;
    for (const oldest of this.documents.values()) {
      const overCount = maxDocuments > 0 && this.documents.size > maxDocuments;
      const overSize = maxBytes > 0 && this.dataBytes > maxBytes && this.documents.size > 1;
      if (!overCount && !overSize) break;
      this.deleteDocument(oldest);
    }
  }
}
