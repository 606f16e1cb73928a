// Multi-document transactions of the replica-set mode, as the oplog records them: nothing while
// the transaction runs, then at commit one `applyOps` entry on admin.$cmd holding every operation
// (with the session's lsid and txnNumber, prevOpTime null), or, past maxEntryBytes of operations,
// a chain of `partialTxn: true` entries linked by prevOpTime whose last one carries `count`. An
// abort writes nothing. Writes are applied when they run, with an undo record, and undone on
// abort: the session reads its own writes, but so do other sessions before the commit (there is
// no snapshot isolation), and a document restored by an abort moves to the collection's end.
import { computeCanonicalKey } from "../bson-order";
import { readBoolean } from "../command-args";
import { CommandError } from "../errors";
import { composeDocument, RawDocuments } from "../raw-bson";
import { NULL_OP_TIME, type OpTime, type Oplog } from "./oplog";

// The command context (command-context.ts) refers to a Transaction: only its body is read here.
type Document = Record<string, unknown>;

/** What a transaction may run, as in mongod (DDL other than implicit creation is refused). */
const ALLOWED_IN_TRANSACTION = new Set([
  "find",
  "getMore",
  "killCursors",
  "insert",
  "update",
  "delete",
  "aggregate",
  "distinct",
  "count",
  "commitTransaction",
  "abortTransaction",
]);

/** 16 MiB less room for the entry's other fields, as mongod splits large transactions. */
export const DEFAULT_TRANSACTION_ENTRY_BYTES = 16 * 1024 * 1024 - 64 * 1024;

export class Transaction {
  state: "open" | "committed" | "aborted" = "open";
  readonly operations: Buffer[] = [];
  private readonly undoLog: (() => void)[] = [];

  constructor(
    readonly txnNumber: bigint,
    /** `{lsid: {id, uid}, txnNumber}` as the commit entry starts. */
    readonly sessionFields: Document,
  ) {}

  /** Keeps an operation for the commit entry, and how to undo it should the transaction abort. */
  record(operation: Document, undo: () => void): void {
    this.operations.push(composeDocument(operation));
    this.undoLog.push(undo);
  }

  abort(): void {
    if (this.state !== "open") return;
    for (const undo of this.undoLog.reverse()) undo();
    this.state = "aborted";
  }
}

function noSuchTransaction(message: string): CommandError {
  return new CommandError(251, message, { errorLabels: ["TransientTransactionError"] });
}

export class Transactions {
  private readonly bySession = new Map<string, Transaction>();

  constructor(
    private readonly oplog: Oplog,
    private readonly maxEntryBytes: number,
  ) {}

  /**
   * The transaction a command with `autocommit: false` belongs to: a new one on
   * `startTransaction`, else the session's open one with the same txnNumber. Throws mongod's
   * errors for anything else.
   */
  enter(context: { body: Document }, name: string, sessionFields: Document | undefined): Transaction {
    const { body } = context;
    if (body.autocommit === undefined || readBoolean(body.autocommit)) throw new CommandError(72, "autocommit must be false in a transaction");
    if (!sessionFields) throw new CommandError(50768, "Transaction requires a session id and a transaction number");
    if (!ALLOWED_IN_TRANSACTION.has(name)) throw new CommandError(263, `Cannot run '${name}' in a multi-document transaction.`);
    const key = computeCanonicalKey((sessionFields.lsid as Document).id);
    const txnNumber = BigInt(String(body.txnNumber));
    const current = this.bySession.get(key);
    if (readBoolean(body.startTransaction)) {
      if (current?.txnNumber === txnNumber) throw new CommandError(225, `Transaction ${txnNumber} has already started on this session`);
      current?.abort(); // a newer transaction number ends the session's previous one
      const started = new Transaction(txnNumber, sessionFields);
      this.bySession.set(key, started);
      return started;
    }
    if (!current || current.txnNumber !== txnNumber)
      throw noSuchTransaction(`Given transaction number ${txnNumber} does not match any in-progress transactions.`);
    if (current.state === "aborted") throw noSuchTransaction(`Transaction ${txnNumber} has been aborted.`);
    if (current.state === "committed" && name !== "commitTransaction") throw new CommandError(256, `Transaction ${txnNumber} has been committed.`);
    return current;
  }

  /** Writes the transaction's entries (none when it wrote nothing); a repeated commit is a no-op. */
  commit(transaction: Transaction): void {
    if (transaction.state === "committed") return;
    if (transaction.state === "aborted") throw noSuchTransaction(`Transaction ${transaction.txnNumber} has been aborted.`);
    transaction.state = "committed";
    const batches: Buffer[][] = [[]];
    let bytes = 0;
    for (const operation of transaction.operations) {
      if (bytes + operation.length > this.maxEntryBytes && batches.at(-1)!.length > 0) {
        batches.push([]);
        bytes = 0;
      }
      batches.at(-1)!.push(operation);
      bytes += operation.length;
    }
    if (transaction.operations.length === 0) return;
    let previous: OpTime = NULL_OP_TIME;
    for (const [index, batch] of batches.entries()) {
      const last = index === batches.length - 1;
      const o: Document = { applyOps: new RawDocuments(batch) };
      if (!last) o.partialTxn = true;
      else if (batches.length > 1) o.count = transaction.operations.length;
      previous = this.oplog.append({ ...transaction.sessionFields, op: "c", ns: "admin.$cmd", o }, { prevOpTime: previous });
    }
  }
}
