// Helpers shared by this folder's tests: fixtures, chunked sources, event collection.

import { BSON, type Document } from "bson";
import { completeArchiveHeader, createCollectionSpec, encodeArchiveHeader, encodeCollectionEntry, encodeNamespaceHeader } from "./block-codec.ts";
import { computeCrc64 } from "./crc64.ts";
import { MongodumpArchiveError } from "./errors.ts";
import { readMongodumpArchive, type ReadArchiveOptions } from "./read-archive.ts";
import { MAGIC_BYTES, TERMINATOR_BYTES } from "./format.ts";
import type { ArchiveEvent, ArchivePrelude, ArchiveSource, ArchiveWriteItem, CollectionSpec } from "./types.ts";

export const FIXTURE_DIR = new URL("../../../test-data/mongodump-archives/", import.meta.url).pathname;

/** Reads one fixture archive into memory. */
export async function readFixture(name: string): Promise<Uint8Array> {
  return new Uint8Array(await Bun.file(FIXTURE_DIR + name).arrayBuffer());
}

/** Yields the bytes in chunks of the given size (1 = byte by byte). */
export async function* chunkBytes(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let offset = 0; offset < bytes.length; offset += size) yield bytes.subarray(offset, offset + size);
}

/** Yields the bytes in chunks of random sizes from 1 to maxSize, from a seeded generator. */
export async function* chunkRandomly(bytes: Uint8Array, maxSize: number, seed: number): AsyncGenerator<Uint8Array> {
  const random = createRandom(seed);
  let offset = 0;
  while (offset < bytes.length) {
    const size = 1 + Math.floor(random() * maxSize);
    yield bytes.slice(offset, offset + size);
    offset += size;
  }
}

/** A small deterministic PRNG (mulberry32) so failing cases can be replayed. */
export function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Reads a whole archive and returns its events. */
export async function collectEvents(source: ArchiveSource, options?: ReadArchiveOptions): Promise<ArchiveEvent[]> {
  const events: ArchiveEvent[] = [];
  for await (const event of readMongodumpArchive(source, options)) events.push(event);
  return events;
}

/** Concatenates everything an async byte generator yields. */
export async function collectBytes(chunks: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const chunk of chunks) parts.push(chunk);
  return new Uint8Array(Buffer.concat(parts));
}

/** Counts the documents of each namespace in a list of events. */
export function countDocuments(events: ArchiveEvent[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const event of events) {
    if (event.kind === "namespace-end") counts[event.namespace] = event.documentCount;
  }
  return counts;
}

/** Splits events read from an archive into the writer's prelude and items, to write it again. */
export function splitForRewrite(events: ArchiveEvent[]): { prelude: ArchivePrelude; items: ArchiveWriteItem[] } {
  const prelude: ArchivePrelude = { collections: [] };
  const items: ArchiveWriteItem[] = [];
  for (const event of events) {
    if (event.kind === "header") prelude.header = event.header;
    else if (event.kind === "collection") prelude.collections.push(createCollectionSpec(event.metadata));
    else if (event.kind === "document") items.push({ kind: "document", namespace: event.namespace, bytes: event.bytes });
    else if (event.kind === "namespace-end") items.push({ kind: "namespace-end", namespace: event.namespace });
  }
  return { prelude, items };
}

/** Serializes a document to raw BSON bytes, as a plain Uint8Array (a Buffer's slice() would be a view). */
export function toBson(document: Document): Uint8Array {
  return new Uint8Array(BSON.serialize(document));
}

/** Runs a promise-returning function and returns the MongodumpArchiveError it throws, failing otherwise. */
export async function catchArchiveError(run: () => Promise<unknown>): Promise<MongodumpArchiveError> {
  try {
    await run();
  } catch (error) {
    if (error instanceof MongodumpArchiveError) return error;
    throw new Error(`expected a MongodumpArchiveError, got: ${String(error)}`, { cause: error });
  }
  throw new Error("expected a MongodumpArchiveError, but nothing was thrown");
}

/** Concatenates byte arrays. */
export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  return new Uint8Array(Buffer.concat(parts));
}

/** Builds archive bytes by hand: magic, header, prelude entries, terminator, then the given body blocks. */
export function assembleArchive(collections: CollectionSpec[], ...body: Uint8Array[]): Uint8Array {
  return concatBytes(
    MAGIC_BYTES,
    encodeArchiveHeader(completeArchiveHeader({ serverVersion: "7.0.0" })),
    ...collections.map((spec) => encodeCollectionEntry(spec)),
    TERMINATOR_BYTES,
    ...body,
  );
}

/** One namespace segment: header, documents, terminator. */
export function segmentBlock(db: string, collection: string, documents: Uint8Array[]): Uint8Array {
  return concatBytes(encodeNamespaceHeader(db, collection), ...documents, TERMINATOR_BYTES);
}

/** One EOF block whose CRC is that of the given documents (or an explicit CRC). */
export function eofBlock(db: string, collection: string, documents: Uint8Array[], crc?: bigint): Uint8Array {
  const stored = crc ?? BigInt.asIntN(64, computeCrc64(concatBytes(...documents)));
  return concatBytes(encodeNamespaceHeader(db, collection, stored), TERMINATOR_BYTES);
}

/** Counts the non-overlapping occurrences of a byte sequence. */
export function countOccurrences(haystack: Uint8Array, needle: Uint8Array): number {
  const text = Buffer.from(haystack.buffer, haystack.byteOffset, haystack.byteLength);
  let count = 0;
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length)) count++;
  return count;
}
