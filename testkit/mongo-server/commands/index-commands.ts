// listIndexes, createIndexes and dropIndexes, with mongod's conflict rules and replies. Specs are
// returned exactly as created (plus `v: 2`), which is what a dump must capture and a restore replay,
// except for collations: as in mongod, an index without one inherits the collection's default and
// an explicit simple one is recorded as none.
import { computeCanonicalKey, isDocument } from "../bson-order";
import { readCollectionName, readDocument, readInteger } from "../command-args";
import type { CollectionState } from "../collection-state";
import { type CommandContext, type CommandHandler, type Document, serializeAll } from "../command-context";
import { CommandError } from "../errors";
import { createIndexState, haveSameOptions, type IndexState, inheritCollation } from "../indexes";
import { UUID } from "bson";
import { openWriteLog } from "../replica-set/write-log";

function requireCollection(context: CommandContext, name: string): CollectionState {
  const collection = context.state.findCollection(context.db, name);
  if (!collection) throw new CommandError(26, `ns does not exist: ${context.db}.${name}`);
  return collection;
}

function listIndexes(context: CommandContext): Document {
  const collection = requireCollection(context, readCollectionName(context.body, "listIndexes"));
  const batchSize = readInteger(readDocument(context.body, "cursor") ?? {}, "batchSize");
  const specs = collection.indexes.map((index) => index.spec);
  return context.cursors.openCursor(collection.ns, serializeAll(specs), { batchSize });
}

/** Decides whether a requested index already exists (true), is new (false), or conflicts (throws). */
function findExisting(collection: CollectionState, requested: IndexState): boolean {
  const sameKey = (index: IndexState) => computeCanonicalKey(index.spec.key) === computeCanonicalKey(requested.spec.key);
  const byName = collection.indexes.find((index) => index.name === requested.name);
  if (byName) {
    if (!sameKey(byName)) {
      throw new CommandError(
        86,
        `An existing index has the same name as the requested index. When index names are not specified, they are auto generated and can cause conflicts. Please refer to our documentation. Requested index: ${JSON.stringify(requested.spec)}, existing index: ${JSON.stringify(byName.spec)}`,
      );
    }
    if (byName.name === "_id_" || haveSameOptions(byName.spec, requested.spec)) return true;
    throw new CommandError(
      85,
      `An existing index has the same name as the requested index. Requested index: ${JSON.stringify(requested.spec)}, existing index: ${JSON.stringify(byName.spec)}`,
    );
  }
  const byKey = collection.indexes.find((index) => sameKey(index) && haveSameOptions(index.spec, requested.spec));
  if (byKey) throw new CommandError(85, `Index already exists with a different name: ${byKey.name}`);
  return false;
}

function createIndexes(context: CommandContext): Document {
  const name = readCollectionName(context.body, "createIndexes");
  const specs = context.body.indexes;
  if (!Array.isArray(specs) || specs.length === 0) throw new CommandError(2, "Must specify at least one index to create");
  const existing = context.state.findCollection(context.db, name);
  const requested = specs.map((spec) => {
    if (!isDocument(spec)) throw new CommandError(14, "index specification must be an object");
    return createIndexState(inheritCollation(spec, existing?.collation));
  });
  const { collection, created } = context.state.ensureCollection(context.db, name);
  const before = collection.indexes.length;
  const fresh = requested.filter((index) => !findExisting(collection, index));
  const wasEmpty = collection.documents.size === 0;
  for (const index of fresh) collection.addIndex(index);
  logIndexBuild(context, collection, created, fresh, wasEmpty);
  const reply: Document = { numIndexesBefore: before, numIndexesAfter: collection.indexes.length };
  if (fresh.length === 0) reply.note = "all indexes already exist";
  else reply.createdCollectionAutomatically = created;
  return reply;
}

/**
 * mongod 7.0 logs an index built on an empty collection as one `createIndexes` entry per index,
 * and a build over documents as `startIndexBuild` then `commitIndexBuild` naming them all.
 */
function logIndexBuild(context: CommandContext, collection: CollectionState, created: boolean, fresh: IndexState[], wasEmpty: boolean): void {
  const log = openWriteLog(context);
  if (!log) return;
  if (created) log.created(collection);
  if (fresh.length === 0) return;
  if (wasEmpty) {
    for (const index of fresh) log.command(collection.database, collection.uuid, { createIndexes: collection.name, ...index.spec });
    return;
  }
  const indexBuildUUID = new UUID();
  const indexes = fresh.map((index) => index.spec);
  log.command(collection.database, collection.uuid, { startIndexBuild: collection.name, indexBuildUUID, indexes });
  log.command(collection.database, collection.uuid, { commitIndexBuild: collection.name, indexBuildUUID, indexes });
}

function selectIndexesToDrop(collection: CollectionState, target: unknown): IndexState[] {
  if (target === "*") return collection.indexes.slice(1);
  const names = Array.isArray(target) ? target : [target];
  return names.map((entry) => {
    const found = collection.indexes.find((index) =>
      typeof entry === "string" ? index.name === entry : computeCanonicalKey(index.spec.key) === computeCanonicalKey(entry),
    );
    if (!found) {
      const described = typeof entry === "string" ? entry : JSON.stringify(entry);
      throw new CommandError(27, typeof entry === "string" ? `index not found with name [${described}]` : `can't find index with key: ${described}`);
    }
    if (found.name === "_id_") throw new CommandError(72, "cannot drop _id index");
    return found;
  });
}

function dropIndexes(context: CommandContext): Document {
  const name = readCollectionName(context.body, context.name);
  const collection = context.state.findCollection(context.db, name);
  if (!collection) throw new CommandError(26, `ns not found ${context.db}.${name}`);
  const before = collection.indexes.length;
  const log = openWriteLog(context);
  for (const index of selectIndexesToDrop(collection, context.body.index)) {
    collection.removeIndex(index.name);
    log?.command(collection.database, collection.uuid, { dropIndexes: collection.name, index: index.name }, index.spec);
  }
  return { nIndexesWas: before };
}

export const indexCommands: Record<string, CommandHandler> = {
  listIndexes,
  createIndexes,
  dropIndexes,
  deleteIndexes: dropIndexes,
};
