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

/** Lists the top-level elements of a BSON document; throws bson's error on malformed bytes. */
export function listRawElements(bytes: Uint8Array): RawElement[] {
  const decoder = new TextDecoder();
  return [...onDemand.parseToElements(bytes)].map(([type, nameOffset, nameLength, offset, length]) => ({
    name: decoder.decode(bytes.subarray(nameOffset, nameOffset + nameLength)),
    type,
    start: nameOffset - 1,
    end: offset + length,
    valueStart: offset,
  }));
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
  return frameDocument(Object.entries(fields).map(([name, value]) => encodeElement(name, value)));
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

/**
 * Applies a top-level projection (`{ a: 1 }` keeps a and _id, `{ a: 0 }` drops a) by copying whole
 * elements, so the values that remain keep their exact bytes.
 */
export function projectRawDocument(raw: Uint8Array, projection: Map<string, boolean>): Buffer {
  const includeMode = [...projection].some(([name, keep]) => keep && name !== "_id");
  const elements = listRawElements(raw).filter((element) => {
    const rule = projection.get(element.name);
    if (element.name === "_id") return rule !== false;
    return includeMode ? rule === true : rule !== false;
  });
  return assembleElements(elements.map((element) => raw.subarray(element.start, element.end)));
}

/**
 * Returns the document with every top-level `Timestamp(0, 0)` but `_id`'s set to a fresh cluster
 * time from `next`, as mongod does on insert (SERVER-43014: `_id` is left alone); the same bytes
 * when there is none. Nested timestamps are never replaced.
 */
export function replaceEmptyTimestamps(raw: Buffer, next: () => { seconds: number; increment: number }): Buffer {
  let copy: Buffer | undefined;
  for (const element of listRawElements(raw)) {
    if (element.type !== TYPE_TIMESTAMP || element.name === "_id") continue;
    if (raw.readBigUInt64LE(element.valueStart) !== 0n) continue;
    copy ??= Buffer.from(raw);
    const { seconds, increment } = next();
    copy.writeUInt32LE(increment, element.valueStart);
    copy.writeUInt32LE(seconds, element.valueStart + 4);
  }
  return copy ?? raw;
}
