// What one command writes into the oplog, in MongoDB 7.0's entry shapes:
//   insert  {op: "i", ns, ui, o: <document>, o2: {_id}}
//   update  {op: "u", ns, ui, o: {$v: 2, diff} or the whole new document, o2: {_id}}
//   delete  {op: "d", ns, ui, o: {_id}}
//   DDL     {op: "c", ns: "<db>.$cmd", ui, o: <command>, o2?: <what was dropped>}
// A retryable write (the command carries lsid and txnNumber) adds lsid (with the user digest
// `uid`), txnNumber and stmtId, and links its statements with prevOpTime.
import { createHash } from "node:crypto";
import { Binary, type UUID } from "bson";
import { isDocument } from "../bson-order";
import { parseStoredDocument, type CollectionState } from "../collection-state";
import type { CommandContext } from "../command-context";
import { assembleElements, RawDocument, readIdElement } from "../raw-bson";
import { NULL_OP_TIME, type OpTime, type Oplog } from "./oplog";
import { diffEncodedDocuments } from "./update-diff";
import type { Transaction } from "./transactions";
import type { ServerState } from "../server-state";
import { computeCanonicalKey } from "../bson-order";

function readIdKey(raw: Buffer): string {
  return computeCanonicalKey(parseStoredDocument(raw)._id);
}

type Document = Record<string, unknown>;

/** `{_id: <value>}` with the `_id` element's exact bytes (stored documents hold `_id` first). */
export function extractIdDocument(raw: Uint8Array): Buffer {
  const id = readIdElement(raw);
  return assembleElements(id ? [id] : []);
}

/** `{lsid: {id, uid}, txnNumber}` of a command sent in a session with a transaction number. */
export function describeSessionFields(context: CommandContext): Document | undefined {
  const { lsid, txnNumber } = context.body;
  if (!isDocument(lsid) || txnNumber === undefined) return undefined;
  const user = context.connection.authenticatedUser;
  // mongod records the session's owner as the SHA-256 of "user@db" ("" when unauthenticated).
  const digest = createHash("sha256")
    .update(user ? `${user.user}@${user.db}` : "")
    .digest();
  return { lsid: { id: lsid.id, uid: new Binary(digest, 0) }, txnNumber };
}

export class WriteLog {
  private readonly session: Document | undefined;
  private readonly transaction: Transaction | undefined;
  private readonly state: ServerState;
  private previous: OpTime = NULL_OP_TIME;

  constructor(
    private readonly oplog: Oplog,
    context: CommandContext,
  ) {
    this.session = describeSessionFields(context);
    this.transaction = context.transaction;
    this.state = context.state;
  }

  insert(collection: CollectionState, raw: Buffer, stmtId: number): void {
    const undo = () => {
      const current = collection.documents.get(readIdKey(raw));
      if (current) collection.deleteDocument(current);
    };
    this.writeDocumentEntry(
      collection,
      { op: "i", ns: collection.ns, ui: collection.uuid, o: new RawDocument(raw), o2: new RawDocument(extractIdDocument(raw)) },
      stmtId,
      undo,
    );
  }

  /** `style` "diff" logs a `$v: 2` diff when one can express the change, else the new document. */
  update(collection: CollectionState, before: Buffer, after: Buffer, style: "diff" | "replacement", stmtId: number): void {
    const diff = style === "diff" ? diffEncodedDocuments(before, after) : undefined;
    const o = diff ? { $v: 2, diff } : new RawDocument(after);
    const undo = () => {
      const current = collection.documents.get(readIdKey(after));
      if (current) collection.replaceDocument(current, before);
    };
    this.writeDocumentEntry(collection, { op: "u", ns: collection.ns, ui: collection.uuid, o, o2: new RawDocument(extractIdDocument(after)) }, stmtId, undo);
  }

  delete(collection: CollectionState, raw: Buffer, stmtId: number): void {
    const undo = () => void collection.insertDocument(raw);
    this.writeDocumentEntry(collection, { op: "d", ns: collection.ns, ui: collection.uuid, o: new RawDocument(extractIdDocument(raw)) }, stmtId, undo);
  }

  /** The `create` entry of a new collection or view: its options, then its `_id` index. */
  created(collection: CollectionState): void {
    const idIndex = collection.type === "view" ? {} : { idIndex: collection.indexes[0]!.spec };
    this.command(collection.database, collection.type === "view" ? undefined : collection.uuid, { create: collection.name, ...collection.options, ...idIndex });
  }

  /** A DDL entry on `<db>.$cmd`; `ui` is the collection's UUID when the command has one. */
  command(db: string, ui: UUID | undefined, o: Document, o2?: Document): void {
    if (db === "local") return;
    const fields = { op: "c", ns: `${db}.$cmd`, ...(ui ? { ui } : {}), o, ...(o2 ? { o2 } : {}) };
    // In a transaction only an implicit or explicit create runs (other DDL is refused).
    if (this.transaction) this.transaction.record(fields, () => void this.state.dropCollection(db, String(o.create)));
    else this.oplog.append(fields);
  }

  private writeDocumentEntry(collection: CollectionState, fields: Document, stmtId: number, undo: () => void): void {
    if (collection.database === "local") return; // never replicated, as on mongod
    if (this.transaction) {
      this.transaction.record(fields, undo);
      return;
    }
    if (!this.session) {
      this.oplog.append(fields);
      return;
    }
    this.previous = this.oplog.append({ ...this.session, ...fields, stmtId }, { prevOpTime: this.previous });
  }
}

/** The oplog writer for one command, or undefined when the server is not a replica set. */
export function openWriteLog(context: CommandContext): WriteLog | undefined {
  return context.replicaSet ? new WriteLog(context.replicaSet.oplog, context) : undefined;
}
