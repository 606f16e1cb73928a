// Writing restored documents so they stay as they were dumped. mongod replaces every top-level
// Timestamp(0, 0) but _id's with the current time on insert; servers that know it (8.0+, 7.0.13+,
// 6.0.17+, 5.0.29+: SERVER-88750) are told not to with bypassEmptyTsReplacement. On older servers,
// which refuse that field, mongorestore's fallback is used: such a document is inserted alone,
// then replaced by itself as a literal (a pipeline-style update, which replaces no timestamp).
import { BSON, onDemand } from "bson";
import type { Db, MongoClient } from "mongodb";
import { acceptsBypassEmptyTsReplacement } from "../../../../protocol/mongodb-features.ts";
import { insertRawDocuments, type InsertOutcome } from "./raw-insert.ts";
import type { WriteLimits } from "./write-limits.ts";

/** How empty timestamps survive on this server: "bypass" (the insert flag) or "repair" (insert, then fix). */
export type EmptyTimestampPolicy = "bypass" | "repair";

const TYPE_TIMESTAMP = 0x11;
const TYPED = { promoteValues: false, promoteBuffers: false, bsonRegExp: true } as const;

/** Asks the server its version (buildInfo) and picks the policy; throws the driver's error. */
export async function chooseEmptyTimestampPolicy(client: MongoClient): Promise<EmptyTimestampPolicy> {
  const info = await client.db("admin").command({ buildInfo: 1 });
  return acceptsBypassEmptyTsReplacement(String(info.version ?? "")) ? "bypass" : "repair";
}

/** Whether an insert would change this document: a top-level Timestamp(0, 0) outside _id; never throws on valid BSON. */
export function hasReplaceableTimestamp(raw: Uint8Array): boolean {
  const view = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  for (const [type, nameOffset, nameLength, offset] of onDemand.parseToElements(raw)) {
    if (type !== TYPE_TIMESTAMP) continue;
    if (nameLength === 3 && view.toString("utf8", nameOffset, nameOffset + 3) === "_id") continue;
    if (view.readBigUInt64LE(offset) === 0n) return true;
  }
  return false;
}

/**
 * Inserts restored documents (unordered, validation bypassed) keeping their empty timestamps,
 * in their order, in commands within the server's `limits`; refused documents are counted as
 * insertRawDocuments counts them. Throws the driver's error when a command as a whole fails.
 */
export async function insertRestoredDocuments(
  db: Db,
  collection: string,
  documents: Uint8Array[],
  policy: EmptyTimestampPolicy,
  limits: WriteLimits,
): Promise<InsertOutcome> {
  if (policy === "bypass") return insertRawDocuments(db, collection, documents, undefined, { bypassEmptyTsReplacement: true, limits });
  const total: InsertOutcome = { inserted: 0, failed: 0 };
  let plain: Uint8Array[] = [];
  const add = (outcome: InsertOutcome) => {
    total.inserted += outcome.inserted;
    total.failed += outcome.failed;
    total.firstError ??= outcome.firstError;
  };
  for (const document of documents) {
    if (!hasReplaceableTimestamp(document)) {
      plain.push(document);
      continue;
    }
    // Runs of plain documents go in one insert; the order of the documents is kept.
    add(await insertRawDocuments(db, collection, plain, undefined, { limits }));
    plain = [];
    add(await insertAndRepair(db, collection, document));
  }
  add(await insertRawDocuments(db, collection, plain, undefined, { limits }));
  if (total.firstError === undefined) delete total.firstError;
  return total;
}

async function insertAndRepair(db: Db, collection: string, raw: Uint8Array): Promise<InsertOutcome> {
  const inserted = await insertRawDocuments(db, collection, [raw]);
  if (inserted.inserted === 0) return inserted;
  const document = BSON.deserialize(raw, TYPED);
  const reply = await db.command({
    update: collection,
    updates: [{ q: { _id: document._id }, u: [{ $replaceRoot: { newRoot: { $literal: document } } }] }],
  });
  const error = Array.isArray(reply.writeErrors) ? reply.writeErrors[0] : undefined;
  if (error === undefined) return inserted;
  return { inserted: 0, failed: 1, firstError: `failed to fix a document with an empty timestamp: ${String(error.errmsg ?? `error ${String(error.code)}`)}` };
}
