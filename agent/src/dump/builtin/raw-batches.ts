// Reading a collection as the server sends it. find and getMore run as plain commands whose
// replies stay bytes (`raw`: the driver hands back the reply's `cursor` document as a view of
// the reply, copying nothing), and each batch goes to the archive encoder as the byte range of
// its array: no JavaScript object, Buffer or parsed element per document, which is what the
// driver's cursor costs (on a 100 MB dump, more CPU than the archive, CRC-64 and encryption
// together). All commands run in one explicit session, as a getMore must; a getMore reaches the
// server of its find because this reader is only used where the driver selects one server for
// every command (see canReadRawBatches).
import type { ClientSession, Db, MongoClient } from "mongodb";
import { releaseWholeBuffer } from "../../../../protocol/release-buffer";

/** A batch of documents: the elements of a BSON array, `bytes[start..end)`. */
export interface RawBatch {
  bytes: Uint8Array;
  start: number;
  end: number;
}

const BSON_DOUBLE = 0x01;
const BSON_STRING = 0x02;
const BSON_DOCUMENT = 0x03;
const BSON_ARRAY = 0x04;
const BSON_INT32 = 0x10;
const BSON_TIMESTAMP = 0x11;
const BSON_INT64 = 0x12;
const BSON_BOOLEAN = 0x08;

/**
 * Whether every command of this client reaches the same server, so that raw getMores find their
 * cursor: a primary read preference (the default) outside load-balanced deployments and
 * mongos routers (several routers may each get a command). Throws what the `hello` command throws.
 */
export async function canReadRawBatches(client: MongoClient): Promise<boolean> {
  if (client.readPreference.mode !== "primary" || client.options.loadBalanced) return false;
  const hello = await client.db("admin").command({ hello: 1 });
  return hello.msg !== "isdbgrid";
}

/**
 * Yields the batches of `find {}` on a collection, `batchSize` documents asked per reply (the
 * server caps each at 16 MiB). Kills the server's cursor when the caller stops early or a reply
 * is malformed. Throws the driver's errors, or Error for a reply without a cursor batch.
 */
export async function* readRawBatches(db: Db, collection: string, session: ClientSession, batchSize: number): AsyncGenerator<RawBatch, void, undefined> {
  // db.command inherits nothing from the connection string: the read concern it names goes in
  // by hand, as the driver's find would send it.
  const level = db.readConcern?.level;
  let reply = await db.command({ find: collection, filter: {}, batchSize, ...(level ? { readConcern: { level } } : {}) }, { session, raw: true });
  let cursor = readCursor(reply, collection);
  try {
    for (;;) {
      if (cursor.batch.end > cursor.batch.start) yield cursor.batch;
      // The caller took the batch (the archive encoder copies it before asking for the next).
      if (cursor.releasable) releaseReply(cursor.batch.bytes);
      if (cursor.id === 0n) return;
      reply = await db.command({ getMore: cursor.id, collection, batchSize }, { session, raw: true });
      cursor = readCursor(reply, collection);
    }
  } finally {
    if (cursor.id !== 0n) await db.command({ killCursors: collection, cursors: [cursor.id] }, { session }).catch(() => undefined);
  }
}

// A reply's buffer is freed as soon as its batch was copied rather than at the next garbage
// collection: each is a fresh allocation of the whole message (~1 MB for 1,000 documents), and
// they were most of what made the dump's memory pacer force full collections (bench/README.md).
// Only a buffer that is the reply alone is detached: at least 64 KiB (never a pooled slab) and at
// most a few KiB larger than the cursor document (the message header and the reply's other fields).
const RELEASE_MIN_BYTES = 64 * 1024;
const REPLY_OVERHEAD_MAX_BYTES = 4096;
// The reply fields the driver keeps nothing of once the command returned (operationTime is read
// into a Timestamp). A reply with anything else keeps its buffer: the driver holds views of the
// reply's $clusterTime signature (bson's Binary does not copy) for the session and the next
// commands, so a replica set's replies are left to the collector.
const REPLY_FIELDS_NOT_KEPT = new Set(["cursor", "ok", "operationTime"]);

function releaseReply(cursorDocument: Uint8Array): void {
  const { buffer } = cursorDocument;
  if (!(buffer instanceof ArrayBuffer) || buffer.byteLength - cursorDocument.byteLength > REPLY_OVERHEAD_MAX_BYTES) return;
  releaseWholeBuffer(new Uint8Array(buffer), RELEASE_MIN_BYTES);
}

interface CursorState {
  id: bigint;
  batch: RawBatch;
  /** Whether the reply's buffer may be freed once the batch was taken (releaseReply). */
  releasable: boolean;
}

// The reply's cursor document: { id: int64, ns: string, firstBatch | nextBatch: array, ... }.
function readCursor(reply: Record<string, unknown>, collection: string): CursorState {
  const bytes = reply.cursor;
  const malformed = () => new Error(`the server's reply for ${collection} has no cursor batch`);
  if (!(bytes instanceof Uint8Array) || bytes.length < 5) throw malformed();
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const documentEnd = Math.min(view.getInt32(0, true), bytes.length) - 1;
  let id: bigint | undefined;
  let batch: RawBatch | undefined;
  let offset = 4;
  while (offset < documentEnd) {
    const type = bytes[offset]!;
    const nameStart = offset + 1;
    const nameEnd = bytes.indexOf(0, nameStart);
    if (nameEnd < 0 || nameEnd >= documentEnd) throw malformed();
    const value = nameEnd + 1;
    const size = elementSize(type, view, value);
    if (size === undefined || value + size > documentEnd) throw malformed();
    const name = nameEnd - nameStart;
    if (name === 2 && bytes[nameStart] === 0x69 && bytes[nameStart + 1] === 0x64) {
      if (type === BSON_INT64) id = view.getBigInt64(value, true);
      else if (type === BSON_INT32) id = BigInt(view.getInt32(value, true));
    }
    // "firstBatch" and "nextBatch" (10 and 9 letters): the only arrays of a cursor document.
    if (type === BSON_ARRAY && (name === 10 || name === 9) && bytes[nameEnd - 5] === 0x42) batch = { bytes, start: value + 4, end: value + size - 1 };
    offset = value + size;
  }
  if (id === undefined || batch === undefined) throw malformed();
  return { id, batch, releasable: Object.keys(reply).every((field) => REPLY_FIELDS_NOT_KEPT.has(field)) };
}

// The byte size of an element's value, for the types a cursor document holds; undefined for others.
function elementSize(type: number, view: DataView, value: number): number | undefined {
  if (value + 4 > view.byteLength) return undefined;
  switch (type) {
    case BSON_DOUBLE:
    case BSON_TIMESTAMP:
    case BSON_INT64:
      return 8;
    case BSON_INT32:
      return 4;
    case BSON_BOOLEAN:
      return 1;
    case BSON_STRING:
      return 4 + view.getInt32(value, true);
    case BSON_DOCUMENT:
    case BSON_ARRAY:
      return view.getInt32(value, true);
    default:
      return undefined;
  }
}
