// Which oplog entries belong to one database's slices: its own namespaces and `<db>.$cmd` (DDL),
// a rename into it from another database, and every transaction entry that touches it.

/** The fields of an oplog entry the filter reads. */
export type EntryFields = {
  op?: unknown;
  ns?: unknown;
  o?: unknown;
  lsid?: unknown;
  txnNumber?: unknown;
};

import { Binary } from "bson";

type Document = Record<string, unknown>;

const isDocument = (value: unknown): value is Document => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Answers, entry by entry in oplog order, whether the entry goes into the database's slices.
 * A transaction is kept whole: an `applyOps` part is kept when it touches the database or an
 * earlier part of the same transaction was kept, and so is a prepared transaction's commit or
 * abort. (A transaction whose first parts touch only other databases and a later part this one
 * is kept from that part on: its earlier parts were already passed over.)
 */
export function createEntryFilter(database: string): (entry: EntryFields) => boolean {
  const prefix = `${database}.`;
  const inDatabase = (ns: unknown) => typeof ns === "string" && ns.startsWith(prefix);
  // Transactions (session id ‖ txnNumber) with a part kept and no end seen yet.
  const openTransactions = new Set<string>();

  const touches = (operation: Document): boolean => {
    if (inDatabase(operation.ns)) return true;
    const o = operation.o;
    if (!isDocument(o)) return false;
    if (Array.isArray(o.applyOps)) return o.applyOps.some((inner) => isDocument(inner) && touches(inner));
    // renameCollection is logged on the source database's $cmd.
    return typeof o.renameCollection === "string" && typeof o.to === "string" && inDatabase(o.to);
  };

  return (entry) => {
    const key = transactionKey(entry);
    const o = isDocument(entry.o) ? entry.o : {};
    const ends =
      o.commitTransaction !== undefined || o.abortTransaction !== undefined || (Array.isArray(o.applyOps) && o.partialTxn !== true && o.prepare !== true);
    const kept = touches(entry as Document) || (key !== undefined && openTransactions.has(key));
    if (key !== undefined) {
      if (kept && !ends) openTransactions.add(key);
      if (ends) openTransactions.delete(key);
    }
    return kept;
  };
}

function transactionKey(entry: EntryFields): string | undefined {
  if (!isDocument(entry.lsid) || entry.txnNumber === undefined) return undefined;
  const id = entry.lsid.id;
  const idText = id instanceof Binary ? id.toString("hex") : String(id);
  return `${idText}:${String(entry.txnNumber)}`;
}
