// Query filter matching for find, count, delete, update and $match, evaluated on documents
// deserialized only for this purpose (the stored bytes are never rebuilt from them). Covers the
// operators a dump/restore tool and ordinary tests use; anything else fails loudly with BadValue.
import { BSONRegExp } from "bson";
import { compareValues, isDocument, isNumeric, rankBsonType, toNumber } from "./bson-order";
import { CommandError, createBadValue } from "./errors";

type Document = Record<string, unknown>;

/** The values a dotted path reaches, expanding arrays as MongoDB does; `undefined` marks "missing". */
export function collectPathValues(value: unknown, path: string): unknown[] {
  const out: unknown[] = [];
  walkPath(value, path.split("."), 0, out);
  return out;
}

function walkPath(value: unknown, segments: string[], index: number, out: unknown[]): void {
  if (index === segments.length) {
    out.push(value);
    return;
  }
  const segment = segments[index]!;
  if (Array.isArray(value)) {
    if (/^\d+$/.test(segment) && Number(segment) < value.length) walkPath(value[Number(segment)], segments, index + 1, out);
    for (const element of value) if (isDocument(element)) walkPath(element, segments, index, out);
    return;
  }
  if (isDocument(value) && Object.hasOwn(value, segment)) walkPath(value[segment], segments, index + 1, out);
  else out.push(undefined);
}

/** Equality as MongoDB's index and $eq see it: same type bracket and same value. */
export function areValuesEqual(a: unknown, b: unknown): boolean {
  return rankBsonType(a) === rankBsonType(b) && compareValues(a, b) === 0;
}

function toRegExp(value: BSONRegExp | RegExp): RegExp {
  if (value instanceof RegExp) return value;
  const flags = [...value.options].filter((flag) => "imsu".includes(flag)).join("");
  return new RegExp(value.pattern, flags);
}

function isRegex(value: unknown): value is BSONRegExp | RegExp {
  return value instanceof BSONRegExp || value instanceof RegExp;
}

function matchesRegex(candidate: unknown, regex: BSONRegExp | RegExp): boolean {
  if (typeof candidate === "string") return toRegExp(regex).test(candidate);
  if (isRegex(candidate)) return areValuesEqual(candidate, regex);
  return false;
}

/** Tests one candidate and, when it is an array, each of its elements. */
function testAnyElement(candidates: unknown[], test: (value: unknown) => boolean): boolean {
  return candidates.some((candidate) => test(candidate) || (Array.isArray(candidate) && candidate.some(test)));
}

function matchesEquality(candidates: unknown[], target: unknown): boolean {
  if (target === null || target === undefined) {
    return testAnyElement(candidates, (value) => value === null || value === undefined);
  }
  if (isRegex(target)) return testAnyElement(candidates, (value) => matchesRegex(value, target));
  return testAnyElement(candidates, (value) => areValuesEqual(value, target));
}

function compareInBracket(value: unknown, target: unknown, accept: (order: number) => boolean): boolean {
  if (value === undefined) return false;
  const sameBracket = rankBsonType(value) === rankBsonType(target) || (isNumeric(value) && isNumeric(target));
  return sameBracket && accept(compareValues(value, target));
}

const typeAliases: Record<string, number> = {
  double: 1,
  string: 2,
  object: 3,
  array: 4,
  binData: 5,
  undefined: 6,
  objectId: 7,
  bool: 8,
  date: 9,
  null: 10,
  regex: 11,
  dbPointer: 12,
  javascript: 13,
  symbol: 14,
  javascriptWithScope: 15,
  int: 16,
  timestamp: 17,
  long: 18,
  decimal: 19,
  minKey: -1,
  maxKey: 127,
};

function readTypeNumber(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (value === null) return 10;
  if (typeof value === "string") return 2;
  if (typeof value === "boolean") return 8;
  if (typeof value === "number") return Number.isInteger(value) ? 16 : 1;
  if (value instanceof Date) return 9;
  if (Array.isArray(value)) return 4;
  const tags: Record<string, number> = {
    Double: 1,
    Int32: 16,
    Long: 18,
    Decimal128: 19,
    Binary: 5,
    ObjectId: 7,
    BSONRegExp: 11,
    DBPointer: 12,
    BSONSymbol: 14,
    Timestamp: 17,
    MinKey: -1,
    MaxKey: 127,
    DBRef: 3,
  };
  const tag = (value as { _bsontype?: string })._bsontype;
  if (tag === "Code") return (value as { scope?: unknown }).scope ? 15 : 13;
  return tag ? tags[tag] : 3;
}

function matchesType(candidates: unknown[], spec: unknown): boolean {
  const wanted = (Array.isArray(spec) ? spec : [spec]).map((entry) =>
    typeof entry === "string" ? (entry === "number" ? "number" : typeAliases[entry]) : toNumber(entry),
  );
  const test = (value: unknown) => {
    const type = readTypeNumber(value);
    return wanted.some((entry) => (entry === "number" ? isNumeric(value) : entry === type));
  };
  return candidates.some((candidate) => test(candidate) || (Array.isArray(candidate) && candidate.some(test)));
}

function matchesElement(element: unknown, spec: Document): boolean {
  const operatorsOnly = Object.keys(spec).every((key) => key.startsWith("$"));
  if (operatorsOnly) return matchesOperators([element], spec);
  return isDocument(element) && matchesFilter(element, spec);
}

function matchesOperator(candidates: unknown[], operator: string, operand: unknown, spec: Document): boolean {
  switch (operator) {
    case "$eq":
      return matchesEquality(candidates, operand);
    case "$ne":
      return !matchesEquality(candidates, operand);
    case "$gt":
      return testAnyElement(candidates, (value) => compareInBracket(value, operand, (order) => order > 0));
    case "$gte":
      return testAnyElement(candidates, (value) => compareInBracket(value, operand, (order) => order >= 0));
    case "$lt":
      return testAnyElement(candidates, (value) => compareInBracket(value, operand, (order) => order < 0));
    case "$lte":
      return testAnyElement(candidates, (value) => compareInBracket(value, operand, (order) => order <= 0));
    case "$in":
    case "$nin": {
      if (!Array.isArray(operand)) throw createBadValue(`${operator} needs an array`);
      const found = operand.some((target) => matchesEquality(candidates, target));
      return operator === "$in" ? found : !found;
    }
    case "$exists": {
      const exists = candidates.some((value) => value !== undefined);
      return (operand === true || (operand !== false && isNumeric(operand) && toNumber(operand) !== 0)) === exists;
    }
    case "$type":
      return matchesType(candidates, operand);
    case "$size":
      return candidates.some((value) => Array.isArray(value) && value.length === toNumber(operand));
    case "$all":
      if (!Array.isArray(operand)) throw createBadValue("$all needs an array");
      return operand.length > 0 && operand.every((target) => matchesEquality(candidates, target));
    case "$elemMatch":
      if (!isDocument(operand)) throw createBadValue("$elemMatch needs an Object");
      return candidates.some((value) => Array.isArray(value) && value.some((element) => matchesElement(element, operand)));
    case "$not":
      if (isRegex(operand)) return !testAnyElement(candidates, (value) => matchesRegex(value, operand));
      if (!isDocument(operand)) throw createBadValue("$not needs a regex or a document");
      return !matchesOperators(candidates, operand);
    case "$regex": {
      const options = typeof spec.$options === "string" ? spec.$options : "";
      const regex = isRegex(operand) ? operand : new BSONRegExp(String(operand), options);
      return testAnyElement(candidates, (value) => matchesRegex(value, regex));
    }
    case "$options":
      return true;
    case "$mod": {
      const [divisor, remainder] = (operand as unknown[]).map(toNumber);
      return testAnyElement(candidates, (value) => isNumeric(value) && Math.trunc(toNumber(value)) % divisor! === remainder);
    }
    default:
      throw createBadValue(`unknown operator: ${operator}`);
  }
}

function matchesOperators(candidates: unknown[], spec: Document): boolean {
  return Object.entries(spec).every(([operator, operand]) => matchesOperator(candidates, operator, operand, spec));
}

function isOperatorObject(value: unknown): value is Document {
  if (!isDocument(value)) return false;
  const first = Object.keys(value)[0];
  return first !== undefined && first.startsWith("$");
}

function matchesLogical(document: Document, operator: string, operand: unknown): boolean {
  if (operator === "$comment") return true;
  if (!Array.isArray(operand) || operand.length === 0) throw createBadValue(`${operator} argument must be a non-empty array`);
  const results = operand.map((clause) => matchesFilter(document, clause as Document));
  if (operator === "$and") return results.every(Boolean);
  if (operator === "$or") return results.some(Boolean);
  return !results.some(Boolean);
}

/** Whether a deserialized document satisfies a query filter; throws BadValue on unsupported operators. */
export function matchesFilter(document: Document, filter: Document): boolean {
  for (const [field, condition] of Object.entries(filter)) {
    if (field.startsWith("$")) {
      if (!["$and", "$or", "$nor", "$comment"].includes(field)) {
        throw new CommandError(2, `unknown top level operator: ${field} (not supported by the DBVault test server)`);
      }
      if (!matchesLogical(document, field, condition)) return false;
      continue;
    }
    const candidates = collectPathValues(document, field);
    const matched = isOperatorObject(condition) ? matchesOperators(candidates, condition) : matchesEquality(candidates, condition);
    if (!matched) return false;
  }
  return true;
}

/** The value of an `_id` equality filter (`{ _id: v }` or `{ _id: { $eq: v } }`), for a direct lookup. */
export function readIdEquality(filter: Document): { value: unknown } | undefined {
  const keys = Object.keys(filter);
  if (keys.length !== 1 || keys[0] !== "_id") return undefined;
  const condition = filter._id;
  if (isRegex(condition) || Array.isArray(condition)) return undefined;
  if (isOperatorObject(condition)) {
    const operators = Object.keys(condition);
    return operators.length === 1 && operators[0] === "$eq" && !isRegex(condition.$eq) ? { value: condition.$eq } : undefined;
  }
  if (condition === null || condition === undefined) return undefined;
  return { value: condition };
}

/**
 * The top-level fields a filter reads (the first segment of each path), or undefined when it
 * has a top-level operator ($and, $or, ...), whose clauses may read any field.
 */
export function readFilterFields(filter: Document): Set<string> | undefined {
  const fields = new Set<string>();
  for (const path of Object.keys(filter)) {
    if (path.startsWith("$")) return undefined;
    fields.add(path.split(".")[0]!);
  }
  return fields;
}
