// Keeps the oplog entries of one database, in oplog order: its writes, its commands (`c` entries
// on `<db>.$cmd`, a rename into it) and the transactions that touch it. A transaction can span
// several entries (partialTxn/prepare, then the commit or abort) of which only some name the
// database, and `mongorestore --oplogReplay` applies a transaction only with all of them: so its
// entries, and every entry after the first of them, wait until the transaction's last entry tells
// whether it is kept. Entries of a kept transaction that name other databases are cut out of its
// applyOps, so a replay changes nothing outside the dumped database.
import { BSON, type Document } from "bson";

// Read and written back keeping every BSON type (Int32, Long, Double, binaries, regexes).
export const TYPED = { promoteValues: false, promoteBuffers: false, bsonRegExp: true } as const;

interface Transaction {
  touches: boolean;
  decided: boolean;
}

interface Held {
  bytes: Uint8Array;
  transaction: Transaction;
  /** For a kept entry: the entry with other databases' operations cut out, when it had some. */
  trimmed: () => Uint8Array;
}

export interface OplogDatabaseFilter {
  /** Takes one raw entry; returns the entries now known to be kept, in oplog order. */
  push(entry: Uint8Array): Uint8Array[];
  /** Ends the range: a transaction with no last entry yet is kept when it touched the database. */
  finish(): Uint8Array[];
}

/** A filter for the entries of `database`. */
export function createOplogDatabaseFilter(database: string): OplogDatabaseFilter {
  const held: Held[] = [];
  const open = new Map<string, Transaction>();
  const release = (): Uint8Array[] => {
    const out: Uint8Array[] = [];
    while (held.length > 0 && held[0]!.transaction.decided) {
      const entry = held.shift()!;
      if (entry.transaction.touches) out.push(entry.trimmed());
    }
    return out;
  };
  return {
    push(bytes) {
      const entry = BSON.deserialize(bytes, TYPED);
      const touches = entryTouches(entry, database);
      const key = transactionKey(entry);
      let transaction: Transaction;
      if (key === undefined) transaction = { touches, decided: true };
      else {
        transaction = open.get(key) ?? { touches: false, decided: false };
        transaction.touches ||= touches;
        if (isLastOfTransaction(entry)) {
          transaction.decided = true;
          open.delete(key);
        } else open.set(key, transaction);
      }
      held.push({ bytes, transaction, trimmed: () => trimToDatabase(bytes, entry, database) });
      return release();
    },
    finish() {
      for (const transaction of open.values()) transaction.decided = true;
      open.clear();
      return release();
    },
  };
}

/** Whether an entry (or an operation inside an applyOps) changes something of `database`. */
export function entryTouches(entry: Document, database: string): boolean {
  const ns = readString(entry.ns);
  const object = entry.o as Document | undefined;
  if (entry.op === "c" && object !== undefined) {
    if (Array.isArray(object.applyOps)) return (object.applyOps as Document[]).some((inner) => entryTouches(inner, database));
    // A rename names its source's database in `ns` and its target in `to`.
    const to = readString(object.to);
    if (to !== undefined && databaseOf(to) === database) return true;
  }
  if (entry.op === "n" || ns === undefined) return false;
  return databaseOf(ns) === database;
}

/**
 * The databases raw entries write to (an applyOps's operations, a rename's target included; no-ops
 * and admin's own bookkeeping name none), sorted. A restore replays each of them.
 */
export function databasesWrittenBy(entries: Iterable<Uint8Array>): string[] {
  const found = new Set<string>();
  const visit = (entry: Document) => {
    const object = entry.o as Document | undefined;
    if (entry.op === "c" && object !== undefined) {
      if (Array.isArray(object.applyOps)) {
        for (const inner of object.applyOps as Document[]) visit(inner);
        return;
      }
      const to = readString(object.to);
      if (to !== undefined) found.add(databaseOf(to));
    }
    const ns = readString(entry.ns);
    if (entry.op === "n" || ns === undefined || ns === "") return;
    found.add(databaseOf(ns));
  };
  for (const bytes of entries) visit(BSON.deserialize(bytes, TYPED));
  found.delete("admin");
  return [...found].sort();
}

function databaseOf(namespace: string): string {
  const dot = namespace.indexOf(".");
  return dot < 0 ? namespace : namespace.slice(0, dot);
}

function readString(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** Which transaction an entry is part of (its session and txnNumber), or undefined for an entry of none. */
export function transactionKey(entry: Document): string | undefined {
  if (entry.op !== "c" || entry.lsid === undefined || entry.txnNumber === undefined) return undefined;
  const object = entry.o as Document | undefined;
  if (object === undefined || !(Array.isArray(object.applyOps) || "commitTransaction" in object || "abortTransaction" in object)) return undefined;
  return `${Buffer.from(BSON.serialize(entry.lsid as Document)).toString("base64")}:${String(entry.txnNumber)}`;
}

/**
 * Whether a transaction's entry is its last: an applyOps without partialTxn or prepare commits it;
 * commitTransaction and abortTransaction end a prepared one.
 */
export function isLastOfTransaction(entry: Document): boolean {
  const object = entry.o as Document;
  if ("commitTransaction" in object || "abortTransaction" in object) return true;
  return object.partialTxn === undefined && object.prepare === undefined;
}

/** The entry with the operations of its applyOps that are not of `database` cut out (the same bytes when it has none). */
export function trimToDatabase(bytes: Uint8Array, entry: Document, database: string): Uint8Array {
  const object = entry.o as Document | undefined;
  if (entry.op !== "c" || object === undefined || !Array.isArray(object.applyOps)) return bytes;
  const operations = object.applyOps as Document[];
  const kept = operations.filter((inner) => entryTouches(inner, database));
  if (kept.length === operations.length) return bytes;
  return BSON.serialize({ ...entry, o: { ...object, applyOps: kept } });
}

/**
 * The command in an entry (or in its applyOps) that `mongorestore --oplogReplay` cannot replay onto
 * collections dumped while it ran: "renameCollection" or "importCollection"; undefined otherwise.
 */
export function findReplayBlocker(bytes: Uint8Array): string | undefined {
  const entry = BSON.deserialize(bytes, TYPED);
  return findBlockerIn(entry);
}

function findBlockerIn(entry: Document): string | undefined {
  const object = entry.o as Document | undefined;
  if (entry.op !== "c" || object === undefined) return undefined;
  for (const command of ["renameCollection", "importCollection"]) if (command in object) return command;
  if (!Array.isArray(object.applyOps)) return undefined;
  for (const inner of object.applyOps as Document[]) {
    const found = findBlockerIn(inner);
    if (found !== undefined) return found;
  }
  return undefined;
}
