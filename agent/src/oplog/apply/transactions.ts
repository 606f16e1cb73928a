// Multi-document transactions as the oplog records them: `applyOps` entries carrying `lsid` and
// `txnNumber`; a large one spread over `partialTxn` entries linked by `prevOpTime`; a prepared
// one ending in `commitTransaction` or `abortTransaction`. Their operations are held until the
// entry that commits them, so a transaction is applied whole or not at all: nothing of one
// aborted, nor of one whose commit the replay never reaches (it lies past "until" or past the
// end of the entries). Classified as mongo-tools' common/txn does.
import { EJSON } from "bson";
import type { Document } from "mongodb";
import { commandName, isDocument, type OplogEntry } from "./entry.ts";
import { OplogApplyError } from "./errors.ts";
import { formatOplogTime, type OplogTime } from "../../../../protocol/oplog-position.ts";
import { readTimestamp } from "./timestamp.ts";

export type TransactionStep =
  /** Not part of a transaction (a vectored insert's applyOps is not one either). */
  | { kind: "none" }
  /** Held until the transaction commits. */
  | { kind: "held" }
  /** The transaction committed here: apply these operations, in order, now. */
  | { kind: "commit"; operations: Document[] }
  | { kind: "abort" };

interface OpenTransaction {
  /** The positions of its entries so far ("t,i"): a later one names one of them as its `prevOpTime`. */
  seen: Set<string>;
  operations: Document[];
}

export class TransactionBuffer {
  private readonly open = new Map<string, OpenTransaction>();

  /** Transactions begun but not committed or aborted (yet). */
  get pending(): number {
    return this.open.size;
  }

  /** What to do with `entry`; throws OplogApplyError when it links to entries the replay did not see. */
  take(entry: OplogEntry): TransactionStep {
    const meta = classify(entry);
    if (!meta) return { kind: "none" };
    const previous = readPrevious(entry);
    let open = this.open.get(meta.id);
    if (previous === undefined) {
      open = { seen: new Set(), operations: [] };
    } else if (!open?.seen.has(formatOplogTime(previous))) {
      throw new OplogApplyError(
        `a transaction's entry follows ${formatOplogTime(previous)}, which is not among the entries replayed (the oplog is incomplete)`,
        entry.ts,
      );
    }
    if (entry.ts) open.seen.add(formatOplogTime(entry.ts));
    if (meta.abort) {
      this.open.delete(meta.id);
      return { kind: "abort" };
    }
    open.operations.push(...innerOperations(entry));
    if (meta.commit) {
      this.open.delete(meta.id);
      return { kind: "commit", operations: open.operations };
    }
    this.open.set(meta.id, open);
    return { kind: "held" };
  }
}

/** The operations of an applyOps entry (its `o.applyOps`); never throws. */
export function innerOperations(entry: OplogEntry): Document[] {
  const list = entry.o.applyOps;
  return Array.isArray(list) ? list.filter(isDocument) : [];
}

function classify(entry: OplogEntry): { id: string; commit: boolean; abort: boolean } | undefined {
  const { fields } = entry;
  // A vectored insert in a retryable write carries lsid and txnNumber too, and multiOpType 1.
  if (fields.multiOpType !== undefined && Number(fields.multiOpType) === 1) return undefined;
  if (entry.op !== "c" || !isDocument(fields.lsid) || fields.txnNumber === undefined) return undefined;
  const name = commandName(entry);
  if (name !== "applyOps" && name !== "commitTransaction" && name !== "abortTransaction") return undefined;
  const partial = entry.o.partialTxn !== undefined;
  const prepare = entry.o.prepare !== undefined;
  const id = `${EJSON.stringify(fields.lsid, { relaxed: false })}#${String(fields.txnNumber)}`;
  return { id, commit: name === "commitTransaction" || (name === "applyOps" && !partial && !prepare), abort: name === "abortTransaction" };
}

/** The position the entry links back to, or undefined when it starts a transaction (the null OpTime). */
function readPrevious(entry: OplogEntry): OplogTime | undefined {
  const previous = entry.fields.prevOpTime;
  const ts = isDocument(previous) ? readTimestamp(previous.ts) : undefined;
  return ts && (ts.t !== 0 || ts.i !== 0) ? ts : undefined;
}
