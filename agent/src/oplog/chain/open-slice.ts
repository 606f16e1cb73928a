// Opens one slice file for a chain check: streams it through the decryptor with the keyring (or
// an identity), reads its preamble and entries, and checks what the file alone can tell
// (docs/archive-format.md "Oplog slices"). Nothing but the slice's metadata is kept: the entries
// are read again, and authenticated again, when the restore replays them (readSliceEntries), so
// memory does not grow with the chain. Each failure names the slice; messages never quote an
// entry's contents.
import { createHash, type Hash } from "node:crypto";
import { createReadStream, createWriteStream, type WriteStream } from "node:fs";
import { stat } from "node:fs/promises";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { BSON, Timestamp } from "bson";
import { createDecryptStream, type MasterKeys, WrongKeyError } from "../../archive/index.ts";
import { compareOplogTimes, formatOplogTime, type OplogTime } from "../../../../protocol/oplog-position.ts";
import { PREAMBLE_MESSAGE } from "../shipping/slice-builder.ts";
import { ChainError } from "./chain-error.ts";

/** A slice file as the restore has it: where it is, the name errors use, and what the server said of it. */
export interface SliceFile {
  /** The file name, or the slice's id on the server. */
  name: string;
  path: string;
  expected?: { chain: string; sequence: number; size?: number; sha256?: string };
}

/** A slice opened and checked on its own: what it is, and the file (and its digest) its entries are read from again. */
export interface OpenedSlice {
  name: string;
  database: string;
  chain: string;
  sequence: number;
  start: OplogTime;
  end: OplogTime;
  entries: number;
  /** The checked bytes: the private copy when one was made, else the file itself. */
  path: string;
  size: number;
  sha256: string;
}

export interface SliceKeys {
  masterKey: MasterKeys;
  identities?: readonly Uint8Array[];
}

/**
 * Opens and checks `file`, streaming it (into `copyTo`, a path in a private directory, when
 * given: the replay then reads that copy, which no one else can change); throws ChainError naming it.
 */
export async function openSlice(file: SliceFile, keys: SliceKeys, database: string, copyTo?: string): Promise<OpenedSlice> {
  const { name, expected } = file;
  const size = (await stat(file.path)).size;
  if (expected?.size !== undefined && size !== expected.size) {
    throw new ChainError(`slice ${name} is ${size} bytes, not the ${expected.size} stored: it is truncated or damaged`);
  }
  const read = readSlice({ name, path: file.path, keys, database, expected, copyTo });
  try {
    for (;;) {
      const next = await read.next();
      if (next.done) return { ...next.value, path: copyTo ?? file.path };
    }
  } catch (cause) {
    // A file the server's checksum already tells damaged is named so, whatever the decryptor met first.
    if (expected?.sha256 !== undefined && (await hashFile(file.path)) !== expected.sha256) {
      throw new ChainError(`slice ${name} does not match its stored checksum: it is damaged`, { cause });
    }
    throw cause;
  }
}

async function hashFile(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/**
 * The entries of a checked slice after `after`, read from its file again: decrypted and
 * authenticated again, and refused (ChainError) unless the file is still the one checked, so a
 * file changed since the check is never applied as it is. Entries before a failure came from
 * authenticated chunks of this slice; the replay's caller discards what it staged on any failure.
 */
export async function* readSliceEntries(slice: OpenedSlice, keys: SliceKeys, after: OplogTime): AsyncGenerator<Uint8Array> {
  const expected = { chain: slice.chain, sequence: slice.sequence };
  const read = readSlice({ name: slice.name, path: slice.path, keys, database: slice.database, expected, checked: slice });
  for (;;) {
    const next = await read.next();
    if (next.done) break;
    if (compareOplogTimes(next.value.ts, after) > 0) yield next.value.bytes;
  }
}

interface ReadSliceRequest {
  name: string;
  path: string;
  keys: SliceKeys;
  database: string;
  expected: SliceFile["expected"];
  copyTo?: string | undefined;
  /** At the replay: what the check found, which the file must still hold. */
  checked?: OpenedSlice;
}

type SliceFacts = Omit<OpenedSlice, "path">;

/** Streams the slice, yielding each entry once its place is checked; returns what it is. */
async function* readSlice(request: ReadSliceRequest): AsyncGenerator<{ ts: OplogTime; bytes: Uint8Array }, SliceFacts> {
  const { name, expected, checked } = request;
  const file = new FileTap(request.copyTo);
  const decrypt = createDecryptStream({ masterKey: request.keys.masterKey, ...(request.keys.identities ? { identities: request.keys.identities } : {}) });
  const piping = pipeline(createReadStream(request.path, { highWaterMark: 1024 * 1024 }), file, decrypt);
  piping.catch(() => undefined); // its failure is the decryptor's, met below
  const documents = new DocumentSplitter(name);
  let preamble: Omit<SliceFacts, "size" | "sha256"> | undefined;
  let previous: OplogTime | undefined;
  try {
    try {
      for await (const chunk of decrypt as AsyncIterable<Buffer>) {
        if (!preamble) await checkPayloadKind(name, decrypt.header);
        for (const document of documents.push(chunk)) {
          if (!preamble) {
            preamble = readPreamble(name, document, request.database, expected);
            if (checked && !samePlace(preamble, checked)) throw changedSince(name);
            previous = preamble.start;
            continue;
          }
          const ts = entryTime(name, document);
          if (compareOplogTimes(ts, previous!) <= 0 || compareOplogTimes(ts, preamble.end) > 0) {
            throw new ChainError(
              `slice ${name} holds an entry at ${formatOplogTime(ts)} outside its interval (${formatOplogTime(preamble.start)}, ${formatOplogTime(preamble.end)}] or out of order`,
            );
          }
          previous = ts;
          documents.counted++;
          yield { ts, bytes: document.bytes };
        }
      }
      await piping;
    } catch (cause) {
      throw openingError(name, cause);
    }
    if (!preamble) throw new ChainError(`slice ${name} has no slice preamble: it is no dbvault oplog slice`);
    documents.end();
    const facts: SliceFacts = { ...preamble, size: file.size, sha256: file.digest() };
    if (checked && (facts.size !== checked.size || facts.sha256 !== checked.sha256)) throw changedSince(name);
    if (documents.counted !== preamble.entries) throw new ChainError(`slice ${name} holds ${documents.counted} entries, its preamble says ${preamble.entries}`);
    if (expected?.size !== undefined && facts.size !== expected.size) {
      throw new ChainError(`slice ${name} is ${facts.size} bytes, not the ${expected.size} stored: it is truncated or damaged`);
    }
    if (expected?.sha256 !== undefined && facts.sha256 !== expected.sha256)
      throw new ChainError(`slice ${name} does not match its stored checksum: it is damaged`);
    return facts;
  } finally {
    decrypt.destroy();
    file.destroy();
  }
}

async function checkPayloadKind(name: string, header: Promise<{ payloadKind: string }>): Promise<void> {
  const { payloadKind } = await header;
  if (payloadKind !== "oplog-slice") throw new ChainError(`${name} is not an oplog slice (it holds a ${payloadKind})`);
}

function openingError(name: string, cause: unknown): ChainError {
  if (cause instanceof ChainError) return cause;
  if (cause instanceof WrongKeyError)
    return new ChainError(`slice ${name} was sealed with another key`, { cause, hint: "use the keyring of the agent that shipped it" });
  return new ChainError(`slice ${name} cannot be opened: ${(cause as Error).message}`, { cause });
}

function changedSince(name: string): ChainError {
  return new ChainError(`slice ${name} changed after it was checked`, {
    hint: "the target database is unchanged; restore again and leave the slices alone while it runs",
  });
}

function samePlace(preamble: Omit<SliceFacts, "size" | "sha256">, checked: OpenedSlice): boolean {
  return (
    preamble.chain === checked.chain &&
    preamble.sequence === checked.sequence &&
    preamble.entries === checked.entries &&
    compareOplogTimes(preamble.start, checked.start) === 0 &&
    compareOplogTimes(preamble.end, checked.end) === 0
  );
}

function readPreamble(name: string, document: { bytes: Uint8Array }, database: string, expected: SliceFile["expected"]): Omit<SliceFacts, "size" | "sha256"> {
  const o = BSON.deserialize(document.bytes).o as Record<string, unknown> | undefined;
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
  return { name, database, chain: o.chain, sequence: o.sequence, start, end, entries: typeof o.entries === "number" ? o.entries : -1 };
}

function entryTime(name: string, document: { bytes: Uint8Array; offset: number }): OplogTime {
  let ts: OplogTime | undefined;
  try {
    ts = timeOf(BSON.deserialize(document.bytes, { promoteValues: false }).ts);
  } catch {
    ts = undefined;
  }
  if (!ts) throw new ChainError(`slice ${name} holds an entry without a timestamp at byte ${document.offset}`);
  return ts;
}

/** The concatenated BSON documents of a plaintext as it streams in; holds at most one document's bytes. */
class DocumentSplitter {
  counted = 0;
  #pending: Buffer = Buffer.alloc(0);
  #offset = 0;

  constructor(readonly name: string) {}

  *push(chunk: Buffer): Generator<{ bytes: Uint8Array; offset: number }> {
    let buffer = this.#pending.length > 0 ? Buffer.concat([this.#pending, chunk]) : chunk;
    while (buffer.length >= 4) {
      const length = buffer.readInt32LE(0);
      if (length < 5) throw new ChainError(`slice ${this.name} holds a damaged entry at byte ${this.#offset}`);
      if (buffer.length < length) break;
      // A copy: the entry outlives the decryptor's chunk, which is not kept whole.
      const bytes = Buffer.from(buffer.subarray(0, length));
      const offset = this.#offset;
      this.#offset += length;
      buffer = buffer.subarray(length);
      yield { bytes, offset };
    }
    this.#pending = Buffer.from(buffer);
  }

  end(): void {
    if (this.#pending.length > 0) throw new ChainError(`slice ${this.name} holds a damaged entry at byte ${this.#offset}`);
  }
}

/** Passes the file's bytes on while counting and hashing them, and writes them to the private copy when there is one. */
class FileTap extends Transform {
  size = 0;
  readonly #hash: Hash = createHash("sha256");
  readonly #copy: WriteStream | undefined;

  constructor(copyTo: string | undefined) {
    super();
    // 0600, and never over an existing file: the copy sits in a 0700 directory the restore made.
    this.#copy = copyTo === undefined ? undefined : createWriteStream(copyTo, { mode: 0o600, flags: "wx" });
    this.#copy?.on("error", (error) => this.destroy(error));
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null, data?: Buffer) => void): void {
    this.size += chunk.length;
    this.#hash.update(chunk);
    if (!this.#copy || this.#copy.write(chunk)) callback(null, chunk);
    else this.#copy.once("drain", () => callback(null, chunk));
  }

  digest(): string {
    return this.#hash.digest("hex");
  }

  // The file read whole: the copy ends, and the pipeline with it once the copy is on disk.
  override _flush(callback: (error?: Error | null) => void): void {
    if (this.#copy) this.#copy.end((error?: Error | null) => callback(error));
    else callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.#copy?.destroy();
    callback(error);
  }
}

function timeOf(value: unknown): OplogTime | undefined {
  return value instanceof Timestamp ? { t: value.t, i: value.i } : undefined;
}
