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

/** An element name: ASCII ones (nearly all) built directly, others decoded as UTF-8. */
function decodeName(bytes: Uint8Array, start: number, length: number): string {
  let name = "";
  for (let at = start; at < start + length; at++) {
    const byte = bytes[at]!;
    if (byte >= 0x80) return nameDecoder.decode(bytes.subarray(start, start + length));
    name += String.fromCharCode(byte);
  }
  return name;
}

/** Lists the top-level elements of a BSON document; throws bson's error on malformed bytes. */
export function listRawElements(bytes: Uint8Array): RawElement[] {
  return parseElements(bytes).map(([type, nameOffset, nameLength, offset, length]) => ({
    name: decodeName(bytes, nameOffset, nameLength),
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

function frameDocument(elements: Uint8Array[]): Buffer {
  const size = 4 + elements.reduce((sum, element) => sum + element.length, 0) + 1;
  const header = Buffer.alloc(4);
  header.writeInt32LE(size, 0);
  return Buffer.concat([header, ...elements, Buffer.from([0])], size);
}

/** A bson-encoded element, without the document bson wraps it in. */
function encodePlainElement(name: string, value: unknown): Uint8Array {
  const single = BSON.serialize({ [name]: value });
  return single.subarray(4, single.length - 1);
}

const INITIAL_WRITER_BYTES = 64 * 1024;
/** A writer that grew past this for a large reply gives the memory back once done. */
const KEPT_WRITER_BYTES = 1024 * 1024;

/**
 * Writes one document into a buffer it keeps between documents: bson encodes each run of plain
 * fields straight into it, raw documents are copied in, and nested documents are written in
 * place, so a document costs one allocation of its own size.
 */
class DocumentWriter {
  private buffer = Buffer.allocUnsafe(INITIAL_WRITER_BYTES);
  private end = 0;

  compose(fields: Record<string, unknown>): Buffer {
    this.end = 0;
    this.writeDocument(fields);
    const document = Buffer.allocUnsafe(this.end);
    this.buffer.copy(document, 0, 0, this.end);
    if (this.buffer.length > KEPT_WRITER_BYTES) this.buffer = Buffer.allocUnsafe(INITIAL_WRITER_BYTES);
    return document;
  }

  private reserve(bytes: number): void {
    if (this.end + bytes <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.end + bytes));
    this.buffer.copy(grown, 0, 0, this.end);
    this.buffer = grown;
  }

  private writeByte(byte: number): void {
    this.reserve(1);
    this.buffer[this.end++] = byte;
  }

  private writeBytes(bytes: Uint8Array): void {
    this.reserve(bytes.length);
    this.buffer.set(bytes, this.end);
    this.end += bytes.length;
  }

  private writeName(name: string): void {
    this.reserve(Buffer.byteLength(name, "utf8") + 1);
    this.end += this.buffer.write(name, this.end, "utf8");
    this.buffer[this.end++] = 0;
  }

  /** Starts a document; the returned function ends it, writing its terminator and length. */
  private openDocument(): () => void {
    const start = this.end;
    this.reserve(4);
    this.end += 4;
    return () => {
      this.writeByte(0);
      this.buffer.writeInt32LE(this.end - start, start);
    };
  }

  private writeDocument(fields: Record<string, unknown>): void {
    const close = this.openDocument();
    // Consecutive fields without raw values go to bson in one call: each call has a cost.
    let plain: Record<string, unknown> | undefined;
    for (const name of Object.keys(fields)) {
      const value = fields[name];
      if (name !== "__proto__" && !containsRaw(value)) {
        (plain ??= {})[name] = value;
        continue;
      }
      if (plain) this.writePlain(plain);
      plain = undefined;
      this.writeElement(name, value);
    }
    if (plain) this.writePlain(plain);
    close();
  }

  private writeElement(name: string, value: unknown): void {
    if (!containsRaw(value)) {
      this.writeBytes(encodePlainElement(name, value)); // `__proto__`, which an object literal cannot hold as a field
    } else if (value instanceof RawDocuments) {
      this.writeByte(TYPE_ARRAY);
      this.writeName(name);
      const close = this.openDocument();
      for (const [index, document] of value.documents.entries()) {
        this.writeByte(TYPE_DOCUMENT);
        this.writeName(String(index));
        this.writeBytes(document);
      }
      close();
    } else if (value instanceof RawDocument) {
      this.writeByte(TYPE_DOCUMENT);
      this.writeName(name);
      this.writeBytes(value.bytes);
    } else {
      this.writeByte(TYPE_DOCUMENT);
      this.writeName(name);
      this.writeDocument(value as Record<string, unknown>);
    }
  }

  /** Fields bson encodes: written as a document by bson, then unwrapped to its elements. */
  private writePlain(fields: Record<string, unknown>): void {
    let last: number;
    try {
      last = BSON.serializeWithBufferAndIndex(fields, this.buffer, { index: this.end });
    } catch (error) {
      // bson copies its result in and fails when it does not fit: make room and encode again.
      if (!(error instanceof RangeError)) throw error;
      this.reserve(BSON.calculateObjectSize(fields));
      last = BSON.serializeWithBufferAndIndex(fields, this.buffer, { index: this.end });
    }
    const size = last + 1 - this.end;
    this.buffer.copyWithin(this.end, this.end + 4, this.end + size - 1);
    this.end += size - 5;
  }
}

let idleWriter: DocumentWriter | undefined = new DocumentWriter();

/** Encodes a document whose values may include `RawDocuments`, which are copied byte for byte. */
export function composeDocument(fields: Record<string, unknown>): Buffer {
  // A writer serves one document at a time; a call made while one is busy gets its own.
  const writer = idleWriter ?? new DocumentWriter();
  idleWriter = undefined;
  try {
    return writer.compose(fields);
  } finally {
    idleWriter = writer;
  }
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
  return assembleElements([encodePlainElement("_id", createId()), ...slices]);
}

/**
 * A function answering the document of a document's top-level elements named in `names`, in
 * their order, bytes unchanged (what a filter on those fields needs). ASCII names are compared
 * as bytes, without building a string for every element; others are decoded as always.
 */
export function createFieldPicker(names: ReadonlySet<string>): (raw: Uint8Array) => Buffer {
  const asciiNames = [...names].filter((name) => /^[\x01-\x7f]*$/.test(name)).map((name) => Buffer.from(name, "latin1"));
  const isNamed = (raw: Uint8Array, start: number, length: number): boolean => {
    for (let at = start; at < start + length; at++) if (raw[at]! >= 0x80) return names.has(decodeName(raw, start, length));
    return asciiNames.some((name) => name.length === length && name.every((byte, at) => raw[start + at] === byte));
  };
  return (raw) => {
    const kept: Uint8Array[] = [];
    for (const [, nameOffset, nameLength, offset, length] of parseElements(raw)) {
      if (isNamed(raw, nameOffset, nameLength)) kept.push(raw.subarray(nameOffset - 1, offset + length));
    }
    return assembleElements(kept);
  };
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
  for (const [type, nameOffset, nameLength, valueStart] of parseElements(raw)) {
    if (type !== TYPE_TIMESTAMP || raw.readBigUInt64LE(valueStart) !== 0n) continue;
    if (decodeName(raw, nameOffset, nameLength) === "_id") continue;
    copy ??= Buffer.from(raw);
    const { seconds, increment } = next();
    copy.writeUInt32LE(increment, valueStart);
    copy.writeUInt32LE(seconds, valueStart + 4);
  }
  return copy ?? raw;
}
