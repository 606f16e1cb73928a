// MongoDB's comparison order across BSON types, used for sorting, range operators and index keys.
// Values come from bson's deserialize with promoteValues: false, so numbers arrive as Int32,
// Double and Long wrappers; all numeric types compare by value, as in MongoDB (1 == 1.0 == 1L).
import { EJSON } from "bson";

type Tagged = { _bsontype?: string };

function readBsonTag(value: unknown): string | undefined {
  return value !== null && typeof value === "object" ? (value as Tagged)._bsontype : undefined;
}

/** Whether a value is one of BSON's numeric types (or a plain JS number). */
export function isNumeric(value: unknown): boolean {
  const tag = readBsonTag(value);
  return typeof value === "number" || tag === "Int32" || tag === "Double" || tag === "Long" || tag === "Decimal128";
}

/** Whether a value is a plain embedded document (not an array, not a BSON class). */
export function isDocument(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value) && !(value instanceof Date) && readBsonTag(value) === undefined;
}

/** The number a numeric BSON value stands for (Long and Decimal128 may lose precision). */
export function toNumber(value: unknown): number {
  if (typeof value === "number") return value;
  const tag = readBsonTag(value);
  if (tag === "Int32" || tag === "Double") return (value as { value: number }).value;
  if (tag === "Long") return (value as { toNumber(): number }).toNumber();
  if (tag === "Decimal128") return Number(String(value));
  return Number.NaN;
}

/** MongoDB's canonical type order; numbers share one rank and so do strings and symbols. */
export function rankBsonType(value: unknown): number {
  if (value === undefined || value === null) return 2;
  if (typeof value === "number" || isNumeric(value)) return 3;
  if (typeof value === "string") return 4;
  if (typeof value === "boolean") return 9;
  if (value instanceof Date) return 10;
  if (Array.isArray(value)) return 6;
  switch (readBsonTag(value)) {
    case "MinKey":
      return 1;
    case "BSONSymbol":
      return 4;
    case "DBRef":
      return 5;
    case "Binary":
      return 7;
    case "ObjectId":
      return 8;
    case "Timestamp":
      return 11;
    case "BSONRegExp":
      return 12;
    case "DBPointer":
      return 12.5;
    case "Code":
      return 13;
    case "MaxKey":
      return 100;
    case undefined:
      return 5;
    default:
      return 50;
  }
}

function compareNumbers(a: unknown, b: unknown): number {
  if (readBsonTag(a) === "Long" && readBsonTag(b) === "Long") {
    return (a as { compare(other: unknown): number }).compare(b);
  }
  const x = toNumber(a);
  const y = toNumber(b);
  // MongoDB sorts NaN below every other number and equal to itself.
  if (Number.isNaN(x) || Number.isNaN(y)) return Number.isNaN(x) ? (Number.isNaN(y) ? 0 : -1) : 1;
  return x < y ? -1 : x > y ? 1 : 0;
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

function compareObjects(a: Record<string, unknown>, b: Record<string, unknown>): number {
  const left = Object.entries(a);
  const right = Object.entries(b);
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const [ka, va] = left[i]!;
    const [kb, vb] = right[i]!;
    const byType = rankBsonType(va) - rankBsonType(vb);
    if (byType !== 0) return Math.sign(byType);
    if (ka !== kb) return ka < kb ? -1 : 1;
    const byValue = compareValues(va, vb);
    if (byValue !== 0) return byValue;
  }
  return Math.sign(left.length - right.length);
}

/** Orders two BSON values the way MongoDB sorts them: negative, zero or positive. */
export function compareValues(a: unknown, b: unknown): number {
  const byRank = rankBsonType(a) - rankBsonType(b);
  if (byRank !== 0) return Math.sign(byRank);
  const rank = rankBsonType(a);
  if (rank === 3) return compareNumbers(a, b);
  if (rank === 4) return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
  if (rank === 9) return Number(a) - Number(b);
  if (rank === 10) return Math.sign((a as Date).getTime() - (b as Date).getTime());
  if (rank === 6) {
    const left = a as unknown[];
    const right = b as unknown[];
    for (let i = 0; i < Math.min(left.length, right.length); i++) {
      const byElement = compareValues(left[i], right[i]);
      if (byElement !== 0) return byElement;
    }
    return Math.sign(left.length - right.length);
  }
  if (rank === 5 && isDocument(a) && isDocument(b)) return compareObjects(a, b);
  switch (readBsonTag(a)) {
    case "Binary": {
      const [x, y] = [a, b] as { sub_type: number; buffer: Uint8Array }[];
      if (x!.buffer.length !== y!.buffer.length) return x!.buffer.length < y!.buffer.length ? -1 : 1;
      if (x!.sub_type !== y!.sub_type) return x!.sub_type < y!.sub_type ? -1 : 1;
      return compareBytes(x!.buffer, y!.buffer);
    }
    case "ObjectId":
      return compareBytes((a as { id: Uint8Array }).id, (b as { id: Uint8Array }).id);
    case "Timestamp":
      return (a as { compare(other: unknown): number }).compare(b);
  }
  const x = computeCanonicalKey(a);
  const y = computeCanonicalKey(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

function formatCanonicalNumber(value: unknown): string {
  if (readBsonTag(value) === "Long") return String(value);
  const number = toNumber(value);
  if (Object.is(number, -0)) return "0";
  return String(number);
}

/**
 * A string that is equal for exactly the values MongoDB treats as equal in an index
 * (numbers by value, documents by field order and value); used for unique keys and `_id` lookups.
 */
export function computeCanonicalKey(value: unknown): string {
  if (value === undefined || value === null) return "null";
  if (typeof value === "string") return `s${JSON.stringify(value)}`;
  if (typeof value === "boolean") return value ? "true" : "false";
  if (value instanceof Date) return `d${value.getTime()}`;
  if (isNumeric(value)) return `n${formatCanonicalNumber(value)}`;
  if (Array.isArray(value)) return `[${value.map(computeCanonicalKey).join(",")}]`;
  if (isDocument(value)) {
    return `{${Object.entries(value)
      .map(([name, field]) => `${JSON.stringify(name)}:${computeCanonicalKey(field)}`)
      .join(",")}}`;
  }
  switch (readBsonTag(value)) {
    case "ObjectId":
      return `o${(value as { toHexString(): string }).toHexString()}`;
    case "MinKey":
      return "minKey";
    case "MaxKey":
      return "maxKey";
    case "BSONSymbol":
      return `s${JSON.stringify(String((value as { value: string }).value))}`;
  }
  return `x${EJSON.stringify(value as never, { relaxed: false })}`;
}
