// Which oplog entries go into one database's slices, and in what form. The rules of what touches
// a database and how a transaction's entries are cut down are the dump's (database-filter.ts);
// what differs is that shipping cannot hold a transaction until it is decided, as the dump does:
// a slice covers a range of oplog positions and is sealed within seconds. So every part of a
// transaction spread over several entries (partialTxn or prepare, then the commit or abort) is
// kept, cut down to the database's operations (an empty applyOps when it has none): the replay
// links the parts through prevOpTime and refuses a chain missing one, and a part that touches
// nothing of the database may come before one that does. A transaction of one entry, like any
// other entry, is kept when it touches the database, cut down the same way. Only a command
// (`op: "c"`) can be part of a transaction or name a database other than its namespace's (a
// rename's target, an applyOps): any other entry is judged by its header, never decoded.
import { BSON, type Document } from "bson";
import { entryTouches, isLastOfTransaction, TYPED, transactionKey, trimToDatabase } from "../database-filter.ts";
import type { EntryHeader } from "../entry-header.ts";

/**
 * Answers, entry by entry in oplog order, the bytes to ship for the entry (the entry as read, or
 * cut down to the database's operations), or undefined when it is not the database's.
 */
export function createEntryFilter(database: string): (raw: Uint8Array, header: Pick<EntryHeader, "op" | "ns">) => Uint8Array | undefined {
  // Transactions (session ‖ txnNumber) with a part seen and no last entry yet.
  const open = new Set<string>();
  return (raw, header) => {
    if (header.op !== "c") return entryTouches(header, database) ? raw : undefined;
    const fields = BSON.deserialize(raw, { promoteBuffers: true });
    const key = transactionKey(fields);
    if (key === undefined) return entryTouches(fields, database) ? raw : undefined;
    const last = isLastOfTransaction(fields);
    const spread = open.has(key) || !last;
    if (last) open.delete(key);
    else open.add(key);
    if (!spread && !entryTouches(fields, database)) return undefined;
    const operations = (fields.o as Document | undefined)?.applyOps;
    const foreign = Array.isArray(operations) && operations.some((inner: Document) => !entryTouches(inner, database));
    return foreign ? trimToDatabase(raw, BSON.deserialize(raw, TYPED), database) : raw;
  };
}
