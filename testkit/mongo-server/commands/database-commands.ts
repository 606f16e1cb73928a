// Databases and collections as units: listing, creating (with options kept exactly as given,
// since a restore must recreate them), dropping, and their statistics.
import { Int32, Long } from "bson";
import { computeCanonicalKey, isDocument, toNumber } from "../bson-order";
import { readBoolean, readCollectionName, readDocument, readInteger } from "../command-args";
import type { CollectionState, CollectionType } from "../collection-state";
import { type CommandContext, type CommandHandler, type Document, serializeAll } from "../command-context";
import { CommandError } from "../errors";
import { matchesFilter } from "../query-match";
import { createIdIndexFrom, isSimpleCollation } from "../indexes";
import { assertCollectionName } from "../server-state";
import { describeDatabaseStats, describeStorage } from "./collection-stats";
import { GENERIC_ARGUMENTS } from "./generic-arguments";
import { openWriteLog, type WriteLog } from "../replica-set/write-log";

function listDatabases(context: CommandContext): Document {
  if (context.db !== "admin") throw new CommandError(13, "listDatabases may only be run against the admin database.");
  const filter = readDocument(context.body, "filter") ?? {};
  const names = [...context.state.databases.keys()].sort();
  const entries = names
    .map((name) => ({ name, sizeOnDisk: Long.fromNumber(context.state.measureDatabase(name)), empty: false }))
    .filter((entry) => matchesFilter(entry, filter));
  if (readBoolean(context.body.nameOnly)) return { databases: entries.map(({ name }) => ({ name })) };
  const totalSize = entries.reduce((sum, entry) => sum + entry.sizeOnDisk.toNumber(), 0);
  return { databases: entries, totalSize, totalSizeMb: Long.fromNumber(Math.floor(totalSize / (1024 * 1024))) };
}

function describeCollection(collection: CollectionState, nameOnly: boolean): Document {
  const { name, type } = collection;
  if (nameOnly) return { name, type };
  if (type === "view") return { name, type, options: collection.options, info: { readOnly: true } };
  const idIndex = type === "collection" ? { idIndex: collection.indexes[0]!.spec } : {};
  return { name, type, options: collection.options, info: { readOnly: false, uuid: collection.uuid }, ...idIndex };
}

function listCollections(context: CommandContext): Document {
  const filter = readDocument(context.body, "filter") ?? {};
  const nameOnly = readBoolean(context.body.nameOnly);
  const entries = [...(context.state.databases.get(context.db)?.values() ?? [])]
    .map((collection) => describeCollection(collection, nameOnly))
    .filter((entry) => matchesFilter(entry, filter));
  const batchSize = readInteger(readDocument(context.body, "cursor") ?? {}, "batchSize");
  return context.cursors.openCursor(`${context.db}.$cmd.listCollections`, serializeAll(entries), { batchSize });
}

// mongod raises a capped size to a multiple of 256 bytes, keeping the number's BSON type.
function normalizeCappedSize(options: Document): void {
  if (options.capped !== true) return;
  if (options.size === undefined) throw new CommandError(72, "the 'size' field is required when 'capped' is true");
  const rounded = Math.ceil(toNumber(options.size) / 256) * 256;
  const tag = (options.size as { _bsontype?: string })._bsontype;
  options.size = tag === "Long" ? Long.fromNumber(rounded) : tag === "Int32" ? new Int32(rounded) : options.size;
  if (tag === "Double") (options.size as { value: number }).value = rounded;
}

function createCollection(context: CommandContext): Document {
  const name = readCollectionName(context.body, "create");
  const options: Document = {};
  for (const [key, value] of Object.entries(context.body)) {
    if (key !== "create" && !GENERIC_ARGUMENTS.has(key)) options[key] = value;
  }
  let type: CollectionType = "collection";
  if (options.viewOn !== undefined) {
    if (typeof options.viewOn !== "string") throw new CommandError(14, "'viewOn' option must be a string");
    assertCollectionName(context.db, options.viewOn);
    options.pipeline ??= [];
    type = "view";
  } else if (isDocument(options.timeseries)) {
    type = "timeseries";
  }
  normalizeCappedSize(options);
  // The simple collation is the absence of one: mongod lists no collation then.
  if (isSimpleCollation(options.collation)) delete options.collation;
  // `idIndex` describes the _id index (a restore passes the dumped one); mongod does not keep it
  // among the options but builds the index from it.
  const idIndex = readDocument(options, "idIndex");
  delete options.idIndex;
  const existing = context.state.findCollection(context.db, name);
  if (existing) {
    if (existing.type === type && computeCanonicalKey(existing.options) === computeCanonicalKey(options)) return {};
    throw new CommandError(48, `Collection ${existing.ns} already exists.`);
  }
  const collection = context.state.createCollection(context.db, name, type, options);
  if (idIndex && type === "collection") {
    try {
      collection.indexes[0] = createIdIndexFrom(idIndex, collection.collation);
    } catch (error) {
      context.state.dropCollection(context.db, name); // mongod creates nothing when it refuses
      throw error;
    }
  }
  openWriteLog(context)?.created(collection);
  return {};
}

function dropCollection(context: CommandContext): Document {
  const name = readCollectionName(context.body, "drop");
  const dropped = context.state.dropCollection(context.db, name);
  if (dropped) logDrop(openWriteLog(context), dropped);
  // Since MongoDB 7.0 dropping a collection that does not exist succeeds.
  return dropped ? { nIndexesWas: dropped.indexes.length, ns: dropped.ns } : {};
}

function logDrop(log: WriteLog | undefined, dropped: CollectionState): void {
  if (dropped.type === "view") log?.command(dropped.database, undefined, { drop: dropped.name });
  else log?.command(dropped.database, dropped.uuid, { drop: dropped.name }, { numRecords: dropped.documents.size });
}

function splitNamespace(value: unknown, field: string): { db: string; name: string } {
  const dot = typeof value === "string" ? value.indexOf(".") : -1;
  if (typeof value !== "string" || dot <= 0 || dot === value.length - 1) throw new CommandError(73, `Invalid ${field} namespace: ${String(value)}`);
  return { db: value.slice(0, dot), name: value.slice(dot + 1) };
}

function renameCollection(context: CommandContext): Document {
  if (context.db !== "admin") throw new CommandError(13, "renameCollection may only be run against the admin database.");
  const from = splitNamespace(context.body.renameCollection, "source");
  const to = splitNamespace(context.body.to, "target");
  const source = context.state.findCollection(from.db, from.name);
  const target = context.state.findCollection(to.db, to.name);
  context.state.renameCollection(from, to, readBoolean(context.body.dropTarget));
  const o: Document = { renameCollection: `${from.db}.${from.name}`, to: `${to.db}.${to.name}` };
  if (target) o.dropTarget = target.uuid;
  o.stayTemp = false;
  openWriteLog(context)?.command(from.db, source?.uuid, o, target ? { numRecords: target.documents.size } : undefined);
  return {};
}

function dropDatabase(context: CommandContext): Document {
  const log = openWriteLog(context);
  const collections = [...(context.state.databases.get(context.db)?.values() ?? [])];
  context.state.dropDatabase(context.db);
  // mongod drops the collections one by one, then records the database's drop.
  for (const collection of collections) logDrop(log, collection);
  if (collections.length > 0) log?.command(context.db, undefined, { dropDatabase: 1 });
  return { dropped: context.db };
}

function describeCollectionStats(context: CommandContext): Document {
  const name = readCollectionName(context.body, "collStats");
  const collection = context.state.findCollection(context.db, name);
  if (!collection) throw new CommandError(26, `Collection [${context.db}.${name}] not found.`);
  return { ns: collection.ns, ...describeStorage(collection) };
}

export const databaseCommands: Record<string, CommandHandler> = {
  listDatabases,
  listCollections,
  create: createCollection,
  drop: dropCollection,
  renameCollection,
  dropDatabase,
  dbStats: (context) => describeDatabaseStats(context.state, context.db),
  collStats: describeCollectionStats,
};
