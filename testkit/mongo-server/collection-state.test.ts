import { describe, expect, test } from "bun:test";
import { Binary, BSON } from "bson";
import { CollectionState } from "./collection-state";
import { CommandError } from "./errors";
import { createIndexState } from "./indexes";

function encode(document: object): Buffer {
  return Buffer.from(BSON.serialize(document));
}

function captureError(action: () => unknown): CommandError {
  try {
    action();
  } catch (error) {
    if (error instanceof CommandError) return error;
    throw error;
  }
  throw new Error("expected a CommandError");
}

describe("CollectionState", () => {
  test("refuses a document over 16 MiB with BSONObjectTooLarge and stores nothing", () => {
    const collection = new CollectionState("d", "c", "collection", {});
    const oversize = encode({ _id: 1, blob: new Binary(Buffer.alloc(16 * 1024 * 1024)) });
    expect(captureError(() => collection.insertDocument(oversize)).code).toBe(10334);
    expect(collection.documents.size).toBe(0);
    expect(collection.dataBytes).toBe(0);
  });

  test("refuses array and regex _ids with InvalidIdField", () => {
    const collection = new CollectionState("d", "c", "collection", {});
    expect(captureError(() => collection.insertDocument(encode({ _id: [1] }))).code).toBe(53);
    expect(captureError(() => collection.insertDocument(encode({ _id: /x/ }))).code).toBe(53);
  });

  test("a unique key freed by a delete or replacement can be used again", () => {
    const collection = new CollectionState("d", "c", "collection", {});
    collection.addIndex(createIndexState({ key: { u: 1 }, name: "u_1", unique: true }));
    const first = collection.insertDocument(encode({ _id: 1, u: "a" }));
    expect(captureError(() => collection.insertDocument(encode({ _id: 2, u: "a" }))).code).toBe(11000);
    collection.replaceDocument(first, encode({ _id: 1, u: "b" }));
    collection.insertDocument(encode({ _id: 2, u: "a" }));
    const second = collection.documents.get("n2")!;
    collection.deleteDocument(second);
    collection.insertDocument(encode({ _id: 3, u: "a" }));
    expect([...collection.documents.values()].map((stored) => BSON.deserialize(stored.raw))).toEqual([
      { _id: 1, u: "b" },
      { _id: 3, u: "a" },
    ]);
  });

  test("multikey unique indexes treat each array element as a key", () => {
    const collection = new CollectionState("d", "c", "collection", {});
    collection.addIndex(createIndexState({ key: { tags: 1 }, name: "tags_1", unique: true }));
    collection.insertDocument(encode({ _id: 1, tags: ["a", "b"] }));
    const clash = captureError(() => collection.insertDocument(encode({ _id: 2, tags: ["c", "b"] })));
    expect(clash.message).toContain('dup key: { tags: "b" }');
  });
});
