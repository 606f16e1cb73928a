// The unique indexes of a backup with an oplog, built on the staging collections once the oplog
// was replayed (or before an entry that changes that collection's indexes): the documents of a
// backup read while the application wrote can hold a unique key twice until the replay
// (prepare-collection.ts). Both engines: mongorestore stages the documents with --noIndexRestore,
// and buildIndexesBeforeReplay builds the other indexes as the built-in engine does.
import type { Document, MongoClient } from "mongodb";
import { DumpError } from "../errors.ts";
import { describeDriverError, wrapDatabaseError } from "./client.ts";
import { secondaryIndexes } from "./prepare-collection.ts";
import { isView, type StagedCollection } from "./swap.ts";

const DUPLICATE_KEY = 11000;

/** The unique indexes still to build, by staging namespace. */
export class DeferredIndexes {
  private readonly waiting = new Map<string, Document[]>();

  constructor(
    private readonly client: MongoClient,
    private readonly uri: string,
  ) {}

  defer(entry: StagedCollection, indexes: Document[]): void {
    if (indexes.length > 0) this.waiting.set(stagedName(entry), indexes);
  }

  /**
   * Builds the collection's deferred indexes (or forgets them, `dropped`); throws DumpError
   * "database-error" naming them when its keys do not hold.
   */
  async build(entry: StagedCollection, dropped: boolean): Promise<void> {
    const key = stagedName(entry);
    const indexes = this.waiting.get(key);
    this.waiting.delete(key);
    if (!indexes || dropped) return;
    try {
      await this.client.db(entry.staged.db).command({ createIndexes: entry.staged.name, indexes });
    } catch (cause) {
      const names = indexes.map((index) => String(index.name)).join(", ");
      throw new DumpError(
        "database-error",
        `building the index ${names} of ${entry.target} after replaying the backup's oplog failed, so nothing was replaced: ${describeDriverError(cause, this.uri)}`,
        {
          hint: "the target database is unchanged and the backup itself is intact; an earlier or a later backup may restore",
          // A duplicate key in staging collections of the backup's own documents is the backup's.
          backupAtFault: (cause as { code?: unknown }).code === DUPLICATE_KEY,
        },
      );
    }
  }
}

/** Builds each staged collection's non-unique secondary indexes; answers the unique ones, still to build. */
export async function buildIndexesBeforeReplay(client: MongoClient, uri: string, staged: StagedCollection[]): Promise<DeferredIndexes> {
  const deferred = new DeferredIndexes(client, uri);
  for (const entry of staged) {
    if (isView(entry.metadata)) continue;
    const { now, deferred: later } = secondaryIndexes(entry.metadata, true);
    if (now.length > 0) {
      await client
        .db(entry.staged.db)
        .command({ createIndexes: entry.staged.name, indexes: now })
        .catch((cause) => {
          throw wrapDatabaseError(cause, `building the indexes of ${entry.target} (staged as ${entry.staged.name})`, uri);
        });
    }
    deferred.defer(entry, later);
  }
  return deferred;
}

function stagedName(entry: StagedCollection): string {
  return `${entry.staged.db}.${entry.staged.name}`;
}
