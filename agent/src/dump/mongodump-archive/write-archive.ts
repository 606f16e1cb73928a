import { completeArchiveHeader, encodeArchiveHeader, encodeCollectionEntry, encodeNamespaceHeader } from "./block-codec.ts";
import { Crc64 } from "./crc64.ts";
import { MongodumpArchiveError } from "./errors.ts";
import { formatNamespace, listDataNamespaces, MAGIC_BYTES, MAX_DOCUMENT_BYTES, MIN_DOCUMENT_BYTES, readInt32LE, TERMINATOR_BYTES } from "./format.ts";
import type { ArchivePrelude, ArchiveWriteItem, CollectionSpec } from "./types.ts";

export interface WriteArchiveOptions {
  /** Size of the byte chunks yielded (the last one may be shorter); default 256 KiB. */
  chunkBytes?: number;
  /** A namespace's run of documents is cut into segments of at most about this size; default 16 MiB like mongodump. */
  maxSegmentBytes?: number;
  /** Largest document accepted, in bytes; defaults to 16 MiB + 16 KiB (the server's internal limit). */
  maxDocumentBytes?: number;
}

// BSON's element type of an embedded document.
const BSON_DOCUMENT_TYPE = 0x03;

interface NamespaceState {
  db: string;
  collection: string;
  crc: Crc64;
  segments: number;
  ended: boolean;
}

/**
 * Writes a mongodump `--archive` stream: the prelude (header and every collection's metadata as
 * canonical Extended JSON v2), then the items' documents in segments, each namespace closed by an
 * EOF header carrying the CRC-64 of its documents. Namespaces not ended by an item end, in
 * prelude order, when the items run out (an empty one gets an empty segment, as mongodump
 * writes). Pull-based: the next item is read only when the consumer asks for more bytes, so
 * memory stays at one chunk plus one document. Throws MongodumpArchiveError on a duplicate or
 * unknown namespace, a malformed document, a namespace ended twice or written after its end.
 */
export async function* writeMongodumpArchive(
  prelude: ArchivePrelude,
  items: AsyncIterable<ArchiveWriteItem> | Iterable<ArchiveWriteItem>,
  options: WriteArchiveOptions = {},
): AsyncGenerator<Uint8Array, void, undefined> {
  const ready: Uint8Array[] = [];
  // Each full chunk is handed out as it is: the encoder starts a fresh one (no reuse here).
  const encoder = new ArchiveEncoder(prelude, options, (chunk) => void ready.push(chunk), false);
  const drain = function* () {
    while (ready.length > 0) yield ready.shift()!;
  };
  yield* drain();
  for await (const item of items) {
    if (item.kind === "namespace-end") encoder.endNamespace(item.namespace);
    else encoder.writeDocument(item.namespace, item.bytes);
    if (ready.length > 0) yield* drain();
  }
  encoder.finish();
  yield* drain();
}

/**
 * The synchronous core of writeMongodumpArchive: feed documents and namespace ends, get archive
 * bytes through `emit` in chunks of `chunkBytes` (the last one shorter). With `reuseChunks` the
 * same buffer is emitted again after each call returns, so `emit` must copy what it keeps; that
 * spares a fresh chunk of memory per 256 KiB of a dump. Throws MongodumpArchiveError like the
 * generator.
 */
export class ArchiveEncoder {
  readonly #out: ChunkBuilder;
  readonly #states: Map<string, NamespaceState>;
  readonly #prelude: ArchivePrelude;
  readonly #serverVersion: string;
  readonly #maxSegmentBytes: number;
  readonly #maxDocumentBytes: number;
  #current: NamespaceState | undefined; // the namespace whose segment is open
  #segmentBytes = 0;

  constructor(prelude: ArchivePrelude, options: WriteArchiveOptions, emit: (chunk: Uint8Array) => void, reuseChunks: boolean) {
    this.#maxSegmentBytes = options.maxSegmentBytes ?? 16 * 1024 * 1024;
    this.#maxDocumentBytes = options.maxDocumentBytes ?? MAX_DOCUMENT_BYTES;
    this.#out = new ChunkBuilder(options.chunkBytes ?? 256 * 1024, emit, reuseChunks);
    const header = completeArchiveHeader(prelude.header);
    this.#prelude = prelude;
    this.#serverVersion = header.serverVersion;
    this.#states = planNamespaces(prelude.collections);
    this.#out.append(MAGIC_BYTES);
    this.#out.append(encodeArchiveHeader(header));
    for (const spec of prelude.collections) this.#out.append(encodeCollectionEntry(spec));
    this.#out.append(TERMINATOR_BYTES);
  }

  /** Appends one raw BSON document of a namespace; throws MongodumpArchiveError when it is refused. */
  writeDocument(namespace: string, bytes: Uint8Array): void {
    if (!(bytes instanceof Uint8Array)) {
      throw new MongodumpArchiveError("invalid-document", `a document of ${namespace} is not a byte array`, { namespace });
    }
    this.#writeDocumentAt(this.#openState(namespace, "document"), namespace, bytes, 0, bytes.length);
  }

  /** Appends several documents of one namespace (a cursor batch). */
  writeDocuments(namespace: string, documents: readonly Uint8Array[]): void {
    for (const bytes of documents) this.writeDocument(namespace, bytes);
  }

  /**
   * Appends the documents of a BSON array's elements, `bytes[start..end)` (a cursor batch as the
   * server sent it: between the array's length prefix and its final 0x00), straight from those
   * bytes: no object or view per document. Returns how many documents it wrote; throws
   * MongodumpArchiveError when an element is not a well-formed document.
   */
  writeBatch(namespace: string, bytes: Uint8Array, start: number, end: number): number {
    const state = this.#openState(namespace, "document");
    let offset = start;
    let count = 0;
    while (offset < end) {
      if (bytes[offset] !== BSON_DOCUMENT_TYPE) {
        throw new MongodumpArchiveError("invalid-document", `an element of a batch of ${namespace} is not a document`, { namespace });
      }
      offset = bytes.indexOf(0, offset + 1) + 1; // past the element's name (the array index)
      if (offset <= 0 || offset + MIN_DOCUMENT_BYTES > end) {
        throw new MongodumpArchiveError("invalid-document", `a batch of ${namespace} ends inside a document`, { namespace });
      }
      const length = readInt32LE(bytes, offset);
      if (length < MIN_DOCUMENT_BYTES || offset + length > end) {
        throw new MongodumpArchiveError("invalid-document", `a batch of ${namespace} ends inside a document`, { namespace });
      }
      this.#writeDocumentAt(state, namespace, bytes, offset, length);
      offset += length;
      count++;
    }
    return count;
  }

  #writeDocumentAt(state: NamespaceState, namespace: string, bytes: Uint8Array, offset: number, length: number): void {
    checkDocument(bytes, offset, length, namespace, this.#maxDocumentBytes);
    if (this.#current !== state || (this.#segmentBytes > 0 && this.#segmentBytes + length > this.#maxSegmentBytes)) {
      this.#closeSegment();
      this.#openSegment(state);
    }
    state.crc.update(bytes, offset, offset + length);
    this.#out.append(bytes, offset, offset + length);
    this.#segmentBytes += length;
  }

  /** Writes a namespace's end marker with its CRC. */
  endNamespace(namespace: string): void {
    this.#endState(this.#openState(namespace, "namespace-end"));
  }

  /** Ends every namespace not ended yet, in prelude order, and emits the last (short) chunk. */
  finish(): void {
    for (const spec of this.#prelude.collections) {
      const dataStates = listDataNamespaces(spec.db, spec.collection, spec.type).map((namespace) => this.#states.get(namespace)!);
      const used = dataStates.filter((state) => state.segments > 0);
      // An entry nobody wrote to ends under its default data namespace; the others under those used.
      const toEnd = used.length > 0 ? used : [this.#states.get(defaultDataNamespace(spec, this.#serverVersion))!];
      for (const state of toEnd) if (!state.ended) this.#endState(state);
    }
    this.#out.finish();
  }

  #openState(namespace: string, kind: ArchiveWriteItem["kind"]): NamespaceState {
    const state = findState(this.#states, namespace);
    if (state.ended) {
      throw new MongodumpArchiveError(kind === "document" ? "segment-after-end" : "namespace-ended-twice", `${namespace} has already ended`, {
        namespace,
      });
    }
    return state;
  }

  #closeSegment(): void {
    if (this.#current !== undefined) this.#out.append(TERMINATOR_BYTES);
    this.#current = undefined;
  }

  #openSegment(state: NamespaceState): void {
    this.#out.append(encodeNamespaceHeader(state.db, state.collection));
    state.segments++;
    this.#current = state;
    this.#segmentBytes = 0;
  }

  #endState(state: NamespaceState): void {
    // An empty segment first when nothing was written: mongorestore needs it to create an
    // empty collection or a view, and mongodump always writes one.
    if (state.segments === 0) {
      this.#closeSegment();
      this.#openSegment(state);
    }
    this.#closeSegment();
    this.#out.append(encodeNamespaceHeader(state.db, state.collection, state.crc.digestInt64()));
    this.#out.append(TERMINATOR_BYTES);
    state.ended = true;
  }
}

function planNamespaces(collections: CollectionSpec[]): Map<string, NamespaceState> {
  const states = new Map<string, NamespaceState>();
  const described = new Set<string>();
  for (const spec of collections) {
    const namespace = formatNamespace(spec.db, spec.collection);
    if (described.has(namespace) || spec.collection === "") {
      throw new MongodumpArchiveError(
        spec.collection === "" ? "invalid-metadata" : "duplicate-namespace",
        spec.collection === "" ? `a collection of database "${spec.db}" has an empty name` : `the prelude describes ${namespace} twice`,
        { namespace },
      );
    }
    described.add(namespace);
    for (const dataNamespace of listDataNamespaces(spec.db, spec.collection, spec.type)) {
      const dot = dataNamespace.indexOf(".");
      states.set(dataNamespace, {
        db: dataNamespace.slice(0, dot),
        collection: dataNamespace.slice(dot + 1),
        crc: new Crc64(),
        segments: 0,
        ended: false,
      });
    }
  }
  return states;
}

// Time-series buckets travel as system.buckets.X for servers before 8.3, as X itself after.
function defaultDataNamespace(spec: CollectionSpec, serverVersion: string): string {
  if (spec.type !== "timeseries") return formatNamespace(spec.db, spec.collection);
  const [major = 0, minor = 0] = serverVersion.split(".").map((part) => Number.parseInt(part, 10) || 0);
  const bucketsSeparate = major < 8 || (major === 8 && minor < 3);
  return formatNamespace(spec.db, bucketsSeparate ? `system.buckets.${spec.collection}` : spec.collection);
}

function findState(states: Map<string, NamespaceState>, namespace: string): NamespaceState {
  const state = states.get(namespace);
  if (state === undefined) {
    throw new MongodumpArchiveError("unknown-namespace", `${namespace} is not described in the prelude`, { namespace });
  }
  return state;
}

// The document is bytes[offset..offset + length).
function checkDocument(bytes: Uint8Array, offset: number, length: number, namespace: string, maxDocumentBytes: number): void {
  const fail = (why: string) => new MongodumpArchiveError("invalid-document", `a document of ${namespace} ${why}`, { namespace });
  if (length < MIN_DOCUMENT_BYTES || length > maxDocumentBytes) {
    throw fail(`is ${length} bytes long, outside ${MIN_DOCUMENT_BYTES} to ${maxDocumentBytes}`);
  }
  if (readInt32LE(bytes, offset) !== length) throw fail("has a length prefix that differs from its size");
  if (bytes[offset + length - 1] !== 0) throw fail("does not end with a 0x00 byte");
}

/** Copies small writes into fixed-size chunks so downstream stages see few, large buffers. */
class ChunkBuilder {
  private buffer: Uint8Array;
  private used = 0;

  constructor(
    private readonly chunkBytes: number,
    private readonly emit: (chunk: Uint8Array) => void,
    private readonly reuse: boolean,
  ) {
    this.buffer = new Uint8Array(chunkBytes);
  }

  /** Copies bytes[start..end) (all of them by default). */
  append(bytes: Uint8Array, start = 0, end = bytes.length): void {
    let offset = start;
    while (offset < end) {
      const count = Math.min(end - offset, this.chunkBytes - this.used);
      this.buffer.set(count === bytes.length ? bytes : bytes.subarray(offset, offset + count), this.used);
      this.used += count;
      offset += count;
      if (this.used === this.chunkBytes) {
        this.emit(this.buffer);
        if (!this.reuse) this.buffer = new Uint8Array(this.chunkBytes);
        this.used = 0;
      }
    }
  }

  finish(): void {
    if (this.used > 0) this.emit(this.buffer.subarray(0, this.used));
    this.used = 0;
  }
}
