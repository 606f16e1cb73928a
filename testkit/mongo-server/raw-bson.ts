// Documents are kept as the exact bytes a client sent. The `bson` package parses and encodes
// values, but it cannot embed an already-encoded document in a new one without decoding and
// re-encoding it, and re-encoding is not byte-exact (BSON undefined, NaN payloads, duplicate
// field names, invalid UTF-8). So this file does the one thing bson cannot: splice raw documents
// and raw elements into documents whose other fields bson itself encodes. Element boundaries
// always come from bson's own `onDemand.parseToElements`.
import { BSON, onDemand } from "bson";

const TYPE_DOCUMENT = 0x03;
const TYPE_ARRAY = 0x04;
const TYPE_TIMESTAMP = 0x11;

/** Pre-encoded documents that `composeDocument` writes as a BSON array, unchanged. */
export class RawDocuments {
  constructor(readonly documents: readonly Uint8Array[]) {}
}

/** One pre-encoded document that `composeDocument` writes as an embedded document, unchanged. */
export class RawDocument {
  constructor(readonly bytes: Uint8Array) {}
}

/** One top-level element of a raw document: its name and the byte range of type, name and value. */
export type RawElement = { name: string; type: number; start: number; end: number; valueStart: number };

const nameDecoder = new TextDecoder();

/** `[type, nameOffset, nameLength, valueOffset, valueLength]` of each top-level element. */
type ElementTuple = [number, number, number, number, number];
// bson's parseToElements builds an array (its type says Iterable): indexed here, not copied.
const parseElements = onDemand.parseToElements as (bytes: Uint8Array) => ElementTuple[];

/** Lists the top-level elements of a BSON document; throws bson's error on malformed bytes. */
export function listRawElements(bytes: Uint8Array): RawElement[] {
  return parseElements(bytes).map(([type, nameOffset, nameLength, offset, length]) => ({
    name: nameDecoder.decode(bytes.subarray(nameOffset, nameOffset + nameLength)),
    type,
    start: nameOffset - 1,
    end: offset + length,
    valueStart: offset,
  }));
}

/** Throws bson's error when the top-level elements of a document are malformed. */
export function assertWellFormed(bytes: Uint8Array): void {
  parseElements(bytes);
}

/** Whether a document's first element is `_id` (as every stored document's is). */
function startsWithId(raw: Uint8Array): boolean {
  return raw.length > 9 && raw[4] !== 0 && raw[5] === 0x5f && raw[6] === 0x69 && raw[7] === 0x64 && raw[8] === 0;
}

/** The `_id` element (type, name and value bytes) of a document, or undefined when it has none. */
export function readIdElement(raw: Uint8Array): Uint8Array | undefined {
  if (startsWithId(raw)) {
    const [, , , offset, length] = parseElements(raw)[0]!;
    return raw.subarray(4, offset + length);
  }
  const id = listRawElements(raw).find((element) => element.name === "_id");
  return id ? raw.subarray(id.start, id.end) : undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object") return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function containsRaw(value: unknown): boolean {
  if (value instanceof RawDocuments || value instanceof RawDocument) return true;
  return isPlainObject(value) && Object.values(value).some(containsRaw);
}

function encodeName(name: string): Uint8Array {
  return Buffer.concat([Buffer.from(name, "utf8"), Buffer.from([0])]);
}

function frameDocument(elements: Uint8Array[]): Buffer {
  const size = 4 + elements.reduce((sum, element) => sum + element.length, 0) + 1;
  const header = Buffer.alloc(4);
  header.writeInt32LE(size, 0);
  return Buffer.concat([header, ...elements, Buffer.from([0])], size);
}

function encodeRawArray(documents: readonly Uint8Array[]): Buffer {
  return frameDocument(documents.map((document, index) => Buffer.concat([Buffer.from([TYPE_DOCUMENT]), encodeName(String(index)), document])));
}

function encodeElement(name: string, value: unknown): Uint8Array {
  if (value instanceof RawDocuments) {
    return Buffer.concat([Buffer.from([TYPE_ARRAY]), encodeName(name), encodeRawArray(value.documents)]);
  }
  if (value instanceof RawDocument) return Buffer.concat([Buffer.from([TYPE_DOCUMENT]), encodeName(name), value.bytes]);
  if (containsRaw(value)) {
    return Buffer.concat([Buffer.from([TYPE_DOCUMENT]), encodeName(name), composeDocument(value as Record<string, unknown>)]);
  }
  const single = BSON.serialize({ [name]: value });
  return single.subarray(4, single.length - 1);
}

/** Encodes a document whose values may include `RawDocuments`, which are copied byte for byte. */
export function composeDocument(fields: Record<string, unknown>): Buffer {
  const parts: Uint8Array[] = [];
  // Consecutive fields without raw values are encoded by one bson call: each call has a cost.
  let plain: Record<string, unknown> = {};
  let plainCount = 0;
  const encodePlain = () => {
    if (plainCount === 0) return;
    const encoded = BSON.serialize(plain);
    parts.push(encoded.subarray(4, encoded.length - 1));
    plain = {};
    plainCount = 0;
  };
  for (const [name, value] of Object.entries(fields)) {
    if (name !== "__proto__" && !containsRaw(value)) {
      plain[name] = value;
      plainCount++;
      continue;
    }
    encodePlain();
    parts.push(encodeElement(name, value));
  }
  encodePlain();
  return frameDocument(parts);
}

/** Builds a document from whole raw elements of other documents, in the order given. */
export function assembleElements(parts: Uint8Array[]): Buffer {
  return frameDocument(parts);
}

/** Copies out the documents of a top-level array field, or undefined when the field is absent. */
export function readRawArray(bytes: Uint8Array, fieldName: string): Buffer[] | undefined {
  const field = listRawElements(bytes).find((element) => element.name === fieldName);
  if (!field) return undefined;
  if (field.type !== TYPE_ARRAY) return [];
  const arrayBytes = bytes.subarray(field.valueStart, field.end);
  return listRawElements(arrayBytes)
    .filter((element) => element.type === TYPE_DOCUMENT)
    .map((element) => Buffer.from(arrayBytes.subarray(element.valueStart, element.end)));
}

/** The bytes of a top-level embedded document field, or undefined when absent or not a document. */
export function readRawDocumentField(bytes: Uint8Array, fieldName: string): Buffer | undefined {
  const field = listRawElements(bytes).find((element) => element.name === fieldName);
  return field?.type === TYPE_DOCUMENT ? Buffer.from(bytes.subarray(field.valueStart, field.end)) : undefined;
}

/**
 * Returns the document with `_id` as its first field, as mongod stores it: an `_id` found later is
 * moved to the front, a missing one is created from `createId`. Other bytes stay as they were.
 */
export function placeIdFirst(raw: Buffer, createId: () => unknown): Buffer {
  if (startsWithId(raw)) return raw;
  const elements = listRawElements(raw);
  const idIndex = elements.findIndex((element) => element.name === "_id");
  if (idIndex === 0) return raw;
  const slices = elements.map((element) => raw.subarray(element.start, element.end));
  if (idIndex > 0) {
    const [idSlice] = slices.splice(idIndex, 1);
    return assembleElements([idSlice!, ...slices]);
  }
  return assembleElements([encodeElement("_id", createId()), ...slices]);
}

/** A document of the top-level elements whose names `keep` accepts, in their order, bytes unchanged. */
function keepRawFields(raw: Uint8Array, keep: (name: string) => boolean): Buffer {
  const kept = listRawElements(raw).filter((element) => keep(element.name));
  return assembleElements(kept.map((element) => raw.subarray(element.start, element.end)));
}

/** A document of the top-level elements named in `names`, in their order, bytes unchanged. */
export function pickRawFields(raw: Uint8Array, names: ReadonlySet<string>): Buffer {
  return keepRawFields(raw, (name) => names.has(name));
}

/**
 * Applies a top-level projection (`{ a: 1 }` keeps a and _id, `{ a: 0 }` drops a) by copying whole
 * elements, so the values that remain keep their exact bytes.
 */
export function projectRawDocument(raw: Uint8Array, projection: Map<string, boolean>): Buffer {
  const includeMode = [...projection].some(([name, keep]) => keep && name !== "_id");
  return keepRawFields(raw, (name) => {
    const rule = projection.get(name);
    if (name === "_id") return rule !== false;
    return includeMode ? rule === true : rule !== false;
  });
}

/**
 * Returns the document with every top-level `Timestamp(0, 0)` but `_id`'s set to a fresh cluster
 * time from `next`, as mongod does on insert (SERVER-43014: `_id` is left alone); the same bytes
 * when there is none. Nested timestamps are never replaced.
 */
export function replaceEmptyTimestamps(raw: Buffer, next: () => { seconds: number; increment: number }): Buffer {
  let copy: Buffer | undefined;
  for (const [type, nameOffset, nameLength, valueStart] of parseElements(raw)) {
    if (type !== TYPE_TIMESTAMP || raw.readBigUInt64LE(valueStart) !== 0n) continue;
    if (nameDecoder.decode(raw.subarray(nameOffset, nameOffset + nameLength)) === "_id") continue;
    copy ??= Buffer.from(raw);
    const { seconds, increment } = next();
    copy.writeUInt32LE(increment, valueStart);
    copy.writeUInt32LE(seconds, valueStart + 4);
  }
  return copy ?? raw;
}
