import { describe, expect, test } from "bun:test";
import { BSON, Int32 } from "bson";
import { CommandError } from "./errors";
import { encodeUpdatedDocument } from "./update-document";

describe("encodeUpdatedDocument", () => {
  test("encodes as bson does", () => {
    const document = { _id: new Int32(1), a: "x", b: { c: [1, 2] } };
    expect(encodeUpdatedDocument(document).equals(Buffer.from(BSON.serialize(document)))).toBe(true);
  });

  // Just over 16 MiB fits bson's 17 MiB buffer; 40 MiB does not (it throws or comes out cut).
  for (const megabytes of [16.5, 40]) {
    test(`a ${megabytes} MiB result is refused with mongod's 17419`, () => {
      const document = { _id: new Int32(1), big: "x".repeat(megabytes * 1024 * 1024) };
      let thrown: unknown;
      try {
        encodeUpdatedDocument(document);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(CommandError);
      expect((thrown as CommandError).code).toBe(17419);
    });
  }
});
