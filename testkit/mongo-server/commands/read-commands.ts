// Reads: find, getMore, killCursors, count, distinct and aggregate. Results are cut into batches
// by the cursor registry; documents that pass through unchanged are returned as stored bytes.
import { BSON } from "bson";
import { computeCanonicalKey, isDocument, isNumeric, toNumber } from "../bson-order";
import { readBoolean, readCollectionName, readDocument, readInteger } from "../command-args";
import { type CollectionState, parseStoredDocument } from "../collection-state";
import type { CommandContext, CommandHandler, Document } from "../command-context";
import { CommandError } from "../errors";
import { MAX_BSON_OBJECT_SIZE } from "../limits";
import { readRowDocument, projectRows, readRowBytes, readProjection, type Row, runPipeline, sortRows } from "../aggregate";
import { collectPathValues, matchesFilter, readFilterFields, readIdEquality } from "../query-match";
import { createFieldPicker } from "../raw-bson";

type Source = { collection: CollectionState | undefined; viewPipeline: unknown[] };

/** Follows views down to the collection they read, gathering their pipelines in order. */
function resolveSource(context: CommandContext, name: string): Source {
  let collection = context.state.findCollection(context.db, name);
  const viewPipeline: unknown[] = [];
  for (let depth = 0; collection?.type === "view"; depth++) {
    if (depth > 20) throw new CommandError(2, `View depth too deep or view cycle detected; maximum depth is 20`);
    viewPipeline.unshift(...((collection.options.pipeline as unknown[]) ?? []));
    collection = context.state.findCollection(context.db, collection.options.viewOn as string);
  }
  return { collection, viewPipeline };
}

function loadRows(context: CommandContext, source: Source, filter: Document): Row[] {
  const { collection, viewPipeline } = source;
  if (!collection) return [];
  if (viewPipeline.length === 0) {
    const byId = readIdEquality(filter);
    if (byId) {
      const stored = collection.documents.get(computeCanonicalKey(byId.value));
      return stored ? [{ raw: stored.raw }] : [];
    }
  }
  let rows: Row[] = [...collection.documents.values()].map((stored) => ({ raw: stored.raw }));
  if (viewPipeline.length > 0) rows = runPipeline(rows, viewPipeline, collection, context.host());
  if (Object.keys(filter).length === 0) return rows;
  return rows.filter((row) => matchesFilter(readRowDocument(row), filter));
}

/**
 * For an unfiltered find in `$natural` order with a limit (how clients read the oplog's first or
 * last entry): the `count` rows at that end, in natural order, without a row for every
 * document; undefined for any other find.
 */
function readNaturalEnd(source: Source, filter: Document, sort: Document | undefined, count: number): Row[] | undefined {
  const { collection, viewPipeline } = source;
  const keys = sort ? Object.keys(sort) : [];
  if (!collection || viewPipeline.length > 0 || Object.keys(filter).length > 0 || keys.length !== 1 || keys[0] !== "$natural") return undefined;
  const direction = sort!.$natural;
  if (count <= 0 || !isNumeric(direction) || Math.abs(toNumber(direction)) !== 1) return undefined;
  if (toNumber(direction) < 0)
    return Array.from(collection.documents.values())
      .slice(-count)
      .map((stored) => ({ raw: stored.raw }));
  const rows: Row[] = [];
  for (const stored of collection.documents.values()) {
    if (rows.length === count) break;
    rows.push({ raw: stored.raw });
  }
  return rows;
}

function readNonNegative(body: Document, field: string): number | undefined {
  const value = readInteger(body, field);
  if (value !== undefined && value < 0) throw new CommandError(51024, `BSON field '${field}' value must be >= 0, actual value '${value}'`);
  return value;
}

/**
 * A tailable find: on the oplog of a replica set, a cursor that follows new entries; mongod's
 * error on a collection that is not capped; other capped collections are not implemented.
 */
function findTailable(context: CommandContext, name: string, filter: Document): Document {
  const collection = context.state.findCollection(context.db, name);
  if (!collection || collection.options.capped !== true) {
    throw new CommandError(
      2,
      `error processing query: ns=${context.db}.${name} tree: ${JSON.stringify(filter)} :: caused by :: tailable cursor requested on non capped collection`,
    );
  }
  const oplog = context.replicaSet?.oplog;
  if (collection !== oplog?.collection) {
    throw new CommandError(2, "tailable cursors are supported only on local.oplog.rs by the DBVault test server");
  }
  // Every entry a tail passes is tested: only the fields the filter reads are parsed (an
  // entry's `o` can be a whole document), unless it has logical operators.
  const fields = readFilterFields(filter);
  const pick = fields ? createFieldPicker(fields) : (raw: Uint8Array) => raw;
  const accepts = (raw: Uint8Array) => matchesFilter(parseStoredDocument(pick(raw)), filter);
  const batchSize = readNonNegative(context.body, "batchSize");
  return context.cursors.openTailableCursor(collection.ns, oplog, accepts, { batchSize, awaitData: readBoolean(context.body.awaitData) });
}

function find(context: CommandContext): Document {
  const name = readCollectionName(context.body, "find");
  const filter = readDocument(context.body, "filter") ?? {};
  if (readBoolean(context.body.tailable)) return findTailable(context, name, filter);
  const sort = readDocument(context.body, "sort");
  const projection = readProjection(readDocument(context.body, "projection") ?? {});
  const skip = readNonNegative(context.body, "skip") ?? 0;
  const limit = readNonNegative(context.body, "limit") ?? 0;
  const batchSize = readNonNegative(context.body, "batchSize");
  const source = resolveSource(context, name);
  let rows = readNaturalEnd(source, filter, sort, limit > 0 ? skip + limit : 0) ?? loadRows(context, source, filter);
  if (sort && Object.keys(sort).length > 0) rows = sortRows(rows, sort);
  rows = projectRows(rows.slice(skip, limit > 0 ? skip + limit : undefined), projection);
  return context.cursors.openCursor(`${context.db}.${name}`, rows.map(readRowBytes), { batchSize, singleBatch: readBoolean(context.body.singleBatch) });
}

function readCursorId(value: unknown): bigint {
  if (isNumeric(value) && (value as { _bsontype?: string })._bsontype === "Long") return BigInt(String(value));
  if (isNumeric(value)) return BigInt(Math.trunc(toNumber(value)));
  throw new CommandError(14, "BSON field 'getMore.getMore' is the wrong type, expected type 'long'");
}

function getMore(context: CommandContext): Document | Promise<Document> {
  const collection = context.body.collection;
  if (typeof collection !== "string") throw new CommandError(40414, "BSON field 'getMore.collection' is missing but a required field");
  const batchSize = readNonNegative(context.body, "batchSize");
  const maxAwaitTimeMS = readNonNegative(context.body, "maxTimeMS");
  return context.cursors.continueCursor(readCursorId(context.body.getMore), `${context.db}.${collection}`, batchSize, maxAwaitTimeMS);
}

function killCursors(context: CommandContext): Document {
  const ids = context.body.cursors;
  if (!Array.isArray(ids)) throw new CommandError(40414, "BSON field 'killCursors.cursors' is missing but a required field");
  const { killed, notFound } = context.cursors.killCursors(ids.map(readCursorId));
  return { cursorsKilled: killed, cursorsNotFound: notFound, cursorsAlive: [], cursorsUnknown: [] };
}

function count(context: CommandContext): Document {
  const name = readCollectionName(context.body, "count");
  const rows = loadRows(context, resolveSource(context, name), readDocument(context.body, "query") ?? {});
  const skip = Math.abs(readInteger(context.body, "skip") ?? 0);
  const limit = Math.abs(readInteger(context.body, "limit") ?? 0);
  const remaining = Math.max(0, rows.length - skip);
  return { n: limit > 0 ? Math.min(limit, remaining) : remaining };
}

function findDistinct(context: CommandContext): Document {
  const name = readCollectionName(context.body, "distinct");
  const key = context.body.key;
  if (typeof key !== "string") throw new CommandError(14, "BSON field 'distinct.key' is the wrong type, expected type 'string'");
  const values = new Map<string, unknown>();
  for (const row of loadRows(context, resolveSource(context, name), readDocument(context.body, "query") ?? {})) {
    for (const found of collectPathValues(readRowDocument(row), key)) {
      for (const value of Array.isArray(found) ? found : [found]) {
        if (value !== undefined && !values.has(computeCanonicalKey(value))) values.set(computeCanonicalKey(value), value);
      }
    }
  }
  const reply = { values: [...values.values()] };
  if (BSON.calculateObjectSize(reply) > MAX_BSON_OBJECT_SIZE) throw new CommandError(17217, "distinct too big, 16mb cap");
  return reply;
}

function aggregate(context: CommandContext): Document {
  const target = context.body.aggregate;
  const pipeline = context.body.pipeline;
  if (!Array.isArray(pipeline)) throw new CommandError(14, "'pipeline' option must be specified as an array");
  if (context.body.explain !== undefined) throw new CommandError(2, "explain is not supported by the DBVault test server");
  if (!isDocument(context.body.cursor)) {
    throw new CommandError(9, "The 'cursor' option is required, except for aggregate with the explain argument");
  }
  const batchSize = readNonNegative(context.body.cursor, "batchSize");
  if (typeof target !== "string") {
    // Database-level pipelines ($currentOp, $documents, ...) are not implemented.
    runPipeline([], pipeline, undefined, context.host());
    return context.cursors.openCursor(`${context.db}.$cmd.aggregate`, [], { batchSize });
  }
  const source = resolveSource(context, target);
  const rows = runPipeline(loadRows(context, source, {}), pipeline, source.collection, context.host());
  return context.cursors.openCursor(`${context.db}.${target}`, rows.map(readRowBytes), { batchSize });
}

export const readCommands: Record<string, CommandHandler> = {
  find,
  getMore,
  killCursors,
  count,
  distinct: findDistinct,
  aggregate,
};
