import { describe, expect, test } from "bun:test";
import { BSON, BSONRegExp, Double, Int32, Long, ObjectId } from "bson";
import { matchesFilter, readIdEquality } from "./query-match";

// Documents and filters reach the matcher deserialized with promoteValues: false.
function parse(value: object): Record<string, unknown> {
  return BSON.deserialize(BSON.serialize(value), { promoteValues: false, bsonRegExp: true });
}

function matches(document: object, filter: object): boolean {
  return matchesFilter(parse(document), parse(filter));
}

describe("matchesFilter", () => {
  test("equality treats numeric types alike and reaches into arrays and dotted paths", () => {
    expect(matches({ a: new Int32(1) }, { a: new Double(1) })).toBe(true);
    expect(matches({ a: Long.fromNumber(1) }, { a: 1 })).toBe(true);
    expect(matches({ a: "1" }, { a: 1 })).toBe(false);
    expect(matches({ tags: ["x", "y"] }, { tags: "y" })).toBe(true);
    expect(matches({ a: { b: [{ c: 3 }, { c: 4 }] } }, { "a.b.c": 4 })).toBe(true);
    expect(matches({ a: [10, 20] }, { "a.1": 20 })).toBe(true);
    expect(matches({ a: { b: 1, c: 2 } }, { a: { c: 2, b: 1 } })).toBe(false); // field order matters
  });

  test("null matches a missing field; $exists tells them apart", () => {
    expect(matches({ b: 1 }, { a: null })).toBe(true);
    expect(matches({ a: null }, { a: { $exists: true } })).toBe(true);
    expect(matches({ b: 1 }, { a: { $exists: true } })).toBe(false);
    expect(matches({ b: 1 }, { a: { $exists: false } })).toBe(true);
  });

  test("range operators compare within a type bracket only", () => {
    expect(matches({ n: 5 }, { n: { $gt: 4, $lte: 5 } })).toBe(true);
    expect(matches({ n: "5" }, { n: { $gt: 4 } })).toBe(false);
    expect(matches({ d: new Date(-1000) }, { d: { $lt: new Date(0) } })).toBe(true);
    expect(matches({ n: [1, 9] }, { n: { $gt: 8 } })).toBe(true);
  });

  test("$in, $nin, $ne, $regex, $and, $or, $nor, $not, $size, $all, $elemMatch, $type", () => {
    const id = new ObjectId();
    expect(matches({ _id: id }, { _id: { $in: [new ObjectId(), id] } })).toBe(true);
    expect(matches({ a: 1 }, { a: { $nin: [1, 2] } })).toBe(false);
    expect(matches({ a: 1 }, { a: { $ne: 2 } })).toBe(true);
    expect(matches({ s: "Hello" }, { s: /^hel/i })).toBe(true);
    expect(matches({ s: "Hello" }, { s: { $regex: "^hel", $options: "i" } })).toBe(true);
    expect(matches({ s: "Hello" }, { s: { $in: [new BSONRegExp("lo$", "")] } })).toBe(true);
    expect(matches({ a: 1, b: 2 }, { $or: [{ a: 2 }, { b: 2 }] })).toBe(true);
    expect(matches({ a: 1 }, { $and: [{ a: 1 }, { a: { $gt: 1 } }] })).toBe(false);
    expect(matches({ a: 1 }, { $nor: [{ a: 2 }] })).toBe(true);
    expect(matches({ a: 5 }, { a: { $not: { $gt: 3 } } })).toBe(false);
    expect(matches({ a: [1, 2, 3] }, { a: { $size: 3, $all: [3, 1] } })).toBe(true);
    expect(
      matches(
        {
          a: [
            { x: 1, y: 2 },
            { x: 2, y: 1 },
          ],
        },
        { a: { $elemMatch: { x: 2, y: 1 } } },
      ),
    ).toBe(true);
    expect(matches({ a: Long.fromNumber(3) }, { a: { $type: "long" } })).toBe(true);
    expect(matches({ a: new Int32(3) }, { a: { $type: "number" } })).toBe(true);
  });

  test("unsupported operators fail loudly instead of matching nothing", () => {
    expect(() => matches({ a: 1 }, { $where: "true" })).toThrow("unknown top level operator: $where");
    expect(() => matches({ a: 1 }, { a: { $near: [0, 0] } })).toThrow("unknown operator: $near");
  });
});

describe("readIdEquality", () => {
  test("recognises only a plain _id equality", () => {
    expect(readIdEquality(parse({ _id: 3 }))).toEqual({ value: new Int32(3) });
    expect(readIdEquality(parse({ _id: { $eq: "x" } }))).toEqual({ value: "x" });
    expect(readIdEquality(parse({ _id: { $gt: 3 } }))).toBeUndefined();
    expect(readIdEquality(parse({ _id: 3, a: 1 }))).toBeUndefined();
  });
});
