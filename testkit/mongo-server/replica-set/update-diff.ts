// MongoDB's `$v: 2` update diffs, as 5.0+ primaries write them into the oplog and secondaries
// (and applyOps) apply them: `d` fields deleted, `u` fields updated in place, `i` fields inserted
// at the end, `s<field>` a sub-diff of an embedded document, and for arrays `{a: true, l: <new
// length>, u<index>: value, s<index>: sub-diff}`. When the change cannot be expressed this way
// without reordering fields, the caller logs the whole new document instead, as mongod does
// when a diff would not be smaller.
import { BSON } from "bson";
import { isDocument } from "../bson-order";
import { parseStoredDocument } from "../collection-state";
import { CommandError } from "../errors";
import { listRawElements } from "../raw-bson";

type Document = Record<string, unknown>;

function sameBytes(a: unknown, b: unknown): boolean {
  return Buffer.compare(Buffer.from(BSON.serialize({ v: a })), Buffer.from(BSON.serialize({ v: b }))) === 0;
}

function diffValue(before: unknown, after: unknown): Document | undefined | "replace" {
  if (isDocument(before) && isDocument(after)) return diffDocuments(before, after) ?? "replace";
  if (Array.isArray(before) && Array.isArray(after)) return diffArrays(before, after);
  return "replace";
}

function diffArrays(before: unknown[], after: unknown[]): Document {
  const diff: Document = { a: true };
  if (after.length < before.length) diff.l = after.length;
  for (const [index, value] of after.entries()) {
    if (index < before.length && sameBytes(before[index], value)) continue;
    const nested = index < before.length ? diffValue(before[index], value) : "replace";
    if (nested === "replace" || nested === undefined) diff[`u${index}`] = value;
    else diff[`s${index}`] = nested;
  }
  return diff;
}

/** A document's top-level fields as the diff reads them: names in order, presence, values. */
type Fields = { keys: string[]; has(key: string): boolean; get(key: string): unknown };

function readParsedFields(document: Document): Fields {
  return { keys: Object.keys(document), has: (key) => key in document, get: (key) => document[key] };
}

// `unchanged` may answer early for fields known to be equal without parsing them; the rest are
// compared as parsed values (two values of different bytes may still serialize alike).
function diffFields(before: Fields, after: Fields, unchanged: (key: string) => boolean): Document | undefined {
  const kept = before.keys.filter((key) => after.has(key));
  if (after.keys.slice(0, kept.length).join("\0") !== kept.join("\0")) return undefined;
  const deleted = before.keys.filter((key) => !after.has(key));
  const updated: Document = {};
  const subDiffs: Document = {};
  for (const key of kept) {
    if (unchanged(key)) continue;
    const [was, now] = [before.get(key), after.get(key)];
    if (sameBytes(was, now)) continue;
    const nested = diffValue(was, now);
    if (nested === "replace" || nested === undefined) updated[key] = now;
    else subDiffs[`s${key}`] = nested;
  }
  const inserted = Object.fromEntries(after.keys.slice(kept.length).map((key) => [key, after.get(key)]));
  const diff: Document = {};
  if (deleted.length > 0) diff.d = Object.fromEntries(deleted.map((key) => [key, false]));
  if (Object.keys(updated).length > 0) diff.u = updated;
  if (Object.keys(inserted).length > 0) diff.i = inserted;
  return { ...diff, ...subDiffs };
}

/**
 * The diff that turns `before` into `after` (`{}` when nothing changed), or undefined when the
 * fields kept changed order, which a diff cannot express.
 */
export function diffDocuments(before: Document, after: Document): Document | undefined {
  return diffFields(readParsedFields(before), readParsedFields(after), () => false);
}

/** The value of one element (its type, name and value bytes), parsed as stored documents are. */
function parseElement(element: Uint8Array): unknown {
  const framed = Buffer.alloc(element.length + 5);
  framed.writeInt32LE(framed.length, 0);
  framed.set(element, 4);
  return Object.values(parseStoredDocument(framed))[0];
}

/** An element's bytes (type, name, value) within its document. */
type ElementRange = { start: number; end: number };

/**
 * The top-level fields of an encoded document, each parsed only when asked for. `read` answers
 * undefined when a parsed object might not keep the names as they are: integer-like names
 * (objects list them first), repeated names (parsing keeps one), names objects inherit (`in`
 * sees them), names with invalid UTF-8 (two may decode alike) and `$` names (`$ref` and `$id`
 * make a DBRef).
 */
class RawFields implements Fields {
  private constructor(
    private readonly raw: Buffer,
    private readonly elements: Map<string, ElementRange>,
    readonly keys: string[],
  ) {}

  static read(raw: Buffer): RawFields | undefined {
    const elements = new Map<string, ElementRange>();
    for (const { name, start, end } of listRawElements(raw)) {
      if (elements.has(name) || /^\d+$|^\$|\uFFFD/.test(name) || name in Object.prototype) return undefined;
      elements.set(name, { start, end });
    }
    return new RawFields(raw, elements, [...elements.keys()]);
  }

  has(key: string): boolean {
    return this.elements.has(key);
  }

  get(key: string): unknown {
    const { start, end } = this.elements.get(key)!;
    return parseElement(this.raw.subarray(start, end));
  }

  /** Whether a field both hold has the same type and value bytes in each (so parses alike). */
  holdsSameBytes(other: RawFields, key: string): boolean {
    const mine = this.elements.get(key)!;
    const theirs = other.elements.get(key)!;
    return this.raw.compare(other.raw, theirs.start, theirs.end, mine.start, mine.end) === 0;
  }
}

/**
 * What `diffDocuments` answers for the two documents parsed, without parsing what both hold
 * byte for byte: an update's diff then costs a parse of the fields it changed, not of both
 * versions of the document.
 */
export function diffEncodedDocuments(before: Buffer, after: Buffer): Document | undefined {
  const [was, now] = [RawFields.read(before), RawFields.read(after)];
  if (!was || !now) return diffDocuments(parseStoredDocument(before), parseStoredDocument(after));
  return diffFields(was, now, (key) => was.holdsSameBytes(now, key));
}

function applyArrayDiff(array: unknown[], diff: Document): unknown[] {
  const result = [...array];
  if (diff.l !== undefined && diff.l !== null) result.length = Number(diff.l.valueOf());
  for (const [key, value] of Object.entries(diff)) {
    if (key === "a" || key === "l") continue;
    const index = Number(key.slice(1));
    while (result.length < index) result.push(null);
    if (key.startsWith("u")) result[index] = value;
    else if (key.startsWith("s") && isDocument(value)) result[index] = applySubDiff(result[index], value);
    else throw new CommandError(2, `unknown array diff field '${key}'`);
  }
  return result;
}

function applySubDiff(current: unknown, diff: Document): unknown {
  if (diff.a === true) return applyArrayDiff(Array.isArray(current) ? current : [], diff);
  const document = isDocument(current) ? current : {};
  applyDiff(document, diff);
  return document;
}

/** Applies a `$v: 2` diff to a parsed document in place, as oplog application does. */
export function applyDiff(document: Document, diff: Document): void {
  for (const [key, value] of Object.entries(diff)) {
    if (key === "d" && isDocument(value)) {
      for (const field of Object.keys(value)) delete document[field];
    } else if (key === "u" && isDocument(value)) {
      Object.assign(document, value);
    } else if (key === "i" && isDocument(value)) {
      for (const [field, inserted] of Object.entries(value)) {
        delete document[field];
        document[field] = inserted;
      }
    } else if (key.startsWith("s") && isDocument(value)) {
      document[key.slice(1)] = applySubDiff(document[key.slice(1)], value);
    } else {
      throw new CommandError(2, `unknown update diff field '${key}'`);
    }
  }
}
