// `c` entries (DDL) applied to the mapped namespaces. Each runs as the matching command, except
// collMod, which goes through applyOps as mongorestore sends it (the command form would need
// the server's collMod, and applyOps takes the entry as written). Index builds run as
// createIndexes, since servers after 4.4 do not apply createIndexes entries through applyOps.
// Like every entry they may already be reflected in the dump they are applied to, so "already
// exists" and "does not exist" answers are not failures.
import type { Document, MongoClient } from "mongodb";
import { commandName, type OplogEntry, splitNamespace } from "./entry.ts";
import { OplogApplyError, serverErrorCode } from "./errors.ts";
import type { AppliedNamespace, NamespaceMapping, ReplayedCollections } from "./namespaces.ts";

export interface CommandTarget {
  client: MongoClient;
  sourceDb: string;
  mapping: NamespaceMapping;
  collections: ReplayedCollections;
  /** Runs before an entry changes a collection's indexes, moves or drops them: see ApplyOplogRequest. */
  beforeIndexChange?: ((collection: string, dropped: boolean) => Promise<void>) | undefined;
}

// Entries that read or change a collection's index catalog.
const INDEX_CHANGES = new Set(["createIndexes", "commitIndexBuild", "dropIndexes", "deleteIndexes", "dropIndex", "deleteIndex", "collMod", "convertToCapped"]);

// 26 NamespaceNotFound, 27 IndexNotFound, 48 NamespaceExists.
const NAMESPACE_NOT_FOUND = 26;
const INDEX_NOT_FOUND = 27;
const NAMESPACE_EXISTS = 48;
// 85 IndexOptionsConflict, 86 IndexKeySpecsConflict: the index exists already with other options,
// as the dump read it after a later change (a collMod, a drop and a new build); the entries
// after this one bring it to where the source ended.
const INDEX_EXISTS_OTHERWISE = [85, 86];

// Entries with nothing to apply to a copy: an index build is applied at its commitIndexBuild;
// the rest is bookkeeping of the node that wrote them (mongorestore skips them too).
const WITHOUT_EFFECT = new Set(["startIndexBuild", "abortIndexBuild", "setMultikeyMetadata", "dropIdent", "dbCheck"]);
const DROP_INDEX_NAMES = new Set(["dropIndexes", "deleteIndexes", "dropIndex", "deleteIndex"]);
// collMod options older servers wrote that current ones refuse (mongorestore drops them too).
const OBSOLETE_COLLMOD_OPTIONS = ["noPadding", "usePowerOf2Sizes"];

/** Applies one `c` entry of the source database; throws OplogApplyError. */
export async function applyCommandEntry(target: CommandTarget, entry: OplogEntry): Promise<void> {
  const name = commandName(entry);
  if (WITHOUT_EFFECT.has(name)) return;
  const run = async (db: string, command: Document, harmless: number[] = []) => {
    try {
      await target.client.db(db).command(command);
    } catch (cause) {
      if (harmless.includes(serverErrorCode(cause) ?? -1)) return;
      throw new OplogApplyError(`${name} failed: ${(cause as Error).message}`, entry.ts, cause);
    }
  };
  const { o } = entry;
  const collection = typeof o[name] === "string" ? (o[name] as string) : "";
  const located = collection ? target.mapping.locate(collection) : undefined;

  if (name === "dropDatabase") {
    for (const source of target.collections.existing()) {
      const staged = target.mapping.locate(source);
      await prepareIndexChange(target, source, entry, true);
      if (staged) await run(staged.db, { drop: staged.name }, [NAMESPACE_NOT_FOUND]);
      target.collections.remove(source);
    }
    return;
  }
  if (name === "renameCollection") return renameEntry(target, entry, run);
  if (!located) {
    if (!collection) throw new OplogApplyError(`the '${name}' entry names no collection`, entry.ts);
    return; // a collection the replay leaves out
  }
  if (INDEX_CHANGES.has(name)) await prepareIndexChange(target, collection, entry);
  if (name === "create") {
    if (o.viewOn !== undefined) throw new OplogApplyError(`the view ${collection} was created while the backup ran, and views cannot be replayed`, entry.ts);
    const { create: _, ...options } = o;
    await run(located.db, { create: located.name, ...options }, [NAMESPACE_EXISTS]);
    target.collections.add(collection);
  } else if (name === "drop") {
    await prepareIndexChange(target, collection, entry, true);
    await run(located.db, { drop: located.name }, [NAMESPACE_NOT_FOUND]);
    target.collections.remove(collection);
  } else if (name === "createIndexes") {
    const { createIndexes: _, ns: _ns, ...spec } = o;
    await run(located.db, { createIndexes: located.name, indexes: [spec] }, INDEX_EXISTS_OTHERWISE);
    target.collections.add(collection);
  } else if (name === "commitIndexBuild") {
    // One at a time, so that one already there does not keep the others from being built.
    for (const spec of Array.isArray(o.indexes) ? o.indexes : []) {
      await run(located.db, { createIndexes: located.name, indexes: [spec] }, INDEX_EXISTS_OTHERWISE);
    }
    target.collections.add(collection);
  } else if (DROP_INDEX_NAMES.has(name)) {
    await run(located.db, { dropIndexes: located.name, index: o.index }, [NAMESPACE_NOT_FOUND, INDEX_NOT_FOUND]);
  } else if (name === "collMod") {
    const { collMod: _, ...changes } = o;
    for (const option of OBSOLETE_COLLMOD_OPTIONS) delete changes[option];
    if (Object.keys(changes).length === 0) return;
    const operation = { op: "c", ns: `${located.db}.$cmd`, o: { collMod: located.name, ...changes } };
    await run("admin", { applyOps: [operation] }, [NAMESPACE_NOT_FOUND]);
  } else if (name === "convertToCapped") {
    await run(located.db, { convertToCapped: located.name, size: o.size, ...(o.max === undefined ? {} : { max: o.max }) });
  } else {
    throw new OplogApplyError(`the '${name}' entry cannot be replayed`, entry.ts);
  }
}

type Run = (db: string, command: Document, harmless?: number[]) => Promise<void>;

async function prepareIndexChange(target: CommandTarget, collection: string, entry: OplogEntry, dropped = false): Promise<void> {
  if (!target.beforeIndexChange) return;
  try {
    await target.beforeIndexChange(collection, dropped);
  } catch (cause) {
    throw new OplogApplyError(`building the indexes of ${collection} before its '${commandName(entry)}' failed: ${(cause as Error).message}`, entry.ts, cause);
  }
}

/**
 * A rename inside the source database renames the mapped collections; a rename out of it (or to
 * a collection the replay leaves out) removes the collection, as the source lost it. A rename
 * into the replayed collections from elsewhere brings data the entries do not hold: refused.
 */
async function renameEntry(target: CommandTarget, entry: OplogEntry, run: Run): Promise<void> {
  const from = splitNamespace(String(entry.o.renameCollection ?? ""));
  const to = splitNamespace(String(entry.o.to ?? ""));
  const inSource = (side: { db: string; collection: string }): AppliedNamespace | undefined =>
    side.db === target.sourceDb && side.collection ? target.mapping.locate(side.collection) : undefined;
  const [fromStaged, toStaged] = [inSource(from), inSource(to)];
  // The renamed collection takes its indexes along, so those still to build are built first;
  // the collection it replaces (dropTarget) never gets its own.
  if (fromStaged && toStaged) {
    await prepareIndexChange(target, from.collection, entry);
    await prepareIndexChange(target, to.collection, entry, true);
  }
  if (!toStaged) {
    if (fromStaged) await prepareIndexChange(target, from.collection, entry, true);
    if (fromStaged) await run(fromStaged.db, { drop: fromStaged.name }, [NAMESPACE_NOT_FOUND]);
    if (from.db === target.sourceDb) target.collections.remove(from.collection);
    return;
  }
  if (!fromStaged) {
    throw new OplogApplyError(`${to.collection} was renamed from ${from.db}.${from.collection}, which this replay does not hold`, entry.ts);
  }
  const command = { renameCollection: `${fromStaged.db}.${fromStaged.name}`, to: `${toStaged.db}.${toStaged.name}`, dropTarget: true };
  await run("admin", command, [NAMESPACE_NOT_FOUND]);
  target.collections.remove(from.collection);
  target.collections.add(to.collection);
}
