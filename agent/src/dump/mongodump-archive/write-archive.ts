import {
  completeArchiveHeader,
  encodeArchiveHeader,
  encodeCollectionEntry,
  encodeNamespaceHeader,
} from "./block-codec.ts";
import { Crc64 } from "./crc64.ts";
import { MongodumpArchiveError } from "./errors.ts";
import {
  formatNamespace,
  listDataNamespaces,
  MAGIC_BYTES,
  MAX_DOCUMENT_BYTES,
  MIN_DOCUMENT_BYTES,
  readInt32LE,
  TERMINATOR_BYTES,
} from "./format.ts";
import type { ArchivePrelude, ArchiveWriteItem, CollectionSpec } from "./types.ts";

export interface WriteArchiveOptions {
  /** Size of the byte chunks yielded (the last one may be shorter); default 256 KiB. */
  chunkBytes?: number;
  /** A namespace's run of documents is cut into segments of at most about this size; default 16 MiB like mongodump. */
  maxSegmentBytes?: number;
  /** Largest document accepted, in bytes; defaults to 16 MiB + 16 KiB (the server's internal limit). */
  maxDocumentBytes?: number;
}

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
  const maxSegmentBytes = options.maxSegmentBytes ?? 16 * 1024 * 1024;
  const maxDocumentBytes = options.maxDocumentBytes ?? MAX_DOCUMENT_BYTES;
  const out = new ChunkBuilder(options.chunkBytes ?? 256 * 1024);
  const header = completeArchiveHeader(prelude.header);
  const states = planNamespaces(prelude.collections);

  out.append(MAGIC_BYTES);
  out.append(encodeArchiveHeader(header));
  for (const spec of prelude.collections) out.append(encodeCollectionEntry(spec));
  out.append(TERMINATOR_BYTES);

  let current: NamespaceState | undefined; // the namespace whose segment is open
  let segmentBytes = 0;
  const closeSegment = () => {
    if (current !== undefined) out.append(TERMINATOR_BYTES);
    current = undefined;
  };
  const openSegment = (state: NamespaceState) => {
    out.append(encodeNamespaceHeader(state.db, state.collection));
    state.segments++;
    current = state;
    segmentBytes = 0;
  };
  const endNamespace = (state: NamespaceState) => {
    // An empty segment first when nothing was written: mongorestore needs it to create an
    // empty collection or a view, and mongodump always writes one.
    if (state.segments === 0) {
      closeSegment();
      openSegment(state);
    }
    closeSegment();
    out.append(encodeNamespaceHeader(state.db, state.collection, state.crc.digestInt64()));
    out.append(TERMINATOR_BYTES);
    state.ended = true;
  };

  for await (const item of items) {
    const state = findState(states, item.namespace);
    if (state.ended) {
      throw new MongodumpArchiveError(
        item.kind === "document" ? "segment-after-end" : "namespace-ended-twice",
        `${item.namespace} has already ended`,
        { namespace: item.namespace },
      );
    }
    if (item.kind === "namespace-end") {
      endNamespace(state);
    } else {
      const bytes = item.bytes;
      checkDocument(bytes, item.namespace, maxDocumentBytes);
      if (current !== state || (segmentBytes > 0 && segmentBytes + bytes.length > maxSegmentBytes)) {
        closeSegment();
        openSegment(state);
      }
      state.crc.update(bytes);
      out.append(bytes);
      segmentBytes += bytes.length;
    }
    if (out.ready.length > 0) yield* out.drain();
  }

  for (const spec of prelude.collections) {
    const dataStates = listDataNamespaces(spec.db, spec.collection, spec.type).map((namespace) => states.get(namespace)!);
    const used = dataStates.filter((state) => state.segments > 0);
    // An entry nobody wrote to ends under its default data namespace; the others under those used.
    const toEnd = used.length > 0 ? used : [states.get(defaultDataNamespace(spec, header.serverVersion))!];
    for (const state of toEnd) {
      if (state.ended) continue;
      endNamespace(state);
      if (out.ready.length > 0) yield* out.drain();
    }
  }
  yield* out.drain();
  const last = out.finish();
  if (last.length > 0) yield last;
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

function checkDocument(bytes: Uint8Array, namespace: string, maxDocumentBytes: number): void {
  const fail = (why: string) =>
    new MongodumpArchiveError("invalid-document", `a document of ${namespace} ${why}`, { namespace });
  if (!(bytes instanceof Uint8Array)) throw fail("is not a byte array");
  if (bytes.length < MIN_DOCUMENT_BYTES || bytes.length > maxDocumentBytes) {
    throw fail(`is ${bytes.length} bytes long, outside ${MIN_DOCUMENT_BYTES} to ${maxDocumentBytes}`);
  }
  if (readInt32LE(bytes, 0) !== bytes.length) throw fail("has a length prefix that differs from its size");
  if (bytes[bytes.length - 1] !== 0) throw fail("does not end with a 0x00 byte");
}

/** Copies small writes into fixed-size chunks so downstream stages see few, large buffers. */
class ChunkBuilder {
  readonly ready: Uint8Array[] = [];
  private buffer: Uint8Array;
  private used = 0;

  constructor(private readonly chunkBytes: number) {
    this.buffer = new Uint8Array(chunkBytes);
  }

  append(bytes: Uint8Array): void {
    let offset = 0;
    while (offset < bytes.length) {
      const count = Math.min(bytes.length - offset, this.chunkBytes - this.used);
      this.buffer.set(count === bytes.length ? bytes : bytes.subarray(offset, offset + count), this.used);
      this.used += count;
      offset += count;
      if (this.used === this.chunkBytes) {
        this.ready.push(this.buffer);
        this.buffer = new Uint8Array(this.chunkBytes);
        this.used = 0;
      }
    }
  }

  *drain(): Generator<Uint8Array> {
    while (this.ready.length > 0) yield this.ready.shift()!;
  }

  finish(): Uint8Array {
    const last = this.buffer.subarray(0, this.used);
    this.used = 0;
    return last;
  }
}
