// A small aggregation engine: the stages the driver itself emits (countDocuments sends $match,
// $skip, $limit and $group with $sum; $count; $collStats) plus $sort and top-level $project.
// Rows that pass through unchanged keep their stored bytes; only computed rows are re-encoded.
import { BSON } from "bson";
import { computeCanonicalKey, compareValues, isDocument, isNumeric, toNumber } from "./bson-order";
import { parseStoredDocument, type CollectionState } from "./collection-state";
import type { Document } from "./command-context";
import { describeStorage } from "./commands/collection-stats";
import { CommandError, createBadValue } from "./errors";
import { collectPathValues, matchesFilter } from "./query-match";
import { projectRawDocument } from "./raw-bson";

/** A document in flight: its stored bytes, its parsed form, or both (each filled on demand). */
export type Row = { raw?: Uint8Array; doc?: Document };

/** The parsed form of a row (parsed once, on first use). */
export function readRowDocument(row: Row): Document {
  row.doc ??= parseStoredDocument(row.raw!);
  return row.doc;
}

/** The bytes of a row: stored bytes when it came from a collection, otherwise freshly encoded. */
export function readRowBytes(row: Row): Uint8Array {
  row.raw ??= BSON.serialize(row.doc!);
  return row.raw;
}

function readSortKey(document: Document, path: string, descending: boolean): unknown {
  const values = collectPathValues(document, path).flatMap((value) => (Array.isArray(value) ? value : [value]));
  const present = values.map((value) => (value === undefined ? null : value));
  if (present.length === 0) return null;
  // An array sorts by its smallest element ascending and its largest descending, as in MongoDB.
  return present.reduce((best, value) => {
    const order = compareValues(value, best);
    return (descending ? order > 0 : order < 0) ? value : best;
  });
}

/** Sorts rows by a sort spec (`{ a: 1, b: -1 }`, `$natural`); the sort is stable. */
export function sortRows(rows: Row[], spec: Document): Row[] {
  const keys = Object.entries(spec).map(([path, direction]) => {
    if (!isNumeric(direction) || Math.abs(toNumber(direction)) !== 1)
      throw createBadValue("$sort key ordering must be 1 (for ascending) or -1 (for descending)");
    return { path, descending: toNumber(direction) < 0 };
  });
  if (keys.length === 1 && keys[0]!.path === "$natural") return keys[0]!.descending ? [...rows].reverse() : rows;
  const decorated = rows.map((row) => ({ row, key: keys.map(({ path, descending }) => readSortKey(readRowDocument(row), path, descending)) }));
  decorated.sort((a, b) => {
    for (let i = 0; i < keys.length; i++) {
      const order = compareValues(a.key[i], b.key[i]);
      if (order !== 0) return keys[i]!.descending ? -order : order;
    }
    return 0;
  });
  return decorated.map(({ row }) => row);
}

/** Reads a top-level projection spec; throws for the forms the test server does not implement. */
export function readProjection(spec: Document): Map<string, boolean> {
  const projection = new Map<string, boolean>();
  for (const [field, value] of Object.entries(spec)) {
    if (field.includes(".") || field.startsWith("$") || !(isNumeric(value) || typeof value === "boolean")) {
      throw createBadValue(`projection of '${field}' is not supported by the DBVault test server (top-level 0/1 only)`);
    }
    projection.set(field, typeof value === "boolean" ? value : toNumber(value) !== 0);
  }
  const modes = new Set([...projection].filter(([field]) => field !== "_id").map(([, keep]) => keep));
  if (modes.size > 1) throw new CommandError(31254, "Cannot do exclusion and inclusion in the same projection");
  return projection;
}

/** Applies a top-level projection, copying the kept elements' bytes unchanged. */
export function projectRows(rows: Row[], projection: Map<string, boolean>): Row[] {
  if (projection.size === 0) return rows;
  return rows.map((row) => ({ raw: projectRawDocument(readRowBytes(row), projection) }));
}

function evaluateExpression(document: Document, expression: unknown): unknown {
  if (typeof expression === "string" && expression.startsWith("$")) {
    const [value] = collectPathValues(document, expression.slice(1));
    return value ?? null;
  }
  if (isDocument(expression) && Object.keys(expression).some((key) => key.startsWith("$"))) {
    throw createBadValue(`expression ${JSON.stringify(expression)} is not supported by the DBVault test server`);
  }
  return expression;
}

function groupRows(rows: Row[], spec: Document): Row[] {
  const { _id: idExpression, ...accumulators } = spec;
  const groups = new Map<string, Document>();
  for (const row of rows) {
    const document = readRowDocument(row);
    const id = evaluateExpression(document, idExpression ?? null);
    const key = computeCanonicalKey(id);
    let group = groups.get(key);
    if (!group) {
      group = { _id: id, ...Object.fromEntries(Object.keys(accumulators).map((name) => [name, 0])) };
      groups.set(key, group);
    }
    for (const [name, accumulator] of Object.entries(accumulators)) {
      if (!isDocument(accumulator) || !("$sum" in accumulator || "$count" in accumulator)) {
        throw createBadValue(`accumulator '${name}' is not supported by the DBVault test server ($sum and $count only)`);
      }
      const value = "$count" in accumulator ? 1 : evaluateExpression(document, accumulator.$sum);
      if (isNumeric(value)) group[name] = (group[name] as number) + toNumber(value);
    }
  }
  return [...groups.values()].map((doc) => ({ doc }));
}

function describeCollStats(collection: CollectionState | undefined, spec: Document, host: string): Row {
  if (!collection) throw new CommandError(26, "Unable to retrieve storageStats in $collStats stage :: caused by :: Collection not found");
  const doc: Document = { ns: collection.ns, host, localTime: new Date() };
  if (spec.count !== undefined) doc.count = collection.documents.size;
  if (spec.storageStats !== undefined) doc.storageStats = describeStorage(collection);
  return { doc };
}

function runStage(rows: Row[], name: string, argument: unknown, position: number, collection: CollectionState | undefined, host: string): Row[] {
  switch (name) {
    case "$match":
      if (!isDocument(argument)) throw new CommandError(15959, "the match filter must be an expression in an object");
      return Object.keys(argument).length === 0 ? rows : rows.filter((row) => matchesFilter(readRowDocument(row), argument));
    case "$sort":
      return sortRows(rows, argument as Document);
    case "$skip":
      return rows.slice(toNumber(argument));
    case "$limit":
      return rows.slice(0, toNumber(argument));
    case "$count":
      return rows.length === 0 ? [] : [{ doc: { [String(argument)]: rows.length } }];
    case "$group":
      return groupRows(rows, argument as Document);
    case "$project":
      return projectRows(rows, readProjection(argument as Document));
    case "$unset":
      return projectRows(rows, new Map((Array.isArray(argument) ? argument : [argument]).map((field) => [String(field), false])));
    case "$collStats":
      if (position !== 0) throw new CommandError(40602, "$collStats is only valid as the first stage in a pipeline");
      return [describeCollStats(collection, argument as Document, host)];
    default:
      throw new CommandError(40324, `Unrecognized pipeline stage name: '${name}'`);
  }
}

/** Runs a pipeline over rows; throws mongod's errors for unknown stages and malformed ones. */
export function runPipeline(rows: Row[], pipeline: unknown[], collection: CollectionState | undefined, host: string): Row[] {
  let current = rows;
  pipeline.forEach((stage, position) => {
    if (!isDocument(stage) || Object.keys(stage).length !== 1) {
      throw new CommandError(40323, "A pipeline stage specification object must contain exactly one field.");
    }
    const [name, argument] = Object.entries(stage)[0]!;
    current = runStage(current, name, argument, position, collection, host);
  });
  return current;
}
