// Reading one oplog entry as local.oplog.rs holds it. Values keep their BSON types (an Int32
// stays Int32, a Double stays Double) so that what is applied is exactly what was written.
import { BSON, type Document } from "mongodb";
import type { OplogTime } from "../../../../protocol/oplog-position.ts";
import { readTimestamp } from "./timestamp.ts";

const TYPED = { promoteValues: false, promoteBuffers: false, bsonRegExp: true } as const;

export interface OplogEntry {
  /** i, u, d, c, n (and the internal kinds mongod 8 adds, which are skipped). */
  op: string;
  ns: string;
  o: Document;
  o2: Document | undefined;
  ts: OplogTime | undefined;
  /** The whole entry, for the transaction fields (lsid, txnNumber, prevOpTime, multiOpType). */
  fields: Document;
}

/** Parses an entry's bytes; throws the BSON library's error on malformed bytes. */
export function parseEntry(bytes: Uint8Array): OplogEntry {
  return readEntry(BSON.deserialize(bytes, TYPED));
}

/** An entry from its parsed fields (entries nested in an applyOps come so); never throws. */
export function readEntry(fields: Document): OplogEntry {
  return {
    op: typeof fields.op === "string" ? fields.op : "",
    ns: typeof fields.ns === "string" ? fields.ns : "",
    o: isDocument(fields.o) ? fields.o : {},
    o2: isDocument(fields.o2) ? fields.o2 : undefined,
    ts: readTimestamp(fields.ts),
    fields,
  };
}

export function isDocument(value: unknown): value is Document {
  return typeof value === "object" && value !== null && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype;
}

/** "db.rest.of.name" as its database and collection (collection "" when there is no dot); never throws. */
export function splitNamespace(ns: string): { db: string; collection: string } {
  const dot = ns.indexOf(".");
  return dot < 0 ? { db: ns, collection: "" } : { db: ns.slice(0, dot), collection: ns.slice(dot + 1) };
}

/** The command a `c` entry runs: the first field of its `o`. */
export function commandName(entry: OplogEntry): string {
  return Object.keys(entry.o)[0] ?? "";
}

/** The `ts` of an entry's bytes, or undefined when it has none or is malformed; never throws. */
export function readEntryTimestamp(bytes: Uint8Array): OplogTime | undefined {
  try {
    return parseEntry(bytes).ts;
  } catch {
    return undefined;
  }
}
