// The durable record of a swap that copies instead of renaming (time-series before MongoDB 8.0,
// FerretDB 1.x: swap.ts). Such a swap drops the target and refills it from the staging
// collection, so for a while the target is partial and the staging collection holds the only
// complete copy of the backup's data. Before the target is touched, a document naming both is
// written (journaled) into `dbvault_restore_copies` of the target's database; it is removed only
// once the copy is complete. Whoever finds one later (the failed restore itself, the next restore,
// `dbvault-agent run` at start) knows which collection may be partial and where its data waits,
// and never drops that staging collection as a leftover (staging.ts).
import { EJSON } from "bson";
import type { Db, Document, MongoClient } from "mongodb";
import type { CollectionMetadata } from "../mongodump-archive/index.ts";

/** The collection of a target database holding one record per copy under way or interrupted. */
export const COPY_JOURNAL = "dbvault_restore_copies";

/** One copy under way (or interrupted): the target, where its data waits, how to recreate it. */
export interface CopyRecord {
  targetDb: string;
  targetName: string;
  /** "db.collection" as messages show it. */
  target: string;
  staged: { db: string; name: string };
  intoBuckets: boolean;
  /** The collection's options and indexes, to recreate the target when the copy is finished later. */
  metadata: Pick<CollectionMetadata, "type" | "options" | "indexes">;
}

// Acknowledged only once on disk: the record must outlive a server crash that follows the drop.
const DURABLE = { writeConcern: { w: 1, j: true } } as const;

/** Writes (or replaces) the record of copying into `record.target`; throws the driver's error. */
export async function recordCopy(client: MongoClient, record: CopyRecord): Promise<void> {
  const document = {
    staged: record.staged,
    intoBuckets: record.intoBuckets,
    // Canonical Extended JSON keeps every BSON type of the options and index specs (Int32, Long, ...).
    metadata: EJSON.stringify({ type: record.metadata.type ?? null, options: record.metadata.options, indexes: record.metadata.indexes }, { relaxed: false }),
    startedAt: new Date(),
  };
  await journal(client.db(record.targetDb)).replaceOne({ _id: record.targetName }, document, { upsert: true, ...DURABLE });
}

/** Removes the record of a finished copy (and the journal once empty); throws the driver's error. */
export async function clearCopy(client: MongoClient, record: Pick<CopyRecord, "targetDb" | "targetName">): Promise<void> {
  const db = client.db(record.targetDb);
  await journal(db).deleteOne({ _id: record.targetName }, DURABLE);
  if ((await journal(db).countDocuments({}, { limit: 1 })) === 0) {
    await db.command({ drop: COPY_JOURNAL }).catch((error: { code?: unknown }) => {
      if (error.code !== 26) throw error; // 26 NamespaceNotFound: already gone
    });
  }
}

/** The copies recorded in these databases: under way or interrupted. Throws the driver's error. */
export async function readCopyRecords(client: MongoClient, databases: string[]): Promise<CopyRecord[]> {
  const records: CopyRecord[] = [];
  for (const targetDb of databases) {
    for (const document of await readJournal(client.db(targetDb))) {
      const targetName = String(document._id);
      const staged = document.staged as { db?: unknown; name?: unknown } | undefined;
      if (typeof staged?.db !== "string" || typeof staged.name !== "string") continue;
      const parsed = EJSON.parse(String(document.metadata ?? "{}"), { relaxed: false }) as Document;
      records.push({
        targetDb,
        targetName,
        target: `${targetDb}.${targetName}`,
        staged: { db: staged.db, name: staged.name },
        intoBuckets: document.intoBuckets === true,
        metadata: {
          type: typeof parsed.type === "string" ? parsed.type : undefined,
          options: (parsed.options as Document) ?? {},
          indexes: (parsed.indexes as Document[]) ?? [],
        },
      });
    }
  }
  return records;
}

// A user who may not read the journal (code 13: a role without `find`) cannot have copied
// either (the copy reads the staging collection), so there is nothing of theirs to find.
async function readJournal(db: Db): Promise<Document[]> {
  try {
    return await journal(db).find({}).toArray();
  } catch (error) {
    if ((error as { code?: unknown }).code === 13) return [];
    throw error;
  }
}

function journal(db: Db) {
  return db.collection<{ _id: string } & Document>(COPY_JOURNAL);
}
