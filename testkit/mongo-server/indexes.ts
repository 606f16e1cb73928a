// Index definitions and the uniqueness they promise. Only unique indexes hold entries (the test
// server never uses an index to speed up a query); the rest are kept as specs for listIndexes.
import { Int32 } from "bson";
import { computeCanonicalKey, isDocument } from "./bson-order";
import { readBoolean } from "./command-args";
import { CommandError, createBadValue } from "./errors";
import { collectPathValues, matchesFilter } from "./query-match";

type Document = Record<string, unknown>;

/** One index of a collection: the spec as listIndexes returns it plus its unique entries. */
export type IndexState = {
  name: string;
  spec: Document;
  keyFields: string[];
  unique: boolean;
  sparse: boolean;
  partialFilter?: Document;
  /** Unique indexes only: index key → canonical `_id` of the document holding it. */
  entries: Map<string, string>;
};

/** A key a document contributes to an index, with the values for the error a duplicate gets. */
export type IndexKey = { key: string; values: unknown[] };

const ID_INDEX_NAME = "_id_";

/**
 * The `_id_` index every collection has, with the collection's default collation when it has one
 * (as mongod lists it); never unique-flagged in its spec, as in mongod.
 */
export function createIdIndex(collation?: Document): IndexState {
  const spec: Document = { v: new Int32(2), key: { _id: new Int32(1) }, name: ID_INDEX_NAME, ...(collation ? { collation } : {}) };
  return { name: ID_INDEX_NAME, spec, keyFields: ["_id"], unique: true, sparse: false, entries: new Map() };
}

/**
 * The `_id_` index built from a create command's `idIndex` spec; throws BadValue for another key
 * or for a collation other than the collection's (mongod's rule).
 */
export function createIdIndexFrom(spec: Document, collectionCollation: Document | undefined): IndexState {
  const index = createIndexState(inheritCollation({ ...spec, name: spec.name ?? ID_INDEX_NAME }, collectionCollation));
  if (index.name !== ID_INDEX_NAME || computeCanonicalKey(index.keyFields) !== computeCanonicalKey(["_id"])) {
    throw createBadValue(`The _id index must have key { _id: 1 } and name '_id_': ${JSON.stringify(spec)}`);
  }
  if (computeCanonicalKey(index.spec.collation ?? null) !== computeCanonicalKey(collectionCollation ?? null)) {
    throw createBadValue("'idIndex' must have the same collation as the collection.");
  }
  return index;
}

/** Whether a collation is the simple one, which mongod records as no collation at all. */
export function isSimpleCollation(collation: unknown): boolean {
  return isDocument(collation) && collation.locale === "simple";
}

/**
 * An index spec as mongod records it in a collection with `collectionCollation` as its default:
 * an explicit simple collation is dropped (it is the absence of one), a missing collation is the
 * collection's. This is why mongorestore gives indexes listed without a collation in a collated
 * collection an explicit `{ locale: "simple" }`: otherwise they would inherit the default.
 */
export function inheritCollation(spec: Document, collectionCollation: Document | undefined): Document {
  if (isSimpleCollation(spec.collation)) {
    const { collation: _simple, ...rest } = spec;
    return rest;
  }
  return spec.collation === undefined && collectionCollation ? { ...spec, collation: collectionCollation } : spec;
}

/** Validates a createIndexes spec and builds its state; throws the error mongod gives for bad specs. */
export function createIndexState(rawSpec: Document): IndexState {
  const { key, name, v: _version, ns: _ns, ...options } = rawSpec;
  if (!isDocument(key) || Object.keys(key).length === 0) {
    throw new CommandError(67, `Error in specification ${JSON.stringify(rawSpec)} :: caused by :: The 'key' field must be a non-empty object`);
  }
  if (typeof name !== "string" || name.length === 0) {
    throw new CommandError(9, "Error in specification :: caused by :: The 'name' field is a required property of an index specification");
  }
  if (options.partialFilterExpression !== undefined && !isDocument(options.partialFilterExpression)) {
    throw createBadValue("partialFilterExpression must be an object");
  }
  const unique = readBoolean(options.unique);
  return {
    name,
    spec: { v: new Int32(2), key, name, ...options },
    keyFields: Object.keys(key),
    unique: unique || name === ID_INDEX_NAME,
    sparse: readBoolean(options.sparse),
    partialFilter: options.partialFilterExpression as Document | undefined,
    entries: new Map(),
  };
}

/** Whether two specs describe the same index options (everything but the name). */
export function haveSameOptions(a: Document, b: Document): boolean {
  const strip = ({ name: _name, v: _v, ...rest }: Document) => rest;
  return computeCanonicalKey(strip(a)) === computeCanonicalKey(strip(b));
}

function combineKeyValues(lists: unknown[][]): unknown[][] {
  return lists.reduce<unknown[][]>((rows, list) => rows.flatMap((row) => list.map((value) => [...row, value])), [[]]);
}

/** The keys a document contributes to an index: none when sparse or partial excludes it. */
export function extractIndexKeys(index: IndexState, document: Document): IndexKey[] {
  if (index.partialFilter && !matchesFilter(document, index.partialFilter)) return [];
  let allMissing = true;
  const perField = index.keyFields.map((field) => {
    const values = collectPathValues(document, field).flatMap((value) => (Array.isArray(value) ? (value.length ? value : [undefined]) : [value]));
    const present = values.filter((value) => value !== undefined);
    if (present.length > 0) allMissing = false;
    // A missing field is indexed as null, which is why two documents lacking it collide.
    return present.length > 0 ? present : [null];
  });
  if (allMissing && index.sparse) return [];
  const seen = new Set<string>();
  const keys: IndexKey[] = [];
  for (const values of combineKeyValues(perField)) {
    const key = computeCanonicalKey(values);
    if (seen.has(key)) continue;
    seen.add(key);
    keys.push({ key, values });
  }
  return keys;
}

function formatValue(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "string") return JSON.stringify(value);
  if (value instanceof Date) return `new Date(${value.getTime()})`;
  if (Array.isArray(value)) return `[ ${value.map(formatValue).join(", ")} ]`;
  if (isDocument(value)) return formatDocument(Object.entries(value));
  const tag = (value as { _bsontype?: string })._bsontype;
  if (tag === "ObjectId") return `ObjectId('${(value as { toHexString(): string }).toHexString()}')`;
  if (tag === "Binary") {
    const binary = value as { sub_type: number; buffer: Uint8Array };
    return `BinData(${binary.sub_type}, ${Buffer.from(binary.buffer).toString("hex").toUpperCase()})`;
  }
  if (tag === "Decimal128") return `NumberDecimal("${String(value)}")`;
  if (tag === "Timestamp") {
    const timestamp = value as { t: number; i: number };
    return `Timestamp(${timestamp.t}, ${timestamp.i})`;
  }
  if (tag === "BSONRegExp") {
    const regex = value as { pattern: string; options: string };
    return `/${regex.pattern}/${regex.options}`;
  }
  return String((value as { valueOf(): unknown }).valueOf?.() ?? value);
}

function formatDocument(entries: [string, unknown][]): string {
  return entries.length === 0 ? "{}" : `{ ${entries.map(([name, value]) => `${name}: ${formatValue(value)}`).join(", ")} }`;
}

/** The E11000 error mongod reports, with keyPattern and keyValue as in MongoDB 4.4 and later. */
export function createDuplicateKeyError(ns: string, index: IndexState, values: unknown[]): CommandError {
  const keyValue = Object.fromEntries(index.keyFields.map((field, i) => [field, values[i] ?? null]));
  const message = `E11000 duplicate key error collection: ${ns} index: ${index.name} dup key: ${formatDocument(Object.entries(keyValue))}`;
  return new CommandError(11000, message, { keyPattern: index.spec.key, keyValue });
}
