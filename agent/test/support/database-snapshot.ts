// A comparable picture of a database: per collection its type, options and _id index spec, its
// indexes (sorted by name), and its documents' raw bytes in natural order.
import { BSON, type Db, type Document } from "mongodb";

export interface CollectionSnapshot {
  name: string;
  type: string;
  /** Hex of the BSON of the options, idIndex and indexes: equal hex means equal types and order. */
  options: string;
  idIndex: string;
  indexes: Array<{ name: string; spec: string }>;
  documents: Buffer[];
}

const TYPED = { promoteValues: false, promoteBuffers: false, bsonRegExp: true } as const;

/** Lists every collection of `db` with its metadata and raw documents, sorted by name. */
export async function snapshotDatabase(db: Db): Promise<CollectionSnapshot[]> {
  const infos = (await db.listCollections({}, TYPED).toArray()) as Document[];
  const snapshots: CollectionSnapshot[] = [];
  for (const info of infos.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const name = String(info.name);
    const type = String(info.type ?? "collection");
    const indexes =
      type === "view"
        ? []
        : ((await db.collection(name).listIndexes(TYPED).toArray()) as Document[])
            .map((spec) => ({ name: String(spec.name), spec: hex(spec) }))
            .sort((a, b) => (a.name < b.name ? -1 : 1));
    const documents = type === "view" ? [] : ((await db.collection(name).find({}, { raw: true }).toArray()) as unknown as Buffer[]).map((d) => Buffer.from(d));
    snapshots.push({ name, type, options: hex(info.options ?? {}), idIndex: hex(info.idIndex ?? {}), indexes, documents });
  }
  return snapshots;
}

function hex(document: Document): string {
  return Buffer.from(BSON.serialize(document)).toString("hex");
}
