// MongoDB's `$v: 2` update diffs, as 5.0+ primaries write them into the oplog and secondaries
// (and applyOps) apply them: `d` fields deleted, `u` fields updated in place, `i` fields inserted
// at the end, `s<field>` a sub-diff of an embedded document, and for arrays `{a: true, l: <new
// length>, u<index>: value, s<index>: sub-diff}`. When the change cannot be expressed this way
// without reordering fields, the caller logs the whole new document instead, as mongod does
// when a diff would not be smaller.
import { BSON } from "bson";
import { isDocument } from "../bson-order";
import { CommandError } from "../errors";

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

/**
 * The diff that turns `before` into `after` (`{}` when nothing changed), or undefined when the
 * fields kept changed order, which a diff cannot express.
 */
export function diffDocuments(before: Document, after: Document): Document | undefined {
  const kept = Object.keys(before).filter((key) => key in after);
  const afterKeys = Object.keys(after);
  if (afterKeys.slice(0, kept.length).join("\0") !== kept.join("\0")) return undefined;
  const deleted = Object.keys(before).filter((key) => !(key in after));
  const updated: Document = {};
  const subDiffs: Document = {};
  for (const key of kept) {
    if (sameBytes(before[key], after[key])) continue;
    const nested = diffValue(before[key], after[key]);
    if (nested === "replace" || nested === undefined) updated[key] = after[key];
    else subDiffs[`s${key}`] = nested;
  }
  const inserted = Object.fromEntries(afterKeys.slice(kept.length).map((key) => [key, after[key]]));
  const diff: Document = {};
  if (deleted.length > 0) diff.d = Object.fromEntries(deleted.map((key) => [key, false]));
  if (Object.keys(updated).length > 0) diff.u = updated;
  if (Object.keys(inserted).length > 0) diff.i = inserted;
  return { ...diff, ...subDiffs };
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
