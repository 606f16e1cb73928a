// Writes: insert, update and delete. Each statement succeeds or fails on its own; failures become
// `writeErrors` entries carrying the statement's index, and an ordered batch stops at the first.
import { computeCanonicalKey } from "../bson-order";
import { readBoolean, readCollectionName } from "../command-args";
import { parseStoredDocument, type CollectionState, type StoredDocument } from "../collection-state";
import type { CommandContext, CommandHandler, Document } from "../command-context";
import { CommandError } from "../errors";
import { matchesFilter, readIdEquality } from "../query-match";
import { readRawArray, replaceEmptyTimestamps } from "../raw-bson";
import { acceptsBypassEmptyTsReplacement } from "../../../protocol/mongodb-features";
import { applyUpdate, encodeUpdatedDocument, isReplacement, seedFromFilter } from "../update-document";
import { openWriteLog } from "../replica-set/write-log";

function describeWriteError(index: number, error: CommandError): Document {
  // mongod writes the error's extra info (keyPattern, keyValue) between code and errmsg.
  return { index, code: error.code, ...error.details, errmsg: error.message };
}

/** Runs each statement, collecting write errors; an ordered batch stops at the first failure. */
function runStatements<T>(statements: T[], ordered: boolean, run: (statement: T, index: number) => void): Document[] {
  const writeErrors: Document[] = [];
  for (const [index, statement] of statements.entries()) {
    try {
      run(statement, index);
    } catch (error) {
      if (!(error instanceof CommandError)) throw error;
      writeErrors.push(describeWriteError(index, error));
      if (ordered) break;
    }
  }
  return writeErrors;
}

function readStatements(context: CommandContext, field: string): Document[] {
  const fromSequence = context.sequences.get(field)?.map(parseStoredDocument);
  const statements = fromSequence ?? context.body[field];
  if (!Array.isArray(statements)) {
    throw new CommandError(40414, `BSON field '${context.name}.${field}' is missing but a required field`);
  }
  if (statements.length === 0 || statements.length > context.limits.maxWriteBatchSize) {
    throw new CommandError(16, `Write batch sizes must be between 1 and ${context.limits.maxWriteBatchSize}. Got ${statements.length} operations.`);
  }
  return statements as Document[];
}

function readOrdered(context: CommandContext): boolean {
  return context.body.ordered === undefined ? true : readBoolean(context.body.ordered);
}

function attachWriteErrors(reply: Document, writeErrors: Document[]): Document {
  return writeErrors.length > 0 ? { ...reply, writeErrors } : reply;
}

/**
 * Whether the command asked to keep empty timestamps; throws mongod's unknown-field error (40415)
 * when this server's version predates `bypassEmptyTsReplacement`.
 */
function readBypassEmptyTsReplacement(context: CommandContext): boolean {
  const value = context.body.bypassEmptyTsReplacement;
  if (value === undefined) return false;
  if (!acceptsBypassEmptyTsReplacement(context.state.version)) {
    throw new CommandError(40415, `BSON field '${context.name}.bypassEmptyTsReplacement' is an unknown field.`);
  }
  return readBoolean(value);
}

function insert(context: CommandContext): Document {
  const name = readCollectionName(context.body, "insert");
  const documents = context.sequences.get("documents") ?? readRawArray(context.rawBody, "documents");
  if (!documents) throw new CommandError(40414, "BSON field 'insert.documents' is missing but a required field");
  if (documents.length === 0 || documents.length > context.limits.maxWriteBatchSize) {
    throw new CommandError(16, `Write batch sizes must be between 1 and ${context.limits.maxWriteBatchSize}. Got ${documents.length} operations.`);
  }
  const keepEmptyTimestamps = readBypassEmptyTsReplacement(context);
  const { collection, created } = context.state.ensureCollection(context.db, name);
  const log = openWriteLog(context);
  if (created) log?.created(collection);
  let n = 0;
  const writeErrors = runStatements(documents, readOrdered(context), (document, index) => {
    const stored = collection.insertDocument(keepEmptyTimestamps ? document : replaceEmptyTimestamps(document, () => context.state.tickClusterTime()));
    log?.insert(collection, stored.raw, index);
    n++;
  });
  return attachWriteErrors({ n }, writeErrors);
}

function selectMatches(collection: CollectionState | undefined, filter: Document, justOne: boolean): StoredDocument[] {
  if (!collection) return [];
  const byId = readIdEquality(filter);
  if (byId) {
    const stored = collection.documents.get(computeCanonicalKey(byId.value));
    return stored ? [stored] : [];
  }
  const matches: StoredDocument[] = [];
  for (const stored of collection.documents.values()) {
    if (!matchesFilter(parseStoredDocument(stored.raw), filter)) continue;
    matches.push(stored);
    if (justOne) break;
  }
  return matches;
}

function findWritableCollection(context: CommandContext, name: string): CollectionState | undefined {
  const collection = context.state.findCollection(context.db, name);
  if (collection?.type === "view") throw new CommandError(166, `Namespace ${collection.ns} is a view, not a collection`);
  return collection;
}

function update(context: CommandContext): Document {
  const name = readCollectionName(context.body, "update");
  const statements = readStatements(context, "updates");
  // Accepted (or refused) as mongod does; updates never replace empty timestamps here.
  readBypassEmptyTsReplacement(context);
  let matched = 0;
  let modified = 0;
  const upserted: Document[] = [];
  const log = openWriteLog(context);
  const writeErrors = runStatements(statements, readOrdered(context), (statement, index) => {
    const filter = (statement.q ?? {}) as Document;
    const multi = readBoolean(statement.multi);
    if (multi && !Array.isArray(statement.u) && isReplacement((statement.u ?? {}) as Document)) {
      throw new CommandError(9, "multi update is not supported for replacement-style update");
    }
    const collection = findWritableCollection(context, name);
    const targets = selectMatches(collection, filter, !multi);
    for (const stored of targets) {
      const updated = encodeUpdatedDocument(applyUpdate(parseStoredDocument(stored.raw), statement.u, false));
      matched++;
      if (Buffer.compare(updated, stored.raw) === 0) continue;
      collection!.replaceDocument(stored, updated, true);
      log?.update(collection!, stored.raw, updated, Array.isArray(statement.u) || isReplacement(statement.u as Document) ? "replacement" : "diff", index);
      modified++;
    }
    if (targets.length === 0 && readBoolean(statement.upsert)) {
      const document = applyUpdate(seedFromFilter(filter), statement.u, true);
      const { collection: target, created } = context.state.ensureCollection(context.db, name);
      if (created) log?.created(target);
      const stored = target.insertDocument(encodeUpdatedDocument(document));
      log?.insert(target, stored.raw, index);
      upserted.push({ index, _id: parseStoredDocument(stored.raw)._id });
    }
  });
  const reply: Document = { n: matched + upserted.length, nModified: modified };
  if (upserted.length > 0) reply.upserted = upserted;
  return attachWriteErrors(reply, writeErrors);
}

function remove(context: CommandContext): Document {
  const name = readCollectionName(context.body, "delete");
  const statements = readStatements(context, "deletes");
  let n = 0;
  const log = openWriteLog(context);
  const writeErrors = runStatements(statements, readOrdered(context), (statement, index) => {
    const collection = findWritableCollection(context, name);
    const limit = statement.limit === undefined ? 0 : Number(readBoolean(statement.limit));
    for (const stored of selectMatches(collection, (statement.q ?? {}) as Document, limit === 1)) {
      collection!.deleteDocument(stored);
      log?.delete(collection!, stored.raw, index);
      n++;
    }
  });
  return attachWriteErrors({ n }, writeErrors);
}

export const writeCommands: Record<string, CommandHandler> = {
  insert,
  update,
  delete: remove,
};
