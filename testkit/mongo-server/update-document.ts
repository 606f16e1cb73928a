// Applying an update to a parsed document. Updated documents are re-encoded by bson from values
// that keep their BSON types (Int32 stays Int32, Double stays Double), so only what the update
// changed differs from the stored bytes. Supported: replacement, $set, $unset, $inc,
// $setOnInsert, $push, $addToSet, $currentDate, and the one pipeline-style update mongorestore
// sends (a whole document as a literal new root, to repair empty timestamps).
import { BSON, Decimal128, Double, Int32, Long, Timestamp } from "bson";
import { isDocument, isNumeric, toNumber } from "./bson-order";
import { CommandError } from "./errors";
import { MAX_BSON_OBJECT_SIZE } from "./limits";
import { areValuesEqual } from "./query-match";

type Document = Record<string, unknown>;
type Container = Document | unknown[];

function readContainer(document: Document, path: string, create: boolean): { parent: Container; field: string } | undefined {
  const segments = path.split(".");
  let current: Container = document;
  for (const segment of segments.slice(0, -1)) {
    const next: unknown = Array.isArray(current) ? current[Number(segment)] : current[segment];
    if (next === undefined || next === null) {
      if (!create) return undefined;
      const fresh: Document = {};
      if (Array.isArray(current)) current[Number(segment)] = fresh;
      else current[segment] = fresh;
      current = fresh;
    } else if (isDocument(next) || Array.isArray(next)) {
      current = next;
    } else {
      throw new CommandError(28, `Cannot create field '${segment}' in element {${segment}: ${String(next)}}`);
    }
  }
  return { parent: current, field: segments.at(-1)! };
}

function setPath(document: Document, path: string, value: unknown): void {
  const { parent, field } = readContainer(document, path, true)!;
  if (Array.isArray(parent)) {
    const index = Number(field);
    while (parent.length < index) parent.push(null);
    parent[index] = value;
  } else {
    parent[field] = value;
  }
}

function getPath(document: Document, path: string): unknown {
  const found = readContainer(document, path, false);
  if (!found) return undefined;
  return Array.isArray(found.parent) ? found.parent[Number(found.field)] : found.parent[found.field];
}

function unsetPath(document: Document, path: string): void {
  const found = readContainer(document, path, false);
  if (!found) return;
  if (Array.isArray(found.parent)) found.parent[Number(found.field)] = null;
  else delete found.parent[found.field];
}

function readBsonTag(value: unknown): string | undefined {
  return (value as { _bsontype?: string } | null)?._bsontype;
}

// $inc keeps MongoDB's type promotion: int32 widens to int64 on overflow, any double makes a double.
function addNumbers(current: unknown, delta: unknown, path: string): unknown {
  if (!isNumeric(delta)) throw new CommandError(14, `Cannot increment with non-numeric argument: {${path}: ${String(delta)}}`);
  if (current === undefined) return delta;
  if (!isNumeric(current)) throw new CommandError(14, `Cannot apply $inc to a value of non-numeric type. The field '${path}' has a non-numeric type`);
  const tags = [readBsonTag(current), readBsonTag(delta)];
  const sum = toNumber(current) + toNumber(delta);
  if (tags.includes("Decimal128")) return Decimal128.fromString(String(sum));
  if (tags.includes("Double") || typeof current === "number" || typeof delta === "number") return new Double(sum);
  if (tags.includes("Long")) return Long.fromString(String(current)).add(Long.fromString(String(delta)));
  return sum >= -(2 ** 31) && sum < 2 ** 31 ? new Int32(sum) : Long.fromNumber(sum);
}

function appendValues(document: Document, path: string, spec: unknown, unique: boolean): void {
  const current = getPath(document, path);
  if (current !== undefined && !Array.isArray(current)) {
    throw new CommandError(2, `The field '${path}' must be an array but is of type ${typeof current}`);
  }
  const values = isDocument(spec) && Array.isArray(spec.$each) ? spec.$each : [spec];
  const array = current ?? [];
  for (const value of values) if (!unique || !array.some((existing) => areValuesEqual(existing, value))) array.push(value);
  setPath(document, path, array);
}

function applyOperator(document: Document, operator: string, fields: Document, inserting: boolean): void {
  for (const [path, value] of Object.entries(fields)) {
    switch (operator) {
      case "$set":
        setPath(document, path, value);
        break;
      case "$setOnInsert":
        if (inserting) setPath(document, path, value);
        break;
      case "$unset":
        unsetPath(document, path);
        break;
      case "$inc":
        setPath(document, path, addNumbers(getPath(document, path), value, path));
        break;
      case "$push":
        appendValues(document, path, value, false);
        break;
      case "$addToSet":
        appendValues(document, path, value, true);
        break;
      case "$currentDate": {
        const wantsTimestamp = isDocument(value) && value.$type === "timestamp";
        setPath(document, path, wantsTimestamp ? Timestamp.fromNumber(Math.floor(Date.now() / 1000) * 2 ** 32) : new Date());
        break;
      }
      default:
        throw new CommandError(9, `Unknown modifier: ${operator}. Expected a valid update modifier or pipeline-style update specified as an array`);
    }
  }
}

/** Whether an update document is a replacement (no operators) rather than operator-style. */
export function isReplacement(update: Document): boolean {
  return !Object.keys(update).some((key) => key.startsWith("$"));
}

/**
 * Returns the updated document, changing `original` in place (callers pass a fresh parse: bson
 * class instances do not survive structuredClone); throws mongod's errors for invalid updates.
 */
export function applyUpdate(original: Document, update: unknown, inserting: boolean): Document {
  if (Array.isArray(update)) return applyPipeline(original, update);
  if (!isDocument(update)) throw new CommandError(9, "Update argument must be either an object or an array");
  if (isReplacement(update)) {
    const { _id: replacementId, ...rest } = update;
    const id = original._id ?? replacementId;
    return id === undefined ? rest : { _id: id, ...rest, ...(replacementId !== undefined ? { _id: replacementId } : {}) };
  }
  for (const [operator, fields] of Object.entries(update)) {
    if (!isDocument(fields)) throw new CommandError(9, `Modifiers operate on fields but we found type ${typeof fields} instead.`);
    applyOperator(original, operator, fields, inserting);
  }
  return original;
}

/**
 * A pipeline of one `$replaceRoot: { newRoot: { $literal: doc } }` (or `$replaceWith: { $literal:
 * doc }`): the document becomes `doc`, keeping the original `_id` when `doc` has none. Other
 * pipelines throw: this server evaluates no aggregation expressions.
 */
function applyPipeline(original: Document, stages: unknown[]): Document {
  const stage = stages.length === 1 && isDocument(stages[0]) ? stages[0] : undefined;
  const root = stage && isDocument(stage.$replaceRoot) ? stage.$replaceRoot.newRoot : stage?.$replaceWith;
  const literal = isDocument(root) && Object.keys(root).length === 1 && isDocument(root.$literal) ? root.$literal : undefined;
  if (!literal) {
    throw new CommandError(
      2,
      "pipeline-style updates other than [{ $replaceRoot: { newRoot: { $literal: <document> } } }] are not supported by the DBVault test server",
    );
  }
  return literal._id === undefined ? { _id: original._id, ...literal } : literal;
}

/** The document an upsert starts from: the equality fields of its filter. */
export function seedFromFilter(filter: Document): Document {
  const seed: Document = {};
  for (const [path, value] of Object.entries(filter)) {
    if (path.startsWith("$")) continue;
    const operatorObject = isDocument(value) && Object.keys(value).some((key) => key.startsWith("$"));
    if (operatorObject) {
      if ("$eq" in value) setPath(seed, path, value.$eq);
      continue;
    }
    setPath(seed, path, value);
  }
  return seed;
}

/**
 * Encodes an updated document; throws mongod's 17419 when it is over 16 MiB. bson's serializer
 * has a 17 MiB buffer: a larger document either fails with a bare RangeError or comes out
 * longer than 16 MiB, so the size is only measured when encoding fails.
 */
export function encodeUpdatedDocument(document: Document): Buffer {
  const tooLarge = () => new CommandError(17419, `Resulting document after update is larger than ${MAX_BSON_OBJECT_SIZE}`);
  let encoded: Uint8Array;
  try {
    encoded = BSON.serialize(document);
  } catch (error) {
    if (error instanceof RangeError && BSON.calculateObjectSize(document) > MAX_BSON_OBJECT_SIZE) throw tooLarge();
    throw error;
  }
  if (encoded.length > MAX_BSON_OBJECT_SIZE) throw tooLarge();
  return Buffer.from(encoded.buffer, encoded.byteOffset, encoded.length);
}
