// The archive parser's synchronous core: feed it byte chunks as they come, it walks the block
// structure and reports events through a callback. Everything async (pulling from a stream,
// yielding events) lives in read-archive.ts; `encrypt` and `verify` drive this directly.
//
// Speed matters here: every byte of every backup passes through it. Document bodies are never
// copied unless the caller wants them whole and they span two input chunks; without a document
// listener a body is only checksummed where it lies, however large. Only the small BSON
// documents of the format itself (header, prelude entries, namespace headers) are assembled.
import { decodeArchiveHeader, decodeCollectionMetadata, decodeNamespaceHeader } from "./block-codec.ts";
import { formatCrc64 } from "./crc64.ts";
import { MongodumpArchiveError } from "./errors.ts";
import { formatNamespace, listDataNamespaces, MAGIC_BYTES, MAX_DOCUMENT_BYTES, MIN_DOCUMENT_BYTES, TERMINATOR } from "./format.ts";
import { type ChecksumFactory, inlineChecksums, type NamespaceChecksum } from "./namespace-checksum.ts";
import type { ArchiveEvent, CollectionMetadata } from "./types.ts";

export interface ReadArchiveOptions {
  /** "throw" (default) fails on a CRC mismatch; "report" yields namespace-end with crcOk false. */
  crcMismatch?: "throw" | "report";
  /** Largest document accepted, in bytes; defaults to 16 MiB + 16 KiB (the server's internal limit). */
  maxDocumentBytes?: number;
  /** Where documents are otherwise only checked: `document` events for these namespaces still (an archive's oplog, say). */
  documentsOf?: ReadonlySet<string>;
}

export interface ScanOptions extends ReadArchiveOptions {
  /** Whether `document` events are wanted (with each document's bytes); false checks them only. */
  documents: boolean;
  /**
   * Where document bytes are checksummed (inline by default). A deferred checksum (the CRC
   * offload) reports namespace-end with crcOk true and fails its own `finish` on a mismatch.
   */
  checksums?: ChecksumFactory;
}

interface NamespaceState {
  crc: NamespaceChecksum;
  documentCount: number;
  documentBytes: number;
  started: boolean;
  ended: boolean;
}

// Where the scanner is in the archive's grammar.
enum Step {
  Magic,
  Header,
  Prelude,
  /** Between blocks: a namespace header (or EOF header) comes next, or the end of input. */
  Block,
  /** After an EOF header: its terminator comes next. */
  AfterEof,
  /** Inside a segment: documents until a terminator. */
  Segment,
  /** Inside a document body that is checked in place (no document listener). */
  Body,
}

const TERMINATOR_UNIT = Symbol("terminator");
type Unit = Uint8Array | typeof TERMINATOR_UNIT;

/**
 * Synchronous mongodump archive parser. `write` each chunk in order, then `end`. Events (the same
 * ones readMongodumpArchive yields) go to `emit` as they are found; document bytes may be views
 * of the input chunk. Throws MongodumpArchiveError from `write` or `end` at the first problem.
 */
export class ArchiveScanner {
  /** Bytes consumed so far: the stream offset of the next byte. */
  position = 0;
  readonly #emit: (event: ArchiveEvent) => void;
  readonly #maxDocumentBytes: number;
  readonly #reportCrcMismatch: boolean;
  readonly #allDocuments: boolean;
  readonly #documentsOf: ReadonlySet<string> | undefined;
  /** Whether the current segment's documents are emitted. */
  #wantDocuments: boolean;
  readonly #checksums: ChecksumFactory;
  readonly #collections: CollectionMetadata[] = [];
  readonly #states = new Map<string, NamespaceState>();
  #step = Step.Magic;
  #namespace = "";
  #state: NamespaceState | undefined;
  #pendingEnd: ArchiveEvent | undefined;
  // The unit (document or terminator) being assembled across chunks.
  readonly #lengthBytes = new Uint8Array(4);
  #lengthHave = 0;
  #unit: Uint8Array | undefined;
  #unitHave = 0;
  #unitStart = 0;
  // A document body checked in place.
  #bodyLeft = 0;
  #bodyLength = 0;

  constructor(options: ScanOptions, emit: (event: ArchiveEvent) => void) {
    this.#emit = emit;
    this.#maxDocumentBytes = options.maxDocumentBytes ?? MAX_DOCUMENT_BYTES;
    this.#reportCrcMismatch = options.crcMismatch === "report";
    this.#allDocuments = options.documents;
    this.#documentsOf = options.documentsOf;
    this.#wantDocuments = options.documents;
    this.#checksums = options.checksums ?? inlineChecksums;
  }

  /** Parses the next chunk of the archive; throws MongodumpArchiveError on damage. */
  write(chunk: Uint8Array): void {
    let at = 0;
    const length = chunk.length;
    while (at < length) {
      if (this.#step === Step.Body) {
        at = this.#checkBody(chunk, at);
        continue;
      }
      if (this.#step === Step.Magic) {
        at = this.#readMagic(chunk, at);
        continue;
      }
      // Fast path: whole documents of a segment lying in this chunk, the bulk of every archive.
      if (this.#step === Step.Segment && this.#lengthHave === 0 && this.#unit === undefined) {
        at = this.#readDocumentsInPlace(chunk, at);
        if (at >= length || this.#step !== Step.Segment) continue;
      }
      const before = at;
      const unit = this.#assembleUnit(chunk, at);
      if (typeof unit === "number") {
        at = unit;
        continue;
      }
      at = before + unit.consumed;
      if (unit.value !== undefined) this.#acceptUnit(unit.value);
    }
  }

  /** Declares the end of input; emits `end` or throws MongodumpArchiveError (truncation). */
  end(): void {
    const midUnit = this.#lengthHave > 0 || this.#unit !== undefined || this.#step === Step.Body;
    if (this.#step === Step.Magic) {
      throw new MongodumpArchiveError("bad-magic", "the input is too short to be a mongodump archive", { offset: 0 });
    }
    if (midUnit || this.#step !== Step.Block) {
      throw new MongodumpArchiveError("truncated", `the input ends inside ${this.#describeUnit()}; the archive is truncated`, {
        offset: midUnit ? this.#unitStart : this.position,
      });
    }
    this.#checkEveryNamespaceEnded();
    this.#emit({ kind: "end", archiveBytes: this.position });
  }

  #readMagic(chunk: Uint8Array, at: number): number {
    const start = at;
    while (at < chunk.length && this.#lengthHave < 4) this.#lengthBytes[this.#lengthHave++] = chunk[at++]!;
    this.position += at - start;
    if (this.#lengthHave < 4) return at;
    const magic = this.#lengthBytes;
    this.#lengthHave = 0;
    if (!magic.every((byte, index) => byte === MAGIC_BYTES[index])) {
      let hint = "";
      if (magic[0] === 0x1f && magic[1] === 0x8b) hint = "; it looks gzip-compressed, decompress it first";
      else if (magic[0] === 0x28 && magic[1] === 0xb5 && magic[2] === 0x2f && magic[3] === 0xfd) {
        hint = "; it looks zstd-compressed, decompress it first";
      }
      throw new MongodumpArchiveError("bad-magic", `the input does not start with the mongodump archive magic number${hint}`, {
        offset: 0,
      });
    }
    this.#step = Step.Header;
    return at;
  }

  // Takes every document that lies whole in the chunk, plus the terminator ending the segment.
  // Returns where it stopped: at a document that continues in the next chunk, or after the segment.
  // A run of consecutive documents is checksummed in one call: they are adjacent in the stream.
  #readDocumentsInPlace(chunk: Uint8Array, at: number): number {
    const state = this.#state!;
    const end = chunk.length;
    const max = this.#maxDocumentBytes;
    const runStart = at;
    let count = 0;
    const finishRun = () => {
      state.crc.update(chunk, runStart, at);
      state.documentCount += count;
      state.documentBytes += at - runStart;
      this.position += at - runStart;
    };
    while (end - at >= 4) {
      const length = chunk[at]! | (chunk[at + 1]! << 8) | (chunk[at + 2]! << 16) | (chunk[at + 3]! << 24);
      if (length === TERMINATOR) {
        finishRun();
        at += 4;
        this.position += 4;
        this.#step = Step.Block;
        return at;
      }
      if (length < MIN_DOCUMENT_BYTES || length > max) {
        finishRun();
        throw this.#invalidLength(length, this.position);
      }
      if (end - at < length) {
        finishRun();
        if (this.#wantDocuments) return at;
        // Checked in place: the part here now, the rest as it arrives.
        this.#unitStart = this.position;
        this.#bodyLength = length;
        this.#bodyLeft = length - (end - at);
        state.crc.update(chunk, at, end);
        this.position += end - at;
        this.#step = Step.Body;
        return end;
      }
      if (chunk[at + length - 1] !== 0) {
        finishRun();
        throw this.#badTerminator(length, this.position);
      }
      if (this.#wantDocuments) this.#emit({ kind: "document", namespace: this.#namespace, bytes: chunk.subarray(at, at + length) });
      at += length;
      count++;
    }
    finishRun();
    return at;
  }

  #checkBody(chunk: Uint8Array, at: number): number {
    const n = Math.min(this.#bodyLeft, chunk.length - at);
    const piece = chunk.subarray(at, at + n);
    this.#state!.crc.update(piece);
    this.#bodyLeft -= n;
    this.position += n;
    if (this.#bodyLeft === 0) {
      if (piece[n - 1] !== 0) throw this.#badTerminator(this.#bodyLength, this.#unitStart);
      this.#state!.documentCount++;
      this.#state!.documentBytes += this.#bodyLength;
      this.#step = Step.Segment;
    }
    return at + n;
  }

  // Gathers the next document or terminator. Returns the new offset when the chunk ran out first,
  // else the unit (undefined when a document went on to be checked in place) and bytes consumed.
  #assembleUnit(chunk: Uint8Array, at: number): number | { value: Unit | undefined; consumed: number } {
    const start = at;
    if (this.#unit === undefined) {
      if (this.#lengthHave === 0) this.#unitStart = this.position;
      while (this.#lengthHave < 4 && at < chunk.length) this.#lengthBytes[this.#lengthHave++] = chunk[at++]!;
      this.position += at - start;
      if (this.#lengthHave < 4) return at;
      const b = this.#lengthBytes;
      const length = b[0]! | (b[1]! << 8) | (b[2]! << 16) | (b[3]! << 24);
      this.#lengthHave = 0;
      if (length === TERMINATOR) return { value: TERMINATOR_UNIT, consumed: at - start };
      if (length < MIN_DOCUMENT_BYTES || length > this.#maxDocumentBytes) throw this.#invalidLength(length, this.#unitStart);
      if (this.#step === Step.Segment && !this.#wantDocuments) {
        this.#state!.crc.update(b);
        this.#bodyLength = length;
        this.#bodyLeft = length - 4;
        this.#step = Step.Body;
        return { value: undefined, consumed: at - start };
      }
      if (at - start === 4 && chunk.length - start >= length) {
        // The whole unit lies in this chunk: a view, no copy.
        this.position += length - 4;
        return { value: this.#checkUnit(chunk.subarray(start, start + length)), consumed: length };
      }
      this.#unit = new Uint8Array(length);
      this.#unit.set(b);
      this.#unitHave = 4;
    }
    const unit = this.#unit;
    const n = Math.min(unit.length - this.#unitHave, chunk.length - at);
    unit.set(chunk.subarray(at, at + n), this.#unitHave);
    this.#unitHave += n;
    at += n;
    this.position += n;
    if (this.#unitHave < unit.length) return at;
    this.#unit = undefined;
    return { value: this.#checkUnit(unit), consumed: at - start };
  }

  #checkUnit(document: Uint8Array): Uint8Array {
    if (document[document.length - 1] !== 0) throw this.#badTerminator(document.length, this.#unitStart);
    return document;
  }

  #acceptUnit(unit: Unit): void {
    const offset = this.#unitStart;
    switch (this.#step) {
      case Step.Header:
        if (unit === TERMINATOR_UNIT) throw this.#unexpectedTerminator("the archive header", offset);
        this.#emit({ kind: "header", header: decodeArchiveHeader(unit, offset) });
        this.#step = Step.Prelude;
        return;
      case Step.Prelude:
        if (unit === TERMINATOR_UNIT) this.#step = Step.Block;
        else this.#acceptCollection(decodeCollectionMetadata(unit, offset), offset);
        return;
      case Step.Block:
        if (unit === TERMINATOR_UNIT) throw this.#unexpectedTerminator("a namespace header", offset);
        this.#acceptBlockHeader(unit, offset);
        return;
      case Step.AfterEof:
        if (unit !== TERMINATOR_UNIT) {
          throw new MongodumpArchiveError("data-after-eof-header", `documents follow the end marker of ${this.#namespace}`, {
            offset,
            namespace: this.#namespace,
          });
        }
        this.#step = Step.Block;
        this.#emit(this.#pendingEnd!);
        this.#pendingEnd = undefined;
        return;
      case Step.Segment: {
        if (unit === TERMINATOR_UNIT) {
          this.#step = Step.Block;
          return;
        }
        const state = this.#state!;
        state.crc.update(unit);
        state.documentCount++;
        state.documentBytes += unit.length;
        if (this.#wantDocuments) this.#emit({ kind: "document", namespace: this.#namespace, bytes: unit });
        return;
      }
      default:
        throw new Error(`unreachable: unit in step ${this.#step}`);
    }
  }

  #acceptCollection(metadata: CollectionMetadata, offset: number): void {
    if (this.#collections.some((known) => known.namespace === metadata.namespace)) {
      throw new MongodumpArchiveError("duplicate-namespace", `the prelude describes ${metadata.namespace} twice`, {
        offset,
        namespace: metadata.namespace,
      });
    }
    this.#collections.push(metadata);
    for (const namespace of listDataNamespaces(metadata.db, metadata.collection, metadata.type)) {
      this.#states.set(namespace, { crc: this.#checksums(namespace), documentCount: 0, documentBytes: 0, started: false, ended: false });
    }
    this.#emit({ kind: "collection", metadata });
  }

  #acceptBlockHeader(unit: Uint8Array, offset: number): void {
    const header = decodeNamespaceHeader(unit, offset);
    const namespace = formatNamespace(header.db, header.collection);
    const state = this.#states.get(namespace);
    if (state === undefined) {
      throw new MongodumpArchiveError("unknown-namespace", `found data for ${namespace}, which the prelude does not describe`, {
        offset,
        namespace,
      });
    }
    this.#namespace = namespace;
    this.#state = state;
    // Between segments: no document of the last one is still being checked in place.
    if (this.#documentsOf) this.#wantDocuments = this.#allDocuments || this.#documentsOf.has(namespace);
    if (header.eof) {
      this.#pendingEnd = this.#endNamespace(state, header.crc, namespace, offset);
      this.#step = Step.AfterEof;
      return;
    }
    if (state.ended) {
      throw new MongodumpArchiveError("segment-after-end", `found a segment of ${namespace} after it ended`, { offset, namespace });
    }
    state.started = true;
    this.#step = Step.Segment;
  }

  #endNamespace(state: NamespaceState, storedCrc: bigint, namespace: string, offset: number): ArchiveEvent {
    if (state.ended) {
      throw new MongodumpArchiveError("namespace-ended-twice", `${namespace} has a second end marker`, { offset, namespace });
    }
    state.ended = true;
    const crcOk = state.crc.matches(storedCrc, offset) ?? true;
    if (!crcOk && !this.#reportCrcMismatch) throw crcMismatchError(namespace, storedCrc, offset);
    return {
      kind: "namespace-end",
      namespace,
      documentCount: state.documentCount,
      documentBytes: state.documentBytes,
      crc: storedCrc,
      crcOk,
    };
  }

  #checkEveryNamespaceEnded(): void {
    const offset = this.position;
    for (const [namespace, state] of this.#states) {
      if (state.started && !state.ended) {
        throw new MongodumpArchiveError("unfinished-namespace", `the archive ends before the end marker of ${namespace}; it is truncated`, {
          offset,
          namespace,
        });
      }
    }
    // mongodump writes at least an empty segment and an end marker for every prelude entry
    // (views included), so a missing one means whole namespaces were cut off.
    for (const metadata of this.#collections) {
      const ended = listDataNamespaces(metadata.db, metadata.collection, metadata.type).some((namespace) => this.#states.get(namespace)?.ended);
      if (!ended) {
        throw new MongodumpArchiveError(
          "unfinished-namespace",
          `the archive ends without the data of ${metadata.namespace}, which its prelude announces; it is truncated`,
          { offset, namespace: metadata.namespace },
        );
      }
    }
  }

  #describeUnit(): string {
    switch (this.#step) {
      case Step.Header:
        return "the archive header";
      case Step.Prelude:
        return "the archive prelude";
      case Step.Block:
        return "a namespace header";
      case Step.AfterEof:
        return `the end marker of ${this.#namespace}`;
      default:
        return `a document of ${this.#namespace}`;
    }
  }

  #invalidLength(length: number, offset: number): MongodumpArchiveError {
    return new MongodumpArchiveError(
      "invalid-length",
      `${this.#describeUnit()} has length ${length}, which is neither a BSON length (${MIN_DOCUMENT_BYTES} to ${this.#maxDocumentBytes} bytes) nor a terminator`,
      { offset },
    );
  }

  #badTerminator(length: number, offset: number): MongodumpArchiveError {
    return new MongodumpArchiveError("bad-document-terminator", `${this.#describeUnit()} (${length} bytes) does not end with a 0x00 byte`, {
      offset,
    });
  }

  #unexpectedTerminator(where: string, offset: number): MongodumpArchiveError {
    return new MongodumpArchiveError("unexpected-terminator", `found a terminator where ${where} belongs`, { offset });
  }
}

/** The error for documents that do not match their namespace's stored CRC; never throws. */
export function crcMismatchError(namespace: string, storedCrc: bigint, offset: number): MongodumpArchiveError {
  return new MongodumpArchiveError(
    "crc-mismatch",
    `the documents of ${namespace} do not match their checksum (stored CRC-64 ${formatCrc64(storedCrc)}); the archive is damaged`,
    { offset, namespace },
  );
}
