import { describe, expect, test } from "bun:test";
import { BSON, Long, Timestamp } from "bson";
import { jsonTwins, replayCases, transactionCases } from "../../../testkit/mongo-server/replica-set/oplog-fixture-cases.ts";
import { FIXTURES_MISSING, OPLOG_FIXTURES, splitBsonFile } from "../../../testkit/mongo-server/replica-set/test-support.ts";
import { readEntryHeader } from "./entry-header.ts";

/** The header as a whole deserialization reads it. */
function deserializedHeader(raw: Uint8Array) {
  const entry = BSON.deserialize(raw);
  const ts = entry.ts as Timestamp;
  return { ts: { t: ts.high >>> 0, i: ts.low >>> 0 }, op: entry.op, ns: entry.ns };
}

describe("an oplog entry's header, read without decoding the entry", () => {
  test.skipIf(OPLOG_FIXTURES === undefined)(
    `is what a whole deserialization reads, for every entry real mongod servers wrote${OPLOG_FIXTURES ? "" : ` (skipped: ${FIXTURES_MISSING})`}`,
    () => {
      const kinds = new Set<string>();
      let entries = 0;
      for (const item of [...replayCases, ...jsonTwins, ...transactionCases()]) {
        for (const raw of splitBsonFile(item.oplog())) {
          const header = readEntryHeader(raw);
          expect(header, item.name).toEqual(deserializedHeader(raw));
          kinds.add(header.op);
          entries++;
        }
      }
      expect(entries).toBeGreaterThan(100);
      // Their updates are all inside transactions (applyOps); a top-level one is in the next test.
      expect([...kinds].sort()).toEqual(["c", "d", "i", "n"]);
    },
  );

  test("a namespace outside ASCII, an entry with no namespace, and positions past 2^31", () => {
    const at = new Timestamp({ t: 0xfffffff0, i: 0x80000001 });
    const raw = (fields: Record<string, unknown>) => BSON.serialize({ ts: at, t: Long.fromNumber(1), v: 2, wall: new Date(0), ...fields });
    const unicode = raw({ op: "i", ns: "café.コレクション", ui: new BSON.UUID(), o: { _id: 1, op: "not the entry's", ns: "nor this" } });
    expect(readEntryHeader(unicode)).toEqual({ ts: { t: 0xfffffff0, i: 0x80000001 }, op: "i", ns: "café.コレクション" });
    expect(readEntryHeader(unicode)).toEqual(deserializedHeader(unicode));
    const update = raw({ op: "u", ns: "shop.orders", o: { $v: 2, diff: { u: { ns: "x" } } }, o2: { _id: 1 } });
    expect(readEntryHeader(update)).toEqual({ ts: { t: 0xfffffff0, i: 0x80000001 }, op: "u", ns: "shop.orders" });
    expect(readEntryHeader(raw({ op: "n", o: { msg: "periodic noop" } }))).toEqual({ ts: { t: 0xfffffff0, i: 0x80000001 }, op: "n", ns: undefined });
  });

  test("refuses what is not an oplog entry", () => {
    expect(() => readEntryHeader(BSON.serialize({ op: "i", ns: "a.b" }))).toThrow("without a timestamp (ts) or an operation (op)");
    expect(() => readEntryHeader(BSON.serialize({ ts: new Timestamp({ t: 1, i: 1 }), ns: "a.b" }))).toThrow("without a timestamp");
    expect(() => readEntryHeader(BSON.serialize({ ts: 5, op: "i" }))).toThrow("without a timestamp");
    expect(() => readEntryHeader(new Uint8Array([9, 0, 0, 0, 2, 0]))).toThrow();
  });
});
