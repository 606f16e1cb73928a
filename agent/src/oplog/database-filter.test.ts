// The database filter on real transactions (mongo-tools' common/txn/testdata, written by real
// mongod servers: partialTxn chains, prepared, aborted, applyOps that are not transactions), and on
// a transaction spread over two databases whose entries name them unevenly.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { BSON, type Document } from "bson";
import { encodeExtendedJson, FIXTURES_MISSING, OPLOG_FIXTURES } from "../../../testkit/mongo-server/replica-set/test-support.ts";
import { createOplogDatabaseFilter, databasesWrittenBy, findReplayBlocker } from "./database-filter.ts";

const TYPED = { promoteValues: false, promoteBuffers: false, bsonRegExp: true } as const;

function run(database: string, entries: Uint8Array[]): Document[] {
  const filter = createOplogDatabaseFilter(database);
  return [...entries.flatMap((entry) => filter.push(entry)), ...filter.finish()].map((bytes) => BSON.deserialize(bytes, TYPED));
}

// Some fixtures write binaries in legacy Extended JSON, which encodeExtendedJson reads.
const encode = (entry: Document): Uint8Array => encodeExtendedJson([entry]);

describe.skipIf(OPLOG_FIXTURES === undefined)(`real transactions${OPLOG_FIXTURES === undefined ? ` (skipped: ${FIXTURES_MISSING})` : ""}`, () => {
  const cases = OPLOG_FIXTURES
    ? (JSON.parse(readFileSync(join(OPLOG_FIXTURES, "common/txn/testdata/oplog_entries.json"), "utf8")) as Record<string, { ops: Document[]; ns: string }>)
    : {};
  for (const [name, { ops, ns }] of Object.entries(cases)) {
    test(`${name}: every entry kept, unchanged and in order, for its database; none for another`, () => {
      const entries = ops.map(encode);
      // The database the entries write to (a case's ns is admin.$cmd when it holds only applyOps).
      const first = ops[0]!;
      const written = ns.startsWith("admin.") ? String(((first.o as Document).applyOps as Document[])[0]!.ns) : ns;
      const database = written.split(".")[0]!;
      expect(run(database, entries).map((entry) => Buffer.from(BSON.serialize(entry)).toString("hex"))).toEqual(
        entries.map((bytes) => Buffer.from(bytes).toString("hex")),
      );
      expect(run("unrelated", entries)).toEqual([]);
    });
  }
});

describe("a transaction over two databases", () => {
  const lsid = { id: { $binary: { base64: "DK+8+nZ+Eem9p6vK9BEt9g==", subType: "04" } } };
  const ts = (i: number) => ({ $timestamp: { t: 1_700_000_000, i } });
  const insert = (ns: string, id: number) => ({ op: "i", ns, o: { _id: id } });
  const part = (i: number, ops: Document[], last: boolean) =>
    encode({
      ts: ts(i),
      op: "c",
      ns: "admin.$cmd",
      o: { applyOps: ops, ...(last ? { count: { $numberLong: "3" } } : { partialTxn: true }) },
      lsid,
      txnNumber: { $numberLong: "4" },
      prevOpTime: { ts: ts(i === 1 ? 0 : i - 1), t: { $numberLong: i === 1 ? "-1" : "1" } },
    });
  const entries = [
    part(1, [insert("a.x", 1)], false),
    // Written between the transaction's entries: it must stay after them in the output.
    encode({ ts: ts(2), op: "i", ns: "a.y", o: { _id: 9 } }),
    part(3, [insert("b.x", 2)], false),
    part(4, [insert("b.x", 3), insert("a.x", 4)], true),
    encode({ ts: ts(5), op: "n", ns: "", o: { msg: "periodic noop" } }),
    encode({ ts: ts(6), op: "c", ns: "b.$cmd", o: { renameCollection: "b.x", to: "a.z" } }),
  ];

  test("every entry of a transaction that touches the database is kept, cut down to its operations, in oplog order", () => {
    const kept = run("a", entries);
    expect(kept.map((entry) => (entry.ts as { low: number }).low)).toEqual([1, 2, 3, 4, 6]);
    expect(kept.map((entry) => ((entry.o as Document).applyOps as Document[] | undefined)?.map((op) => `${op.ns}:${(op.o as Document)._id}`))).toEqual([
      ["a.x:1"],
      undefined,
      [],
      ["a.x:4"],
      undefined,
    ]);
  });

  test("the other database gets the whole transaction too, and a rename out of it", () => {
    expect(run("b", entries).map((entry) => (entry.ts as { low: number }).low)).toEqual([1, 3, 4, 6]);
  });

  test("a transaction still open at the window's end is kept when it touched the database", () => {
    expect(run("a", entries.slice(0, 3)).map((entry) => (entry.ts as { low: number }).low)).toEqual([1, 2, 3]);
  });

  test("a rename, also inside applyOps, is what a replay cannot take", () => {
    expect(findReplayBlocker(entries[5]!)).toBe("renameCollection");
    expect(
      findReplayBlocker(
        encode({ op: "c", ns: "admin.$cmd", o: { applyOps: [insert("a.x", 1), { op: "c", ns: "a.$cmd", o: { renameCollection: "a.p", to: "a.q" } }] } }),
      ),
    ).toBe("renameCollection");
    expect(findReplayBlocker(entries[0]!)).toBeUndefined();
  });
});

test("databasesWrittenBy: each entry's database, an applyOps's operations and a rename's target; no-ops and admin name none", () => {
  const entries = [
    BSON.serialize({ op: "n", ns: "", o: { msg: "dbvault consistent point" } }),
    BSON.serialize({ op: "i", ns: "test.data", o: { _id: 1 } }),
    BSON.serialize({ op: "c", ns: "admin.$cmd", o: { applyOps: [{ op: "i", ns: "db1.c1", o: { _id: 2 } }] } }),
    BSON.serialize({ op: "c", ns: "a.$cmd", o: { renameCollection: "a.x", to: "b.y" } }),
  ];
  expect(databasesWrittenBy(entries)).toEqual(["a", "b", "db1", "test"]);
});
