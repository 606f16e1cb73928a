// Opens one slice file for a chain check: decrypts it with the keyring (or an identity), reads
// its preamble and entries, and checks what the file alone can tell (docs/archive-format.md
// "Oplog slices"). Each failure names the slice; messages never quote an entry's contents.
import { createHash } from "node:crypto";
import { BSON, Timestamp } from "bson";
import { decryptBuffer, type MasterKeys, WrongKeyError } from "../../archive/index.ts";
import { compareOplogTimes, formatOplogTime, type OplogTime } from "../../../../protocol/pitr.ts";
import { PREAMBLE_MESSAGE } from "../shipping/slice-builder.ts";
import { ChainError } from "./chain-error.ts";

/** A slice file as the restore has it: bytes, the name errors use, and what the server said of it. */
export interface SliceFile {
  /** The file name, or the slice's id on the server. */
  name: string;
  bytes: Uint8Array;
  expected?: { chain: string; sequence: number; size?: number; sha256?: string };
}

/** A slice opened and checked on its own. */
export interface OpenedSlice {
  name: string;
  database: string;
  chain: string;
  sequence: number;
  start: OplogTime;
  end: OplogTime;
  /** Each entry's bytes as local.oplog.rs held them, with its position. */
  entries: { ts: OplogTime; bytes: Uint8Array }[];
}

export interface SliceKeys {
  masterKey: MasterKeys;
  identities?: readonly Uint8Array[];
}

/** Opens and checks `file`; throws ChainError naming it. */
export async function openSlice(file: SliceFile, keys: SliceKeys, database: string): Promise<OpenedSlice> {
  const { name, expected } = file;
  if (expected?.size !== undefined && file.bytes.byteLength !== expected.size) {
    throw new ChainError(`slice ${name} is ${file.bytes.byteLength} bytes, not the ${expected.size} stored: it is truncated or damaged`);
  }
  if (expected?.sha256 !== undefined && createHash("sha256").update(file.bytes).digest("hex") !== expected.sha256) {
    throw new ChainError(`slice ${name} does not match its stored checksum: it is damaged`);
  }
  let plaintext: Buffer;
  try {
    const opened = await decryptBuffer(file.bytes, { masterKey: keys.masterKey, ...(keys.identities ? { identities: keys.identities } : {}) });
    if (opened.header.payloadKind !== "oplog-slice") throw new ChainError(`${name} is not an oplog slice (it holds a ${opened.header.payloadKind})`);
    plaintext = opened.plaintext;
  } catch (cause) {
    if (cause instanceof ChainError) throw cause;
    if (cause instanceof WrongKeyError)
      throw new ChainError(`slice ${name} was sealed with another key`, { cause, hint: "use the keyring of the agent that shipped it" });
    throw new ChainError(`slice ${name} cannot be opened: ${(cause as Error).message}`, { cause });
  }
  return readSlice(name, plaintext, database, expected);
}

function readSlice(name: string, plaintext: Buffer, database: string, expected: SliceFile["expected"]): OpenedSlice {
  const documents = splitDocuments(name, plaintext);
  const preamble = documents.shift();
  const o = preamble && (BSON.deserialize(preamble.bytes).o as Record<string, unknown> | undefined);
  if (!o || o.msg !== PREAMBLE_MESSAGE || typeof o.chain !== "string" || typeof o.sequence !== "number") {
    throw new ChainError(`slice ${name} has no slice preamble: it is no dbvault oplog slice`);
  }
  const start = timeOf(o.start);
  const end = timeOf(o.end);
  if (!start || !end) throw new ChainError(`slice ${name} has no covered interval in its preamble`);
  if (o.database !== database) throw new ChainError(`slice ${name} is of database ${String(o.database)}, not ${database}`);
  if (expected && (o.chain !== expected.chain || o.sequence !== expected.sequence)) {
    throw new ChainError(`slice ${name} is slice ${o.sequence} of chain ${o.chain}, not slice ${expected.sequence} of chain ${expected.chain}`);
  }
  if (o.entries !== documents.length) throw new ChainError(`slice ${name} holds ${documents.length} entries, its preamble says ${String(o.entries)}`);
  let previous = start;
  for (const entry of documents) {
    if (compareOplogTimes(entry.ts, previous) <= 0 || compareOplogTimes(entry.ts, end) > 0) {
      throw new ChainError(
        `slice ${name} holds an entry at ${formatOplogTime(entry.ts)} outside its interval (${formatOplogTime(start)}, ${formatOplogTime(end)}] or out of order`,
      );
    }
    previous = entry.ts;
  }
  return { name, database, chain: o.chain, sequence: o.sequence, start, end, entries: documents };
}

/** The concatenated BSON documents of a plaintext, each with its `ts`. */
function splitDocuments(name: string, plaintext: Buffer): { ts: OplogTime; bytes: Uint8Array }[] {
  const documents: { ts: OplogTime; bytes: Uint8Array }[] = [];
  for (let offset = 0; offset < plaintext.length; ) {
    const length = offset + 4 <= plaintext.length ? plaintext.readInt32LE(offset) : 0;
    if (length < 5 || offset + length > plaintext.length) throw new ChainError(`slice ${name} holds a damaged entry at byte ${offset}`);
    const bytes = plaintext.subarray(offset, offset + length);
    let ts: OplogTime | undefined;
    try {
      ts = timeOf(BSON.deserialize(bytes, { promoteValues: false }).ts);
    } catch {
      ts = undefined;
    }
    if (!ts) throw new ChainError(`slice ${name} holds an entry without a timestamp at byte ${offset}`);
    documents.push({ ts, bytes });
    offset += length;
  }
  return documents;
}

function timeOf(value: unknown): OplogTime | undefined {
  return value instanceof Timestamp ? { t: value.t, i: value.i } : undefined;
}
