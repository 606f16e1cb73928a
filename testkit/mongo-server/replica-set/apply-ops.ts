// The applyOps command: oplog entries applied as a secondary (or mongorestore --oplogReplay) would
// apply them. Entries are found by namespace (`ui` is not used); inserts and updates upsert, as
// applyOps does by default (alwaysUpsert); updates take `$v: 2` diffs, classic update operators
// or a whole document; DDL entries run the matching command; each applied entry is itself
// recorded in this server's oplog when it is a replica set. Transactions (partialTxn, prepare,
// commitTransaction) are refused: the server has no transactions, and mongorestore applies the
// operations of a committed transaction one by one anyway.
import { Binary } from "bson";
import { computeCanonicalKey, isDocument } from "../bson-order";
import { parseStoredDocument } from "../collection-state";
import type { CommandContext, CommandHandler, Document } from "../command-context";
import { CommandError } from "../errors";
import { placeIdFirst, readRawArray, readRawDocumentField } from "../raw-bson";
import { applyUpdate, encodeUpdatedDocument, isReplacement } from "../update-document";
import { applyDiff } from "./update-diff";
import { openWriteLog, type WriteLog } from "./write-log";

type Lookup = (name: string) => CommandHandler | undefined;

// DDL entries applyOps runs as the command of the same name, with the entry's `o` as its body.
const COMMANDS_RUN_AS_IS = new Set(["create", "drop", "dropDatabase", "dropIndexes", "deleteIndexes"]);
// Entries with nothing to apply: the index build is applied at its commitIndexBuild.
const COMMANDS_WITHOUT_EFFECT = new Set(["startIndexBuild", "abortIndexBuild", "dbCheck"]);

function splitNamespace(ns: string): { db: string; name: string } {
  const dot = ns.indexOf(".");
  if (dot <= 0) throw new CommandError(73, `Invalid namespace: ${ns}`);
  return { db: ns.slice(0, dot), name: ns.slice(dot + 1) };
}

function applyInsert(context: CommandContext, log: WriteLog | undefined, ns: string, raw: Buffer): void {
  const o = readRawDocumentField(raw, "o");
  if (!o) throw new CommandError(2, "applyOps: an insert needs a document in 'o'");
  const { db, name } = splitNamespace(ns);
  const { collection, created } = context.state.ensureCollection(db, name);
  if (created) log?.created(collection);
  const document = placeIdFirst(o, () => {
    throw new CommandError(4, "applyOps: an insert needs an _id");
  });
  const existing = collection.documents.get(computeCanonicalKey(parseStoredDocument(document)._id));
  if (existing) {
    collection.replaceDocument(existing, document);
    log?.update(collection, existing.raw, document, "replacement", 0);
  } else {
    collection.insertDocument(document);
    log?.insert(collection, document, 0);
  }
}

function applyUpdateEntry(context: CommandContext, log: WriteLog | undefined, ns: string, entry: Document, raw: Buffer): void {
  const { db, name } = splitNamespace(ns);
  const target = entry.o2;
  if (!isDocument(target) || target._id === undefined) throw new CommandError(2, "applyOps: an update needs the document's _id in 'o2'");
  const update = entry.o;
  if (!isDocument(update)) throw new CommandError(2, "applyOps: an update needs 'o'");
  const found = context.state.findCollection(db, name);
  const existing = found?.documents.get(computeCanonicalKey(target._id));
  const current: Document = existing ? parseStoredDocument(existing.raw) : { _id: target._id };
  let updated: Buffer;
  let style: "diff" | "replacement" = "diff";
  if (update.$v !== undefined && Number(update.$v) === 2 && isDocument(update.diff)) {
    applyDiff(current, update.diff);
    updated = encodeUpdatedDocument(current);
  } else if (!isReplacement(update)) {
    updated = encodeUpdatedDocument(applyUpdate(current, update, !existing));
  } else {
    // A whole new document: kept byte for byte, with the target's _id when it has none.
    style = "replacement";
    updated = placeIdFirst(readRawDocumentField(raw, "o")!, () => target._id);
  }
  if (existing && found) {
    found.replaceDocument(existing, updated);
    log?.update(found, existing.raw, updated, style, 0);
    return;
  }
  const { collection, created } = context.state.ensureCollection(db, name);
  if (created) log?.created(collection);
  collection.insertDocument(updated);
  log?.insert(collection, updated, 0);
}

function applyDelete(context: CommandContext, log: WriteLog | undefined, ns: string, entry: Document): void {
  const { db, name } = splitNamespace(ns);
  const key = isDocument(entry.o) ? entry.o._id : undefined;
  if (key === undefined) throw new CommandError(2, "applyOps: a delete needs the document's _id in 'o'");
  const collection = context.state.findCollection(db, name);
  const stored = collection?.documents.get(computeCanonicalKey(key));
  if (!collection || !stored) return; // already gone: applying the entry again changes nothing
  collection.deleteDocument(stored);
  log?.delete(collection, stored.raw, 0);
}

function runNested(context: CommandContext, lookup: Lookup, db: string, body: Document, rawBody: Buffer): void {
  const name = Object.keys(body)[0] ?? "";
  const handler = lookup(name);
  if (!handler) throw new CommandError(59, `no such command: '${name}'`);
  const reply = handler({ ...context, db, name, body, rawBody, sequences: new Map() });
  if (reply instanceof Promise) throw new CommandError(2, `applyOps cannot run '${name}'`);
}

/** An index collMod (`index: {name, hidden|expireAfterSeconds|prepareUnique|unique|forceNonUnique}`) edits the index's spec. */
function applyIndexCollMod(context: CommandContext, db: string, o: Document): void {
  const change = o.index;
  const extra = Object.keys(o).filter((key) => key !== "collMod" && key !== "index");
  if (!isDocument(change) || extra.length > 0) throw new CommandError(2, "applyOps: only index changes of collMod are supported by the DBVault test server");
  const collection = context.state.findCollection(db, String(o.collMod));
  if (!collection) throw new CommandError(26, `ns does not exist: ${db}.${String(o.collMod)}`);
  const index = collection.indexes.find(
    (candidate) =>
      candidate.name === change.name || (change.keyPattern !== undefined && computeCanonicalKey(candidate.spec.key) === computeCanonicalKey(change.keyPattern)),
  );
  if (!index) throw new CommandError(27, `cannot find index ${String(change.name)} for ns ${collection.ns}`);
  for (const [option, value] of Object.entries(change)) {
    if (option === "name" || option === "keyPattern") continue;
    if (option === "forceNonUnique") delete index.spec.unique;
    else if (value === false) delete index.spec[option];
    else index.spec[option] = value;
    if (option === "unique") delete index.spec.prepareUnique;
  }
}

function applyCommandEntry(context: CommandContext, lookup: Lookup, ns: string, raw: Buffer): void {
  if (!ns.endsWith(".$cmd")) throw new CommandError(2, `applyOps: a command entry's ns must end in .$cmd: ${ns}`);
  const db = ns.slice(0, -".$cmd".length);
  const oRaw = readRawDocumentField(raw, "o");
  if (!oRaw) throw new CommandError(2, "applyOps: a command entry needs 'o'");
  const o = parseStoredDocument(oRaw);
  const name = Object.keys(o)[0] ?? "";
  if (o.partialTxn !== undefined || o.prepare !== undefined || name === "commitTransaction" || name === "abortTransaction") {
    throw new CommandError(2, "applyOps: transaction entries are not supported by the DBVault test server (apply their operations instead)");
  }
  if (COMMANDS_WITHOUT_EFFECT.has(name)) return;
  if (name === "applyOps") return void runNested(context, lookup, db, o, oRaw);
  if (COMMANDS_RUN_AS_IS.has(name)) return void runNested(context, lookup, db, o, oRaw);
  if (name === "renameCollection") {
    // The entry names a dropped target by its UUID; the command takes a flag.
    const body = { ...o, dropTarget: o.dropTarget instanceof Binary || o.dropTarget === true };
    return void runNested(context, lookup, "admin", body, oRaw);
  }
  if (name === "createIndexes") {
    const { createIndexes: collection, ...spec } = o;
    return void runNested(context, lookup, db, { createIndexes: collection, indexes: [spec] }, oRaw);
  }
  if (name === "commitIndexBuild") {
    return void runNested(context, lookup, db, { createIndexes: o.commitIndexBuild, indexes: o.indexes }, oRaw);
  }
  if (name === "collMod") return applyIndexCollMod(context, db, o);
  throw new CommandError(2, `applyOps: the '${name}' command is not supported by the DBVault test server`);
}

function applyEntry(context: CommandContext, lookup: Lookup, log: WriteLog | undefined, raw: Buffer): void {
  const entry = parseStoredDocument(raw);
  const { op, ns } = entry;
  if (op === "n") return;
  if (typeof ns !== "string") throw new CommandError(2, "applyOps: an entry needs a string 'ns'");
  if (op === "i") return applyInsert(context, log, ns, raw);
  if (op === "u") return applyUpdateEntry(context, log, ns, entry, raw);
  if (op === "d") return applyDelete(context, log, ns, entry);
  if (op === "c") return applyCommandEntry(context, lookup, ns, raw);
  throw new CommandError(2, `applyOps: unknown op type '${String(op)}'`);
}

/** The applyOps handler; `lookup` finds the handlers DDL entries run. */
export function createApplyOps(lookup: Lookup): CommandHandler {
  return function applyOps(context: CommandContext): Document {
    const entries = readRawArray(context.rawBody, "applyOps");
    if (!entries) throw new CommandError(14, "ApplyOps::applyOps must be an array");
    const log = openWriteLog(context);
    const results: boolean[] = [];
    for (const raw of entries) {
      try {
        applyEntry(context, lookup, log, raw);
        results.push(true);
      } catch (error) {
        if (!(error instanceof CommandError)) throw error;
        // mongod reports how far it got: the entries applied, then false for the failed one.
        throw new CommandError(error.code, error.message, { applied: results.length + 1, results: [...results, false] });
      }
    }
    return { applied: results.length, results };
  };
}
