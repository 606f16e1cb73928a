import { describe, expect, test } from "bun:test";
import { BSON, Double, Int32, ObjectId } from "bson";
import {
  assembleElements,
  composeDocument,
  createFieldPicker,
  listRawElements,
  placeIdFirst,
  projectRawDocument,
  RawDocuments,
  readRawArray,
} from "./raw-bson";

describe("composeDocument", () => {
  test("embeds raw documents byte for byte inside an otherwise bson-encoded reply", () => {
    const stored = [BSON.serialize({ _id: 1, v: new Double(2) }), BSON.serialize({ _id: 2, s: "é" })];
    const reply = composeDocument({ cursor: { firstBatch: new RawDocuments(stored), id: 0, ns: "d.c" }, ok: new Double(1) });
    const expected = BSON.serialize({
      cursor: { firstBatch: stored.map((raw) => BSON.deserialize(raw, { promoteValues: false })), id: 0, ns: "d.c" },
      ok: new Double(1),
    });
    expect(Buffer.from(reply).equals(Buffer.from(expected))).toBe(true);
    const batch = BSON.deserialize(reply, { fieldsAsRaw: { firstBatch: true } }).cursor.firstBatch as Buffer[];
    expect(batch.map((raw) => Buffer.from(raw).toString("hex"))).toEqual(stored.map((raw) => Buffer.from(raw).toString("hex")));
  });
});

describe("placeIdFirst", () => {
  test("leaves a document that starts with _id untouched", () => {
    const raw = Buffer.from(BSON.serialize({ _id: 5, a: 1 }));
    expect(placeIdFirst(raw, () => 0)).toBe(raw);
  });

  test("moves a later _id to the front and keeps the other fields' bytes in order", () => {
    const raw = Buffer.from(BSON.serialize({ a: new Int32(1), b: "x", _id: 9 }));
    const moved = placeIdFirst(raw, () => 0);
    expect(listRawElements(moved).map((element) => element.name)).toEqual(["_id", "a", "b"]);
    expect(Buffer.from(moved).equals(Buffer.from(BSON.serialize({ _id: 9, a: new Int32(1), b: "x" })))).toBe(true);
  });

  test("prepends a generated _id when there is none", () => {
    const id = new ObjectId();
    const moved = placeIdFirst(Buffer.from(BSON.serialize({ a: 1 })), () => id);
    expect(BSON.deserialize(moved)).toEqual({ _id: id, a: 1 });
  });
});

describe("readRawArray and projectRawDocument", () => {
  test("copies out array members exactly and is undefined when the field is missing", () => {
    const members = [{ _id: 1, x: new Double(1) }, { _id: 2 }];
    const body = BSON.serialize({ insert: "c", documents: members });
    expect(readRawArray(body, "documents")!.map((raw) => raw.toString("hex"))).toEqual(members.map((m) => Buffer.from(BSON.serialize(m)).toString("hex")));
    expect(readRawArray(body, "missing")).toBeUndefined();
  });

  test("includes or excludes top-level fields, keeping _id unless excluded", () => {
    const raw = BSON.serialize({ _id: 1, a: 1, b: 2, c: 3 });
    expect(BSON.deserialize(projectRawDocument(raw, new Map([["b", true]])))).toEqual({ _id: 1, b: 2 });
    expect(
      BSON.deserialize(
        projectRawDocument(
          raw,
          new Map([
            ["b", false],
            ["_id", false],
          ]),
        ),
      ),
    ).toEqual({ a: 1, c: 3 });
  });
});

describe("createFieldPicker", () => {
  // What it must answer: the elements whose decoded names are wanted, bytes and order unchanged.
  const reference = (raw: Uint8Array, names: Set<string>) =>
    assembleElements(
      listRawElements(raw)
        .filter((element) => names.has(element.name))
        .map((element) => raw.subarray(element.start, element.end)),
    );
  const element = (name: Uint8Array, value: number) =>
    Buffer.concat([Buffer.from([0x10]), name, Buffer.from([0]), Buffer.from(new Int32Array([value]).buffer)]);

  test("keeps the named elements as the decoded names say, ASCII or not", () => {
    const raw = assembleElements([
      element(Buffer.from("ts"), 1),
      element(Buffer.from("t"), 2),
      element(Buffer.from("é"), 3),
      element(Buffer.from([0xef, 0xbb, 0xbf, 0x74, 0x73]), 4), // a byte order mark, then "ts": decodes to "ts"
      element(Buffer.from([0x74, 0xff]), 5), // invalid UTF-8
      element(Buffer.from("ts"), 6),
    ]);
    for (const names of [new Set(["ts"]), new Set(["é", "t"]), new Set(["t\uFFFD"]), new Set(["x"]), new Set<string>()]) {
      expect(createFieldPicker(names)(raw).toString("hex")).toBe(reference(raw, names).toString("hex"));
    }
    expect(BSON.deserialize(createFieldPicker(new Set(["t", "é"]))(raw))).toEqual({ t: 2, é: 3 });
  });
});
