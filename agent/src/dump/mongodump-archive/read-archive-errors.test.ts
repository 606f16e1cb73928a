import { describe, expect, test } from "bun:test";
import { BSON } from "bson";
import { encodeNamespaceHeader } from "./block-codec.ts";
import { MAX_DOCUMENT_BYTES, TERMINATOR_BYTES } from "./format.ts";
import { assembleArchive, catchArchiveError, collectEvents, concatBytes, eofBlock, readFixture, segmentBlock, toBson } from "./test-support.ts";
import type { CollectionSpec } from "./types.ts";

const shop: CollectionSpec[] = [{ db: "shop", collection: "orders", type: "collection" }];
const docA = toBson({ _id: 1, item: "apple" });
const docB = toBson({ _id: 2, item: "pear" });
const valid = assembleArchive(shop, segmentBlock("shop", "orders", [docA, docB]), eofBlock("shop", "orders", [docA, docB]));

function int32(value: number): Uint8Array {
  const bytes = new Uint8Array(4);
  new DataView(bytes.buffer).setInt32(0, value, true);
  return bytes;
}

async function expectError(bytes: Uint8Array, code: string, message?: string) {
  const error = await catchArchiveError(() => collectEvents([bytes]));
  expect(error.code).toBe(code as never);
  if (message !== undefined) expect(error.message).toContain(message);
  return error;
}

describe("reader rejections", () => {
  test("the hand-built reference archive is valid", async () => {
    const events = await collectEvents([valid]);
    expect(events.filter((e) => e.kind === "document")).toHaveLength(2);
  });

  test("empty input and foreign bytes: bad-magic, with a hint for compressed input", async () => {
    await expectError(new Uint8Array(0), "bad-magic", "too short");
    await expectError(new TextEncoder().encode('{"not":"an archive"}'), "bad-magic", "magic number");
    await expectError(await readFixture("modern-5k.archive.gz"), "bad-magic", "gzip-compressed, decompress it first");
    await expectError(new Uint8Array([0x28, 0xb5, 0x2f, 0xfd, 0, 0]), "bad-magic", "zstd-compressed");
  });

  test("every strict prefix of a valid archive is rejected as truncated or unfinished", async () => {
    for (let length = 0; length < valid.length; length++) {
      const error = await catchArchiveError(() => collectEvents([valid.subarray(0, length)]));
      expect(["bad-magic", "truncated", "unfinished-namespace"]).toContain(error.code);
    }
  });

  test("an archive cut between namespaces is rejected: the prelude announced more", async () => {
    const two: CollectionSpec[] = [...shop, { db: "shop", collection: "empty" }];
    const cut = assembleArchive(two, segmentBlock("shop", "orders", [docA]), eofBlock("shop", "orders", [docA]));
    const error = await expectError(cut, "unfinished-namespace", "without the data of shop.empty");
    expect(error.namespace).toBe("shop.empty");
  });

  test("a namespace without its end marker is rejected", async () => {
    const open = assembleArchive(shop, segmentBlock("shop", "orders", [docA]));
    await expectError(open, "unfinished-namespace", "before the end marker of shop.orders");
  });

  test("a flipped byte inside a document is caught by the CRC", async () => {
    const damaged = valid.slice();
    const at = Buffer.from(damaged).indexOf("apple");
    damaged[at] = "A".charCodeAt(0);
    const error = await expectError(damaged, "crc-mismatch", "do not match their checksum");
    expect(error.namespace).toBe("shop.orders");
  });

  test("crcMismatch: report yields crcOk false instead of throwing", async () => {
    const damaged = valid.slice();
    damaged[Buffer.from(damaged).indexOf("pear")] = "P".charCodeAt(0);
    const events = await collectEvents([damaged], { crcMismatch: "report" });
    expect(events.find((e) => e.kind === "namespace-end")).toMatchObject({ crcOk: false, documentCount: 2 });
  });

  test("a segment of a namespace the prelude does not describe is rejected", async () => {
    const bytes = assembleArchive(shop, segmentBlock("shop", "secret", [docA]), eofBlock("shop", "secret", [docA]));
    const error = await expectError(bytes, "unknown-namespace", "shop.secret");
    expect(error.offset).toBeGreaterThan(0);
  });

  test("a segment after the namespace's end is rejected", async () => {
    const bytes = assembleArchive(shop, eofBlock("shop", "orders", []), segmentBlock("shop", "orders", [docA]));
    await expectError(bytes, "segment-after-end", "after it ended");
  });

  test("documents after an EOF header are rejected", async () => {
    const bytes = assembleArchive(shop, encodeNamespaceHeader("shop", "orders", 0n), docA, TERMINATOR_BYTES);
    await expectError(bytes, "data-after-eof-header");
  });

  test("a document length out of range is rejected without waiting for that many bytes", async () => {
    const tooLong = assembleArchive(shop, encodeNamespaceHeader("shop", "orders"), int32(MAX_DOCUMENT_BYTES + 1));
    await expectError(tooLong, "invalid-length", `length ${MAX_DOCUMENT_BYTES + 1}`);
    const tooShort = assembleArchive(shop, encodeNamespaceHeader("shop", "orders"), int32(4), new Uint8Array(4));
    await expectError(tooShort, "invalid-length", "length 4");
    const negative = assembleArchive(shop, encodeNamespaceHeader("shop", "orders"), int32(-2));
    await expectError(negative, "invalid-length");
  });

  test("a document not ending in 0x00 is rejected", async () => {
    const broken = docA.slice();
    broken[broken.length - 1] = 7;
    const bytes = assembleArchive(shop, segmentBlock("shop", "orders", [broken]), eofBlock("shop", "orders", [broken]));
    await expectError(bytes, "bad-document-terminator", "does not end with a 0x00 byte");
  });

  test("a terminator where a namespace header belongs is rejected", async () => {
    const bytes = assembleArchive(shop, segmentBlock("shop", "orders", [docA]), TERMINATOR_BYTES);
    await expectError(bytes, "unexpected-terminator");
  });

  test("a prelude describing a namespace twice is rejected", async () => {
    const bytes = assembleArchive([...shop, ...shop], eofBlock("shop", "orders", []));
    await expectError(bytes, "duplicate-namespace", "shop.orders twice");
  });

  test("metadata that is not a JSON object, or with indexes that are not a list, is rejected", async () => {
    await expectError(assembleArchive([{ ...shop[0]!, metadataJson: "[1,2]" }]), "invalid-metadata", "not a JSON object");
    await expectError(assembleArchive([{ ...shop[0]!, metadataJson: '{"indexes":{"a":1}}' }]), "invalid-metadata", "indexes of shop.orders");
  });

  test("a namespace header without a collection name or with a non-BSON body is rejected", async () => {
    const noCollection = BSON.serialize({ db: "shop", EOF: false, CRC: 0n });
    await expectError(assembleArchive(shop, noCollection, TERMINATOR_BYTES), "invalid-namespace-header");
    const garbage = concatBytes(int32(12), new Uint8Array([0x99, 0x61, 0, 0, 0, 0, 0, 0]));
    await expectError(assembleArchive(shop, garbage, TERMINATOR_BYTES), "invalid-namespace-header", "not valid BSON");
  });

  test("a header that is not BSON is rejected", async () => {
    const bytes = concatBytes(new Uint8Array([0x6d, 0xe2, 0x99, 0x81]), int32(8), new Uint8Array([0x42, 0x61, 0, 0]));
    await expectError(bytes, "invalid-header");
  });

  test("a stream in text mode is refused as invalid input", async () => {
    const error = await catchArchiveError(() => collectEvents(["not bytes"] as unknown as Uint8Array[]));
    expect(error.code).toBe("invalid-input");
  });

  test("errors carry the byte offset and a message saying what happened", async () => {
    const error = await expectError(assembleArchive(shop, segmentBlock("shop", "x", [])), "unknown-namespace");
    expect(error.message).toMatch(/^mongodump archive: found data for shop\.x, which the prelude does not describe \(at byte \d+\)$/);
  });
});
