// The oplog's `$v: 2` diff is computed from the two encoded versions of a document, parsing only
// the fields whose bytes differ; these cases check it answers what the diff of the two parsed
// documents answers, including where raw names and parsed objects part ways.
import { describe, expect, test } from "bun:test";
import { BSON, Decimal128, Double, Int32, Long, ObjectId } from "bson";
import { parseStoredDocument } from "../collection-state";
import { assembleElements, listRawElements } from "../raw-bson";
import { diffDocuments, diffEncodedDocuments } from "./update-diff";

type Document = Record<string, unknown>;

const encode = (document: Document) => Buffer.from(BSON.serialize(document));

/** Both diffs, encoded (so BSON types count), or "none" when the diff cannot express the change. */
function bothDiffs(before: Buffer, after: Buffer): { parsed: string; encoded: string } {
  const show = (diff: Document | undefined) => (diff ? Buffer.from(BSON.serialize({ diff })).toString("hex") : "none");
  return {
    parsed: show(diffDocuments(parseStoredDocument(before), parseStoredDocument(after))),
    encoded: show(diffEncodedDocuments(before, after)),
  };
}

function expectSameDiff(before: Buffer, after: Buffer): void {
  const { parsed, encoded } = bothDiffs(before, after);
  expect(encoded).toBe(parsed);
}

const base = {
  _id: new Int32(7),
  i: new Int32(7),
  name: "customer 7 delta",
  createdAt: new Date(Date.UTC(2020, 0, 1)),
  amount: Decimal128.fromString("7.07"),
  tags: ["a", "b", "t7"],
  address: { street: "7 main street", city: "springfield", zip: "10007" },
  payload: "x".repeat(700),
};

describe("diffEncodedDocuments", () => {
  test("an operator update ($set of a new field, $inc) gives the parsed documents' diff", () => {
    const after = { ...base, status: "s1", touched: new Int32(1) };
    expectSameDiff(encode(base), encode(after));
    expect(diffEncodedDocuments(encode(base), encode(after))).toEqual({ i: { status: "s1", touched: new Int32(1) } });
    const again = { ...after, status: "s2", touched: new Int32(2) };
    expectSameDiff(encode(after), encode(again));
    expect(diffEncodedDocuments(encode(after), encode(again))).toEqual({ u: { status: "s2", touched: new Int32(2) } });
  });

  test("deleted fields, numeric type changes, nested documents and arrays", () => {
    const before = encode({ ...base, n: new Int32(1), extra: true });
    const { extra: _extra, ...rest } = { ...base, n: new Int32(1), extra: true };
    const cases: Document[] = [
      { ...rest, n: new Double(1) },
      { ...rest, n: new Long(1) },
      { ...rest, address: { ...base.address, city: "shelbyville" } },
      { ...rest, address: { city: "x", street: "y" } },
      { ...rest, tags: ["a", "c"] },
      { ...rest, tags: ["a", "b", "t7", "t8"] },
      { ...rest, tags: "not an array" },
      { ...rest, amount: Decimal128.fromString("8.08"), createdAt: new Date(0) },
      { ...rest, _id: new ObjectId() },
      rest,
    ];
    for (const after of cases) expectSameDiff(before, encode(after));
  });

  test("fields that changed order cannot be diffed either way", () => {
    const { name, ...rest } = base;
    expect(bothDiffs(encode(base), encode({ ...rest, name }))).toEqual({ parsed: "none", encoded: "none" });
  });

  test("an unchanged document gives an empty diff", () => {
    expect(diffEncodedDocuments(encode(base), encode(base))).toEqual({});
  });

  test("names a parsed object reorders, merges or inherits take the parsed path", () => {
    // Integer-like names: an object lists them first, whatever the bytes' order.
    expectSameDiff(encode({ _id: 1, b: 1, "2": 1 }), encode({ _id: 1, b: 2, "2": 1, "10": 3 }));
    // A name every object inherits: `in` finds it on an object without the field.
    expectSameDiff(encode({ _id: 1, constructor: 1, a: 1 }), encode({ _id: 1, a: 2 }));
    // A repeated name (only a client can send one): parsing keeps the last value.
    const raw = encode({ _id: 1, a: 1, b: 2 });
    const [id, a, b] = listRawElements(raw).map((element) => raw.subarray(element.start, element.end));
    const repeated = assembleElements([id!, a!, b!, Buffer.from(encode({ a: 5 }).subarray(4, -1))]);
    expectSameDiff(repeated, encode({ _id: 1, a: 5, b: 3 }));
  });

  test("a field whose bytes differ is compared as parsed values, as before", () => {
    // BSON undefined (0x06) where the new version has null (an updated document is re-encoded).
    const withUndefined = Buffer.from(encode({ _id: 1, a: null, b: 1 }));
    withUndefined[listRawElements(withUndefined)[1]!.start] = 0x06;
    expectSameDiff(withUndefined, encode({ _id: 1, a: null, b: 2 }));
  });
});
