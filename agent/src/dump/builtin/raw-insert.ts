// Inserting documents as their exact archived bytes. The driver's public API re-encodes
// documents, which loses what JavaScript values cannot carry (BSON undefined, DBPointer, NaN
// payloads, duplicate field names); the driver's own document-sequence section sends the given
// bytes untouched, so that is used while it has the expected shape. Checked by the integration
// test that compares every restored document byte for byte.
import { BSON, type Db, type Document } from "mongodb";
import * as driverCommands from "mongodb/lib/cmap/commands.js";
import { DEFAULT_WRITE_LIMITS, splitIntoCommands, type WriteLimits } from "./write-limits.ts";

export interface InsertOutcome {
  inserted: number;
  failed: number;
  /** The server's message for the first refused document, when one was refused. */
  firstError?: string;
}

export type RawInsertMode = "exact-bytes" | "re-encoded";

const documentSequenceClass = readDocumentSequenceClass();

/** Which insert path this build of the driver allows; "re-encoded" only if the driver changed shape. */
export const RAW_INSERT_MODE: RawInsertMode = documentSequenceClass ? "exact-bytes" : "re-encoded";

export interface RawInsertOptions {
  bypassEmptyTsReplacement?: boolean;
  /** The server's limits (readWriteLimits); mongod's when not given. */
  limits?: WriteLimits;
}

/**
 * Inserts raw BSON documents into a collection, unordered and bypassing validation (a restore
 * reproduces data that was valid when dumped), in as many commands as the server's limits need.
 * Per-document failures (duplicate keys...) are counted, not thrown; throws the driver's error
 * when a command as a whole fails.
 */
export async function insertRawDocuments(
  db: Db,
  collection: string,
  documents: Uint8Array[],
  mode: RawInsertMode = RAW_INSERT_MODE,
  options: RawInsertOptions = {},
): Promise<InsertOutcome> {
  const total: InsertOutcome = { inserted: 0, failed: 0 };
  for (const part of splitIntoCommands(documents, options.limits ?? DEFAULT_WRITE_LIMITS)) {
    const outcome = await insertInOneCommand(db, collection, part, mode, options.bypassEmptyTsReplacement === true);
    total.inserted += outcome.inserted;
    total.failed += outcome.failed;
    total.firstError ??= outcome.firstError;
  }
  if (total.firstError === undefined) delete total.firstError;
  return total;
}

async function insertInOneCommand(
  db: Db,
  collection: string,
  documents: Uint8Array[],
  mode: RawInsertMode,
  bypassEmptyTsReplacement: boolean,
): Promise<InsertOutcome> {
  let payload: unknown;
  if (mode === "exact-bytes" && documentSequenceClass) {
    const sequence = new documentSequenceClass("documents");
    for (const bytes of documents) sequence.push(undefined, bytes);
    payload = sequence;
  } else {
    payload = documents.map((bytes) => BSON.deserialize(bytes, { promoteValues: false, promoteBuffers: false, bsonRegExp: true }));
  }
  const reply: Document = await db.command(
    {
      insert: collection,
      documents: payload,
      ordered: false,
      bypassDocumentValidation: true,
      ...(bypassEmptyTsReplacement ? { bypassEmptyTsReplacement: true } : {}),
    },
    { ignoreUndefined: false },
  );
  if (reply.writeConcernError) {
    throw new Error(`write concern error: ${String(reply.writeConcernError.errmsg ?? "unknown")}`);
  }
  const writeErrors: Document[] = Array.isArray(reply.writeErrors) ? reply.writeErrors : [];
  const failed = writeErrors.length;
  const inserted = typeof reply.n === "number" ? reply.n : documents.length - failed;
  const firstError = writeErrors[0] ? String(writeErrors[0].errmsg ?? `error ${String(writeErrors[0].code)}`) : undefined;
  return firstError === undefined ? { inserted, failed } : { inserted, failed, firstError };
}

function readDocumentSequenceClass(): typeof driverCommands.DocumentSequence | undefined {
  const candidate = (driverCommands as { DocumentSequence?: unknown }).DocumentSequence;
  if (typeof candidate !== "function") return undefined;
  const probe = new (candidate as typeof driverCommands.DocumentSequence)("documents");
  return typeof probe.push === "function" && typeof (probe as { toBin?: unknown }).toBin === "function"
    ? (candidate as typeof driverCommands.DocumentSequence)
    : undefined;
}
